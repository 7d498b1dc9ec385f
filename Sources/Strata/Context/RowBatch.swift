/// Up to ``capacity`` rows that one fetch read, in one buffer that their
/// objects share until one is changed (then it takes its own copy): a fetch of
/// 100,000 objects makes about a hundred allocations for their values instead
/// of 100,000.
///
/// A batch lives as long as any object that still reads from it; keeping
/// batches small bounds what one long-lived object keeps in memory. It also
/// keeps the fetching context alive for those objects, so that each of them
/// need not retain the context itself.
final class RowBatch {
    static let capacity = 1_024

    let columns: Int
    /// The context whose fetch read the rows.
    let context: ObjectContext
    /// Room for ``capacity`` rows, of which the first `count` values are
    /// initialized. A buffer of its own rather than an array, so that filling
    /// it checks neither uniqueness nor capacity per value.
    private let storage: UnsafeMutablePointer<StoredValue>
    // Unchecked exclusivity: only `append` and `deinit` touch it.
    @exclusivity(unchecked) private var count = 0

    init(columns: Int, context: ObjectContext) {
        self.columns = columns
        self.context = context
        storage = .allocate(capacity: max(1, columns * Self.capacity))
    }

    deinit {
        storage.deinitialize(count: count)
        storage.deallocate()
    }

    /// Whether another row fits.
    var hasRoom: Bool { count + columns <= columns * Self.capacity }

    /// The value at `index` (a row's start plus a slot).
    @inline(__always)
    func value(at index: Int) -> StoredValue {
        precondition(index < count, "Strata: a row batch was read past its rows")
        return storage[index]
    }

    /// A copy of the row that starts at `start`.
    func row(from start: Int) -> ContiguousArray<StoredValue> {
        precondition(start + columns <= count, "Strata: a row batch was read past its rows")
        return ContiguousArray(UnsafeBufferPointer(start: storage + start, count: columns))
    }

    /// Appends the attribute columns (1...columns) of the statement's current
    /// row and returns where the row starts.
    func append(_ statement: Statement) -> Int {
        precondition(hasRoom, "Strata: a full row batch was appended to")
        let start = count
        for column in 0..<columns {
            (storage + start + column).initialize(to: statement.value(at: Int32(column + 1)))
        }
        count += columns
        return start
    }
}
