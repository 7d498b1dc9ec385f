/// One column of a server statement's current row, read in one go with the
/// others (``ServerStatement/readColumns(from:count:into:)``): its storage
/// class in SQLite's codes, and the integer, the double's bits, or the text
/// or blob bytes, which the statement's result owns until it steps past the
/// row or resets.
package struct ServerColumnValue {
    /// `SQLITE_INTEGER`, `SQLITE_FLOAT`, `SQLITE_TEXT`, `SQLITE_BLOB` or `SQLITE_NULL`.
    package var storageClass: Int32
    /// The integer's bits (`SQLITE_INTEGER`) or the double's (`SQLITE_FLOAT`); else 0.
    package var bits: UInt64
    /// The text's UTF-8 or the blob's bytes; else empty.
    package var bytes: UnsafeRawBufferPointer

    // Inlinable: the server's module makes one a value, and a call each costs
    // more than the three stores.
    @inlinable
    package init(
        storageClass: Int32, bits: UInt64 = 0,
        bytes: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0)
    ) {
        self.storageClass = storageClass
        self.bits = bits
        self.bytes = bytes
    }
}
