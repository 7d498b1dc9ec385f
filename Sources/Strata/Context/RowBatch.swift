/// Up to ``capacity`` rows that one fetch read, in one buffer that their
/// objects share until one is changed (then it takes its own copy): a fetch of
/// 100,000 objects makes about a hundred allocations for their values instead
/// of 100,000.
///
/// A batch lives as long as any object that still reads from it; keeping
/// batches small bounds what one long-lived object keeps in memory.
final class RowBatch {
    static let capacity = 1_024

    let columns: Int
    @exclusivity(unchecked) var storage = ContiguousArray<StoredValue>()

    init(columns: Int) {
        self.columns = columns
        storage.reserveCapacity(columns * Self.capacity)
    }

    /// Whether another row fits without growing the buffer.
    var hasRoom: Bool { storage.count + columns <= columns * Self.capacity }

    /// A copy of the row that starts at `start`.
    func row(from start: Int) -> ContiguousArray<StoredValue> {
        ContiguousArray(storage[start..<(start + columns)])
    }

    /// Appends the attribute columns (1...columns) of the statement's current
    /// row and returns where the row starts.
    func append(_ statement: Statement) -> Int {
        let start = storage.count
        for column in 0..<columns {
            storage.append(statement.value(at: Int32(column + 1)))
        }
        return start
    }
}
