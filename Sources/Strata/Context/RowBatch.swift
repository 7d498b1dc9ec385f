import CSQLite
import Foundation

/// Up to ``capacity`` rows that one fetch read, in one buffer that their
/// objects share until one is changed (then it takes its own copy of its
/// values).
///
/// Each row is a record in `bytes`, close to SQLite's own: a code byte per
/// value (``Code``: its storage class and, for a small text or blob, its
/// length), then the values one after another in as few bytes as they need
/// (an integer in 1, 2, 4 or 8; a double in 8; a text's or blob's bytes, a
/// long one's preceded by its length). A read finds its value by adding up
/// the sizes of the values before it, and decodes it; a fetch of 100,000
/// objects makes a few hundred allocations for their values, not one per
/// object and string, and freeing them is as cheap. A row of the benchmark's
/// model (two texts, an integer, a double) takes 52 bytes where eight bytes
/// and a storage class a value took 73 (Docs/Performance.md).
///
/// A batch lives as long as any object that still reads from it; keeping
/// batches small bounds what one long-lived object keeps in memory. It also
/// keeps the fetching context alive for those objects, so that each of them
/// need not retain the context itself.
final class RowBatch {
    static let capacity = 1_024

    /// A value's code byte: its storage class, and how its bytes are stored.
    private enum Code {
        static let null: UInt8 = 0
        /// An integer in 1, 2, 4 or 8 bytes: codes 1 to 4.
        static let integer8: UInt8 = 1
        static let integer16: UInt8 = 2
        static let integer32: UInt8 = 3
        static let integer64: UInt8 = 4
        static let real: UInt8 = 5
        /// A text or blob too long for a short code: a `UInt32` length, then the bytes.
        static let longText: UInt8 = 6
        static let longBlob: UInt8 = 7
        /// A text of fewer than ``shortTextLimit`` bytes: `shortText + length`, then the bytes.
        static let shortText: UInt8 = 8
        /// A blob of fewer than ``shortBlobLimit`` bytes: `shortBlob + length`, then the bytes.
        static let shortBlob: UInt8 = 128
        static let shortTextLimit = Int(shortBlob - shortText)  // 120
        static let shortBlobLimit = Int(UInt8.max - shortBlob) + 1  // 128
    }

    let columns: Int
    /// The context whose fetch read the rows.
    let context: ObjectContext
    /// The same context, for objects that borrow it without a retain.
    let unretainedContext: Unmanaged<ObjectContext>
    /// How many rows fit.
    private let rowCapacity: Int
    /// Per row, where its record starts in `bytes`.
    private let rowStarts: UnsafeMutablePointer<UInt32>
    // Unchecked exclusivity (checked in the checked build): only `append`,
    // `finish` (and `deinit`) change the state below, never while a read is
    // in progress.
    /// The records, from `malloc`, so that ``finish()`` can give back the
    /// room they did not take with `realloc`.
    #if !STRATA_CHECKED
    @exclusivity(unchecked)
    #endif
    private var bytes: UnsafeMutableRawPointer
    #if !STRATA_CHECKED
    @exclusivity(unchecked)
    #endif
    private var byteCapacity: Int
    #if !STRATA_CHECKED
    @exclusivity(unchecked)
    #endif
    private(set) var byteCount = 0
    #if !STRATA_CHECKED
    @exclusivity(unchecked)
    #endif
    private var count = 0
    /// How many main-context objects read their values from the batch, or
    /// -1 in a transaction's batch, whose objects hold it by a retain each.
    /// Main-context readers hold one retain together: the first to attach
    /// takes it, the last to leave gives it back. A plain count, not a retain
    /// and a release each (atomic instructions, which hold back the loads
    /// after them), because main-context objects live and die on the main
    /// actor (their deinit leaves its identity map without a lock). A
    /// transaction's objects may be freed on its queue (the disposal of a
    /// large transaction) while the caller, which a synchronous transaction
    /// handed some of them, frees others. One word, so that the batch stays
    /// a 112-byte block: with a second one (a 128-byte block) glibc trimmed
    /// the heap between the benchmark's fetches again (Docs/Performance.md).
    #if !STRATA_CHECKED
    @exclusivity(unchecked)
    #endif
    private(set) var readerCount: Int

    /// Whether readers hold the batch by ``readerCount``.
    var countsReaders: Bool { readerCount >= 0 }

    /// A batch for up to `rows` rows (at most ``capacity``) of `columns`
    /// values, whose records start with room for `byteCapacity` bytes and
    /// an eighth more (by default, nine bytes a value). A fetch sizes each
    /// batch by the last one's bytes; the eighth spares growing (and
    /// copying) a batch whose rows hold a few bytes more than the last's,
    /// and ``finish()`` gives back what was not taken.
    init(
        columns: Int, rows: Int = RowBatch.capacity, byteCapacity: Int? = nil,
        context: ObjectContext
    ) {
        self.columns = columns
        self.context = context
        unretainedContext = Unmanaged.passUnretained(context)
        readerCount = context.kind == .main ? 0 : -1
        rowCapacity = max(1, min(rows, Self.capacity))
        rowStarts = .allocate(capacity: rowCapacity)
        self.byteCapacity = max(64, byteCapacity.map { $0 + $0 / 8 } ?? rowCapacity * columns * 9)
        bytes = Self.reallocate(nil, byteCount: self.byteCapacity)
    }

    deinit {
        rowStarts.deallocate()
        free(bytes)
    }

    /// An object starts reading from the batch: it holds the batch, by a
    /// retain or by ``readerCount``.
    @inline(__always)
    func readerDidAttach() {
        guard countsReaders else {
            _ = Unmanaged.passUnretained(self).retain()
            return
        }
        if readerCount == 0 { _ = Unmanaged.passUnretained(self).retain() }
        readerCount += 1
    }

    /// An object stops reading from `batch` and lets go of it, which may
    /// free it.
    @inline(__always)
    static func readerDidLeave(_ batch: Unmanaged<RowBatch>) {
        let isReleased = batch._withUnsafeGuaranteedRef { batch in
            guard batch.countsReaders else { return true }
            batch.readerCount -= 1
            return batch.readerCount == 0
        }
        if isReleased { batch.release() }
    }

    /// Whether another row fits: a record starts below 4 GiB (its start is
    /// 32 bits).
    var hasRoom: Bool { count < rowCapacity && byteCount <= Int(UInt32.max) }

    /// The value in `slot` of row `row`, decoded.
    @inline(__always)
    func value(row: Int, slot: Int) -> StoredValue {
        checkUsage(
            row >= 0 && row < count && slot >= 0 && slot < columns,
            "Strata: a row batch was read past its rows")
        let record = UnsafeRawPointer(bytes + Int(rowStarts[row]))
        var value = record + columns
        for earlier in 0..<slot {
            value += Self.size(code: record.load(fromByteOffset: earlier, as: UInt8.self), at: value)
        }
        return Self.decode(code: record.load(fromByteOffset: slot, as: UInt8.self), at: value)
    }

    /// A copy of row `row`.
    func row(_ row: Int) -> ContiguousArray<StoredValue> {
        checkUsage(row >= 0 && row < count, "Strata: a row batch was read past its rows")
        let record = UnsafeRawPointer(bytes + Int(rowStarts[row]))
        var value = record + columns
        return ContiguousArray(unsafeUninitializedCapacity: columns) { buffer, initialized in
            for slot in 0..<columns {
                let code = record.load(fromByteOffset: slot, as: UInt8.self)
                (buffer.baseAddress! + slot).initialize(to: Self.decode(code: code, at: value))
                value += Self.size(code: code, at: value)
            }
            initialized = columns
        }
    }

    /// How many bytes the value with `code` at `value` takes.
    @inline(__always)
    private static func size(code: UInt8, at value: UnsafeRawPointer) -> Int {
        if code >= Code.shortBlob { return Int(code - Code.shortBlob) }
        if code >= Code.shortText { return Int(code - Code.shortText) }
        switch code {
        case Code.null: return 0
        case Code.integer8: return 1
        case Code.integer16: return 2
        case Code.integer32: return 4
        case Code.longText, Code.longBlob: return 4 + Int(value.loadUnaligned(as: UInt32.self))
        default: return 8
        }
    }

    /// The value with `code` at `value`.
    @inline(__always)
    private static func decode(code: UInt8, at value: UnsafeRawPointer) -> StoredValue {
        switch code {
        case Code.null: return .null
        case Code.integer8: return .integer(Int64(value.loadUnaligned(as: Int8.self)))
        case Code.integer16: return .integer(Int64(value.loadUnaligned(as: Int16.self)))
        case Code.integer32: return .integer(Int64(value.loadUnaligned(as: Int32.self)))
        case Code.integer64: return .integer(value.loadUnaligned(as: Int64.self))
        case Code.real: return .real(Double(bitPattern: value.loadUnaligned(as: UInt64.self)))
        case Code.longText: return text(value + 4, count: Int(value.loadUnaligned(as: UInt32.self)))
        case Code.longBlob: return blob(value + 4, count: Int(value.loadUnaligned(as: UInt32.self)))
        case ..<Code.shortBlob: return text(value, count: Int(code - Code.shortText))
        default: return blob(value, count: Int(code - Code.shortBlob))
        }
    }

    @inline(__always)
    private static func text(_ start: UnsafeRawPointer, count: Int) -> StoredValue {
        .text(String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self))
    }

    private static func blob(_ start: UnsafeRawPointer, count: Int) -> StoredValue {
        count == 0 ? .blob(Data()) : .blob(Data(bytes: start, count: count))
    }

    /// Appends the attribute columns (1...columns) of the statement's current
    /// row and returns its row number.
    func append(_ statement: Statement) -> Int {
        append(statement, server: statement.server)
    }

    /// Appends the attribute columns of the current row of `statement`, whose
    /// ``Statement/server`` is `server`: a caller appending many rows reads it
    /// once, and holds it, so that no row retains and releases it.
    @inline(__always)
    func append(_ statement: Statement, server: (any ServerStatement)?) -> Int {
        // Read directly, not value by value through `Statement`, which would
        // ask each time which engine it runs on.
        if let server { return append(server: server) }
        return append(row: statement.sqliteRow)
    }

    /// Appends a server statement's row, read in one call rather than a call
    /// or two a value across the module boundary.
    private func append(server statement: any ServerStatement) -> Int {
        checkUsage(hasRoom, "Strata: a full row batch was appended to")
        startRow()
        withUnsafeTemporaryAllocation(
            of: ServerColumnValue.self, capacity: Swift.max(columns, 1)
        ) { values in
            let values = values.baseAddress!
            statement.readColumns(from: 1, count: columns, into: values)
            for column in 0..<columns {
                let read = values[column]
                switch read.storageClass {
                case SQLITE_INTEGER: appendInteger(Int64(bitPattern: read.bits), column: column)
                case SQLITE_FLOAT: appendReal(bits: read.bits, column: column)
                case SQLITE_TEXT: appendBytes(read.bytes, isText: true, column: column)
                case SQLITE_BLOB: appendBytes(read.bytes, isText: false, column: column)
                default: setCode(Code.null, column: column)
                }
            }
        }
        return endRow()
    }

    /// Appends an SQLite statement's row, each value read through the one
    /// `sqlite3_value` SQLite holds for its column (see ``SQLiteColumn``).
    private func append(row statement: SQLiteRow) -> Int {
        checkUsage(hasRoom, "Strata: a full row batch was appended to")
        startRow()
        for column in 0..<columns {
            let read = statement.column(at: Int32(column + 1))
            switch read.storageClass {
            case SQLITE_INTEGER: appendInteger(read.int64, column: column)
            case SQLITE_FLOAT: appendReal(bits: read.double.bitPattern, column: column)
            case SQLITE_TEXT: appendBytes(read.textBytes, isText: true, column: column)
            case SQLITE_BLOB: appendBytes(read.blobBytes, isText: false, column: column)
            default: setCode(Code.null, column: column)
            }
        }
        return endRow()
    }

    /// Starts the next row's record: its start, and room for its codes.
    @inline(__always)
    private func startRow() {
        rowStarts[count] = UInt32(truncatingIfNeeded: byteCount)
        reserve(columns)
        byteCount += columns
    }

    /// Counts in the row just written; returns its index.
    @inline(__always)
    private func endRow() -> Int {
        count += 1
        #if STRATA_CHECKED
        checkInvariants(ofRow: count - 1)
        #endif
        return count - 1
    }

    @inline(__always)
    private func setCode(_ code: UInt8, column: Int) {
        bytes.storeBytes(of: code, toByteOffset: Int(rowStarts[count]) + column, as: UInt8.self)
    }

    @inline(__always)
    private func appendInteger(_ integer: Int64, column: Int) {
        reserve(8)
        let end = bytes + byteCount
        if let narrow = Int8(exactly: integer) {
            end.storeBytes(of: narrow, as: Int8.self)
            setCode(Code.integer8, column: column)
            byteCount += 1
        } else if let narrow = Int16(exactly: integer) {
            end.storeBytes(of: narrow, as: Int16.self)
            setCode(Code.integer16, column: column)
            byteCount += 2
        } else if let narrow = Int32(exactly: integer) {
            end.storeBytes(of: narrow, as: Int32.self)
            setCode(Code.integer32, column: column)
            byteCount += 4
        } else {
            end.storeBytes(of: integer, as: Int64.self)
            setCode(Code.integer64, column: column)
            byteCount += 8
        }
    }

    @inline(__always)
    private func appendReal(bits: UInt64, column: Int) {
        reserve(8)
        (bytes + byteCount).storeBytes(of: bits, as: UInt64.self)
        setCode(Code.real, column: column)
        byteCount += 8
    }

    /// Appends a text's or blob's bytes. SQLite caps a value at 2^31 - 1
    /// bytes, so a long one's length fits its 32 bits.
    @inline(__always)
    private func appendBytes(_ source: UnsafeRawBufferPointer, isText: Bool, column: Int) {
        let length = source.count
        if length < (isText ? Code.shortTextLimit : Code.shortBlobLimit) {
            reserve(length)
            let code = (isText ? Code.shortText : Code.shortBlob) + UInt8(truncatingIfNeeded: length)
            setCode(code, column: column)
        } else {
            reserve(4 + length)
            (bytes + byteCount).storeBytes(of: UInt32(truncatingIfNeeded: length), as: UInt32.self)
            setCode(isText ? Code.longText : Code.longBlob, column: column)
            byteCount += 4
        }
        if let base = source.baseAddress, length > 0 {
            (bytes + byteCount).copyMemory(from: base, byteCount: length)
        }
        byteCount += length
    }

    /// Makes room for `needed` more bytes.
    @inline(__always)
    private func reserve(_ needed: Int) {
        if byteCount + needed > byteCapacity { grow(toHold: byteCount + needed) }
    }

    private func grow(toHold needed: Int) {
        byteCapacity = max(needed, byteCapacity * 2)
        bytes = Self.reallocate(bytes, byteCount: byteCapacity)
    }

    /// Gives back the room the rows did not take, once no more are
    /// appended: the fetch calls it when the batch is full and when the
    /// fetch ends. `realloc` shrinks a block in place.
    func finish() {
        guard byteCapacity - byteCount >= 64 else { return }
        byteCapacity = max(byteCount, 1)
        bytes = Self.reallocate(bytes, byteCount: byteCapacity)
    }

    /// `realloc`, which stops the program when memory runs out, as Swift's
    /// own allocations do.
    private static func reallocate(
        _ block: UnsafeMutableRawPointer?, byteCount: Int
    ) -> UnsafeMutableRawPointer {
        guard let block = realloc(block, byteCount) else {
            fatalError("Strata: out of memory for a row batch of \(byteCount) bytes")
        }
        return block
    }

    // MARK: Invariants

    #if DEBUG || STRATA_CHECKED
    /// Checks the whole batch: the rows within the capacity, the bytes within
    /// theirs, and every row (see ``checkInvariants(ofRow:)``).
    func checkInvariants() {
        checkInvariant(count <= rowCapacity, "\(count) rows in room for \(rowCapacity)")
        checkInvariant(byteCount <= byteCapacity, "\(byteCount) bytes in room for \(byteCapacity)")
        for row in 0..<count { checkInvariants(ofRow: row) }
    }

    /// Checks one row: its record starts where the last one ended (the
    /// first at 0) and its values end within the bytes. A row never changes
    /// once appended, and the bytes only grow, so checking each row when it
    /// is appended checks the whole batch.
    func checkInvariants(ofRow row: Int) {
        checkInvariant(row >= 0 && row < count, "row \(row) past the \(count) rows")
        checkInvariant(count <= rowCapacity, "\(count) rows in room for \(rowCapacity)")
        checkInvariant(byteCount <= byteCapacity, "\(byteCount) bytes in room for \(byteCapacity)")
        let start = Int(rowStarts[row])
        var end = start + columns
        for slot in 0..<columns {
            let code = bytes.load(fromByteOffset: start + slot, as: UInt8.self)
            if code == Code.longText || code == Code.longBlob {
                checkInvariant(end + 4 <= byteCount, "row \(row)'s value \(slot) has no length")
            }
            end += Self.size(code: code, at: bytes + end)
        }
        let next = row + 1 < count ? Int(rowStarts[row + 1]) : byteCount
        checkInvariant(end == next, "row \(row)'s values end at \(end), the next record starts at \(next)")
        // A row of no values (an entity without attributes) takes no bytes.
        checkInvariant(
            row == 0 ? start == 0 : start >= Int(rowStarts[row - 1]), "row \(row) starts at \(start)")
    }
    #endif
}
