import CSQLite
import Foundation

/// Up to ``capacity`` rows that one fetch read, in buffers that their objects
/// share until one is changed (then it takes its own copy of its values).
///
/// The rows stay close to SQLite's own encoding: a storage class and eight
/// bytes per value (the integer, the double, or a text or blob value's length
/// and where its bytes start), and the text and blob bytes one after another
/// in one byte buffer. A read decodes the value it asks for, so a fetch of 100,000 objects
/// makes a few hundred allocations for their values, not one per object and
/// string, and freeing them is as cheap.
///
/// A batch lives as long as any object that still reads from it; keeping
/// batches small bounds what one long-lived object keeps in memory. It also
/// keeps the fetching context alive for those objects, so that each of them
/// need not retain the context itself.
final class RowBatch {
    static let capacity = 1_024

    /// A value's storage class.
    private enum Kind: UInt8 { case null, integer, real, text, blob }

    let columns: Int
    /// The context whose fetch read the rows.
    let context: ObjectContext
    /// The same context, for objects that borrow it without a retain.
    let unretainedContext: Unmanaged<ObjectContext>
    /// How many values fit.
    private let valueCapacity: Int
    /// Per value: the integer, the bits of the double, or a text's or blob's
    /// length and offset in `bytes` (see ``textPayload(offset:length:)``).
    private let payloads: UnsafeMutablePointer<UInt64>
    /// Per value, its storage class.
    private let kinds: UnsafeMutablePointer<Kind>
    // Unchecked exclusivity (checked in the checked build): only `append`
    // (and `deinit`) change the state below, never while a read is in progress.
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
    /// values, whose text and blob bytes start with room for `byteCapacity`
    /// and an eighth more (by default, eight bytes a value). A fetch sizes
    /// each batch by the last one's bytes; the eighth spares growing (and
    /// copying) a batch whose rows hold a few bytes more than the last's.
    init(
        columns: Int, rows: Int = RowBatch.capacity, byteCapacity: Int? = nil,
        context: ObjectContext
    ) {
        self.columns = columns
        self.context = context
        unretainedContext = Unmanaged.passUnretained(context)
        readerCount = context.kind == .main ? 0 : -1
        valueCapacity = max(1, columns * min(rows, Self.capacity))
        let storage = UnsafeMutableRawPointer.allocate(
            byteCount: valueCapacity * (MemoryLayout<UInt64>.stride + MemoryLayout<Kind>.stride),
            alignment: MemoryLayout<UInt64>.alignment)
        payloads = storage.bindMemory(to: UInt64.self, capacity: valueCapacity)
        kinds = (storage + valueCapacity * MemoryLayout<UInt64>.stride)
            .bindMemory(to: Kind.self, capacity: valueCapacity)
        self.byteCapacity = max(64, byteCapacity.map { $0 + $0 / 8 } ?? valueCapacity * 8)
        bytes = .allocate(byteCount: self.byteCapacity, alignment: 1)
        bytes.bindMemory(to: UInt8.self, capacity: self.byteCapacity)
    }

    deinit {
        // The payloads and kinds are trivial: no value needs deinitializing.
        UnsafeMutableRawPointer(payloads).deallocate()
        bytes.deallocate()
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

    /// Whether another row fits. SQLite caps a row's record, hence its text
    /// and blob bytes, at 2^31 - 1 bytes: a row started below 4 GiB of bytes
    /// ends below 6, and its offsets fit the 33 bits the payload gives them.
    var hasRoom: Bool { count + columns <= valueCapacity && byteCount < 1 << 32 }

    /// The value at `index` (a row's start plus a slot), decoded.
    @inline(__always)
    func value(at index: Int) -> StoredValue {
        checkUsage(index >= 0 && index < count, "Strata: a row batch was read past its rows")
        let payload = payloads[index]
        switch kinds[index] {
        case .null: return .null
        case .integer: return .integer(Int64(bitPattern: payload))
        case .real: return .real(Double(bitPattern: payload))
        case .text: return .text(String(decoding: storedBytes(at: payload), as: UTF8.self))
        case .blob:
            let stored = storedBytes(at: payload)
            return stored.isEmpty ? .blob(Data()) : .blob(Data(buffer: stored))
        }
    }

    /// The value in `slot` of row `row`, decoded.
    @inline(__always)
    func value(row: Int, slot: Int) -> StoredValue {
        value(at: row * columns + slot)
    }

    /// A copy of row `row`.
    func row(_ row: Int) -> ContiguousArray<StoredValue> {
        let start = row * columns
        return ContiguousArray((start..<(start + columns)).lazy.map { self.value(at: $0) })
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
        let start = count
        withUnsafeTemporaryAllocation(
            of: ServerColumnValue.self, capacity: Swift.max(columns, 1)
        ) { values in
            let values = values.baseAddress!
            statement.readColumns(from: 1, count: columns, into: values)
            for column in 0..<columns {
                let read = values[column], value = start + column
                switch read.storageClass {
                case SQLITE_INTEGER:
                    kinds[value] = .integer
                    payloads[value] = read.bits
                case SQLITE_FLOAT:
                    kinds[value] = .real
                    payloads[value] = read.bits
                case SQLITE_TEXT:
                    kinds[value] = .text
                    payloads[value] = store(read.bytes)
                case SQLITE_BLOB:
                    kinds[value] = .blob
                    payloads[value] = store(read.bytes)
                default:
                    kinds[value] = .null
                    payloads[value] = 0
                }
            }
        }
        return endRow(at: start)
    }

    /// Appends an SQLite statement's row, each value read through the one
    /// `sqlite3_value` SQLite holds for its column (see ``SQLiteColumn``).
    private func append(row statement: SQLiteRow) -> Int {
        checkUsage(hasRoom, "Strata: a full row batch was appended to")
        let start = count
        for column in 0..<columns {
            let read = statement.column(at: Int32(column + 1))
            let value = start + column
            switch read.storageClass {
            case SQLITE_INTEGER:
                kinds[value] = .integer
                payloads[value] = UInt64(bitPattern: read.int64)
            case SQLITE_FLOAT:
                kinds[value] = .real
                payloads[value] = read.double.bitPattern
            case SQLITE_TEXT:
                kinds[value] = .text
                payloads[value] = store(read.textBytes)
            case SQLITE_BLOB:
                kinds[value] = .blob
                payloads[value] = store(read.blobBytes)
            default:
                kinds[value] = .null
                payloads[value] = 0
            }
        }
        return endRow(at: start)
    }

    /// Counts in the row just written at `start`; returns its index.
    private func endRow(at start: Int) -> Int {
        count += columns
        #if STRATA_CHECKED
        checkInvariants(ofRowAt: start)
        #endif
        return start / Swift.max(columns, 1)
    }

    /// Copies `source` after the stored bytes and returns its payload.
    private func store(_ source: UnsafeRawBufferPointer) -> UInt64 {
        let offset = byteCount
        let needed = offset + source.count
        if needed > byteCapacity { grow(toHold: needed) }
        if let base = source.baseAddress, source.count > 0 {
            (bytes + offset).copyMemory(from: base, byteCount: source.count)
        }
        byteCount = needed
        return Self.textPayload(offset: offset, length: source.count)
    }

    /// A text's or blob's payload: its length (SQLite caps a value at
    /// 2^31 - 1 bytes) in the top 31 bits, its offset in the low 33 (see
    /// ``hasRoom``). In the payload rather than in front of the bytes, a read
    /// finds both in the value it loads anyway, and a row takes 4 bytes less
    /// a text.
    @inline(__always)
    private static func textPayload(offset: Int, length: Int) -> UInt64 {
        UInt64(truncatingIfNeeded: length) << 33 | UInt64(truncatingIfNeeded: offset)
    }

    /// The offset's bits of a text's or blob's payload.
    private static let offsetMask: UInt64 = 1 << 33 - 1

    private func grow(toHold needed: Int) {
        let capacity = max(needed, byteCapacity * 2)
        let grown = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 1)
        grown.bindMemory(to: UInt8.self, capacity: capacity)
        grown.copyMemory(from: bytes, byteCount: byteCount)
        bytes.deallocate()
        bytes = grown
        byteCapacity = capacity
    }

    /// The bytes of the text or blob value whose payload is `payload`.
    @inline(__always)
    private func storedBytes(at payload: UInt64) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(
            start: (bytes + Int(payload & Self.offsetMask)).assumingMemoryBound(to: UInt8.self),
            count: Int(payload >> 33))
    }

    // MARK: Invariants

    #if DEBUG || STRATA_CHECKED
    /// Checks the whole batch: whole rows within the capacity, the bytes
    /// within theirs, and every row's values (see ``checkInvariants(ofRowAt:)``).
    func checkInvariants() {
        checkInvariant(
            count % Swift.max(columns, 1) == 0, "\(count) values, not rows of \(columns)")
        checkInvariant(count <= valueCapacity, "\(count) values in room for \(valueCapacity)")
        checkInvariant(byteCount <= byteCapacity, "\(byteCount) bytes in room for \(byteCapacity)")
        for start in stride(from: 0, to: count, by: Swift.max(columns, 1)) {
            checkInvariants(ofRowAt: start)
        }
    }

    /// Checks one row: a text or blob value's length and bytes lie within the
    /// stored bytes. A row never changes once appended, and the bytes only
    /// grow, so checking each row when it is appended checks the whole batch.
    func checkInvariants(ofRowAt start: Int) {
        checkInvariant(
            start >= 0 && start + columns <= count, "row at \(start) past the \(count) values")
        checkInvariant(count <= valueCapacity, "\(count) values in room for \(valueCapacity)")
        checkInvariant(byteCount <= byteCapacity, "\(byteCount) bytes in room for \(byteCapacity)")
        for index in start..<(start + columns) {
            guard kinds[index] == .text || kinds[index] == .blob else { continue }
            let offset = Int(payloads[index] & Self.offsetMask), length = Int(payloads[index] >> 33)
            checkInvariant(
                offset + length <= byteCount, "value \(index)'s bytes lie past the bytes")
        }
    }
    #endif
}
