/// One entry of a monitored list: the object and where it sorts.
struct ListEntry {
    let object: ManagedObject
    let key: ListKey

    var rowID: Int64 { key.rowID }
}

/// The members of a monitored list, in order, kept in chunks of at most
/// `chunkCapacity` entries.
///
/// A commit that moves one member moves at most a chunk's entries, not half
/// the list; a batch touches each chunk once. Positions are found by binary
/// search over where the chunks start, keys by binary search over the chunks'
/// last keys and then within one chunk: both O(log n).
struct ListMembers: Sequence {
    static let defaultChunkCapacity = 512

    let chunkCapacity: Int
    private(set) var count = 0
    private(set) var chunks: [ContiguousArray<ListEntry>] = []
    /// Where each chunk starts in the list; no chunk is empty.
    private var starts: [Int] = []
    /// The key of each chunk's last entry.
    private var lastKeys: ContiguousArray<ListKey> = []
    #if STRATA_CHECKED
    private var invariantSchedule = InvariantCheckSchedule()
    #endif

    init(_ entries: [ListEntry] = [], chunkCapacity: Int = defaultChunkCapacity) {
        precondition(chunkCapacity >= 2, "a chunk holds at least two entries")
        self.chunkCapacity = chunkCapacity
        chunks = Self.split(entries[...], capacity: chunkCapacity)
        restart()
        #if STRATA_CHECKED
        checkAfterChange()
        #endif
    }

    var isEmpty: Bool { count == 0 }

    /// The entry at `position` in the whole list.
    subscript(position: Int) -> ListEntry {
        let chunk = chunkIndex(containing: position)
        return chunks[chunk][position - starts[chunk]]
    }

    /// The entries at `range`, in order.
    func entries(in range: Range<Int>) -> [ListEntry] {
        var result: [ListEntry] = []
        result.reserveCapacity(range.count)
        guard !range.isEmpty else { return result }
        var chunk = chunkIndex(containing: range.lowerBound)
        var offset = range.lowerBound - starts[chunk]
        while result.count < range.count {
            let take = Swift.min(chunks[chunk].count - offset, range.count - result.count)
            result.append(contentsOf: chunks[chunk][offset..<(offset + take)])
            chunk += 1
            offset = 0
        }
        return result
    }

    /// The entries in order, chunk by chunk. Not `chunks.joined()`: the
    /// standard library's flattening iterator ran unspecialized here, looking
    /// up generic metadata for every entry.
    struct Iterator: IteratorProtocol {
        fileprivate let chunks: [ContiguousArray<ListEntry>]
        fileprivate var chunk = 0
        fileprivate var offset = 0

        mutating func next() -> ListEntry? {
            while chunk < chunks.count {
                if offset < chunks[chunk].count {
                    defer { offset += 1 }
                    return chunks[chunk][offset]
                }
                chunk += 1
                offset = 0
            }
            return nil
        }
    }

    func makeIterator() -> Iterator { Iterator(chunks: chunks) }

    /// Every entry: `map` reserves room for them all at once.
    var underestimatedCount: Int { count }

    // MARK: Searching

    /// The position of the first entry that does not sort before `key`: where
    /// an entry with `key` is, or would be inserted.
    func insertionPoint(of key: ListKey) -> Int {
        let (chunk, offset) = location(of: key)
        return chunk < chunks.count ? starts[chunk] + offset : count
    }

    /// The position of the entry with `key`'s row ID, found by `key`, or `nil`.
    /// The key must be the one the entry was placed with.
    func position(of key: ListKey) -> Int? {
        let (chunk, offset) = location(of: key)
        guard chunk < chunks.count, chunks[chunk][offset].rowID == key.rowID else { return nil }
        return starts[chunk] + offset
    }

    /// The positions of the entries with `keys` (ascending, distinct), each
    /// `nil` when absent, in one forward walk: each search gallops from where
    /// the last one ended, so a batch of k keys costs O(k log(n/k)) and reads
    /// the list in order instead of jumping across it k times.
    func positions(ofAscending keys: [ListKey]) -> [Int?] {
        var cursor = (chunk: 0, offset: 0)
        return keys.map { key in
            cursor = location(of: key, from: cursor)
            guard cursor.chunk < chunks.count, chunks[cursor.chunk][cursor.offset].rowID == key.rowID else { return nil }
            return starts[cursor.chunk] + cursor.offset
        }
    }

    /// ``insertionPoint(of:)`` of each of `keys` (ascending), in one forward
    /// walk as in ``positions(ofAscending:)``.
    func insertionPoints(ofAscending keys: [ListKey]) -> [Int] {
        var cursor = (chunk: 0, offset: 0)
        return keys.map { key in
            cursor = location(of: key, from: cursor)
            return cursor.chunk < chunks.count ? starts[cursor.chunk] + cursor.offset : count
        }
    }

    /// ``location(of:)`` when every entry before `cursor` sorts before `key`.
    private func location(of key: ListKey, from cursor: (chunk: Int, offset: Int)) -> (chunk: Int, offset: Int) {
        let chunk = lastKeys.withUnsafeBufferPointer { lastKeys in
            Self.lowerBound(from: cursor.chunk, count: lastKeys.count) { lastKeys[$0] < key }
        }
        guard chunk < chunks.count else { return (chunk, 0) }
        let offset = chunks[chunk].withUnsafeBufferPointer { entries in
            Self.lowerBound(from: chunk == cursor.chunk ? cursor.offset : 0, count: entries.count) {
                entries[$0].key < key
            }
        }
        return (chunk, offset)
    }

    /// The first index in `start..<count` that `isBelow` rejects (or
    /// `count`), when it accepts every index before `start` and then none:
    /// steps of 1, 2, 4, ... from `start`, then a binary search in the last
    /// step, so a nearby answer costs a few looks.
    @inline(__always)
    private static func lowerBound(from start: Int, count: Int, isBelow: (Int) -> Bool) -> Int {
        var low = start, high = start, step = 1
        while high < count, isBelow(high) {
            low = high + 1
            high = low + step
            step *= 2
        }
        high = Swift.min(high, count)
        while low < high {
            let middle = (low + high) / 2
            if isBelow(middle) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The chunk and offset of the first entry that does not sort before
    /// `key`; the chunk is `chunks.count` when every entry does.
    private func location(of key: ListKey) -> (chunk: Int, offset: Int) {
        // The first chunk whose last entry does not sort before the key,
        // found among the last keys, which lie together in memory.
        let chunk = lastKeys.withUnsafeBufferPointer { lastKeys in
            var low = 0, high = lastKeys.count
            while low < high {
                let middle = (low + high) / 2
                if lastKeys[middle] < key { low = middle + 1 } else { high = middle }
            }
            return low
        }
        guard chunk < chunks.count else { return (chunk, 0) }
        let offset = chunks[chunk].withUnsafeBufferPointer { entries in
            var low = 0, high = entries.count
            while low < high {
                let middle = (low + high) / 2
                if entries[middle].key < key { low = middle + 1 } else { high = middle }
            }
            return low
        }
        return (chunk, offset)
    }

    // MARK: Changing

    /// Removes the entries at `positions` (ascending, distinct), moving
    /// each chunk that loses one once, in place.
    mutating func remove(ascending positions: [Int]) {
        guard !positions.isEmpty else { return }
        var next = 0
        var emptied = false
        var changed: [(chunk: Int, delta: Int)] = []
        while next < positions.count {
            let chunk = chunkIndex(containing: positions[next])
            let start = starts[chunk], end = start + chunks[chunk].count
            var offsets: [Int] = []
            while next < positions.count, positions[next] < end {
                offsets.append(positions[next] - start)
                next += 1
            }
            Self.remove(offsets, from: &chunks[chunk])
            if chunks[chunk].isEmpty { emptied = true }
            changed.append((chunk, -offsets.count))
        }
        if emptied {
            chunks.removeAll { $0.isEmpty }
            restart()
        } else {
            adjust(changed)
        }
        #if STRATA_CHECKED
        checkAfterChange()
        #endif
    }

    /// Inserts entries at their final positions (ascending, as in the list
    /// after all of them are in), moving each chunk that gains one once, in
    /// place, and splitting any that grows past the capacity.
    mutating func insert(_ placed: [(position: Int, entry: ListEntry)]) {
        guard !placed.isEmpty else { return }
        // An empty list gets its first chunk, whose last key is only known once filled.
        var mustRestart = chunks.isEmpty
        if chunks.isEmpty {
            chunks = [[]]
            restart()
        }
        // Each entry's position among the entries already here is its final
        // position less the number of placed entries before it; the chunk
        // indices only grow along `placed`, so each chunk takes one run of it.
        var groups: [(chunk: Int, range: Range<Int>)] = []
        var chunk = 0
        for index in placed.indices {
            let existing = placed[index].position - index
            if existing >= count {
                chunk = chunks.count - 1
            } else if existing >= starts[chunk] + chunks[chunk].count {
                chunk = chunkIndex(containing: existing)
            }
            if groups.last?.chunk == chunk {
                groups[groups.count - 1].range = groups[groups.count - 1].range.lowerBound..<(index + 1)
            } else {
                groups.append((chunk, index..<(index + 1)))
            }
        }
        // From the last chunk back, so that a split does not move the chunks still to do.
        for (chunk, range) in groups.reversed() {
            Self.insert(placed[range], before: starts[chunk], into: &chunks[chunk])
            if chunks[chunk].count > chunkCapacity {
                chunks.replaceSubrange(chunk...chunk, with: Self.split(chunks[chunk][...], capacity: chunkCapacity))
                mustRestart = true
            }
        }
        if mustRestart {
            restart()
        } else {
            adjust(groups.map { ($0.chunk, $0.range.count) })
        }
        #if STRATA_CHECKED
        checkAfterChange()
        #endif
    }

    // MARK: Chunks

    private func chunkIndex(containing position: Int) -> Int {
        precondition(position >= 0 && position < count, "position \(position) outside a list of \(count)")
        var low = 0, high = starts.count
        while low < high {
            let middle = (low + high) / 2
            if starts[middle] <= position { low = middle + 1 } else { high = middle }
        }
        return low - 1
    }

    /// Recomputes the chunk starts, the last keys and the count.
    private mutating func restart() {
        if starts.count != chunks.count { starts = Array(repeating: 0, count: chunks.count) }
        lastKeys.removeAll(keepingCapacity: true)
        var start = 0
        for index in chunks.indices {
            starts[index] = start
            start += chunks[index].count
            if let last = chunks[index].last { lastKeys.append(last.key) }
        }
        count = start
    }

    /// What `restart()` does, after the chunks in `changed` (ascending,
    /// distinct) gained or lost `delta` entries in place, none emptied or
    /// split: their last keys, and the starts after each shifted by the
    /// deltas before them. Only the changed chunks are read; `restart()`
    /// reads every one, a cache miss or two each once the caches have moved
    /// on: a quarter of the merge of a one-change commit into a list of 45,000.
    private mutating func adjust(_ changed: [(chunk: Int, delta: Int)]) {
        #if DEBUG || STRATA_CHECKED
        checkInvariant(
            zip(changed, changed.dropFirst()).allSatisfy { $0.chunk < $1.chunk }, "changed chunks out of order")
        #endif
        var shift = 0
        for (index, change) in changed.enumerated() {
            let entries = chunks[change.chunk]
            lastKeys[change.chunk] = entries[entries.count - 1].key
            shift += change.delta
            let end = index + 1 < changed.count ? changed[index + 1].chunk + 1 : chunks.count
            for later in (change.chunk + 1)..<end { starts[later] += shift }
        }
        count += shift
    }

    /// Cuts entries into chunks filled to three quarters, leaving room to grow.
    private static func split(_ entries: ArraySlice<ListEntry>, capacity: Int) -> [ContiguousArray<ListEntry>] {
        let size = Swift.max(capacity * 3 / 4, 1)
        return stride(from: entries.startIndex, to: entries.endIndex, by: size).map {
            ContiguousArray(entries[$0..<Swift.min($0 + size, entries.endIndex)])
        }
    }

    /// Removes the entries at `offsets` (ascending) from one chunk, moving
    /// the survivors bitwise (no retains).
    private static func remove(_ offsets: [Int], from chunk: inout ContiguousArray<ListEntry>) {
        if offsets.count == 1 {
            chunk.remove(at: offsets[0])
            return
        }
        let kept = chunk.withUnsafeMutableBufferPointer { entries in
            var write = 0
            var next = 0
            for read in 0..<entries.count {
                if next < offsets.count, offsets[next] == read {
                    next += 1
                    continue
                }
                if write != read { entries.swapAt(write, read) }
                write += 1
            }
            return write
        }
        chunk.removeLast(chunk.count - kept)
    }

    /// Inserts entries into one chunk that starts at `start` in the list;
    /// `added` is a run of `placed` (final positions, ascending), so that
    /// entry i of `placed` goes `i` places after its position among the
    /// chunk's present entries. Entries at the same offset keep their order;
    /// present entries move bitwise, from the end.
    private static func insert(
        _ added: ArraySlice<(position: Int, entry: ListEntry)>, before start: Int,
        into chunk: inout ContiguousArray<ListEntry>
    ) {
        func offset(_ index: Int) -> Int { added[index].position - index - start }
        if added.count == 1 {
            chunk.insert(added[added.startIndex].entry, at: offset(added.startIndex))
            return
        }
        let oldCount = chunk.count
        chunk.append(contentsOf: repeatElement(added[added.startIndex].entry, count: added.count))
        chunk.withUnsafeMutableBufferPointer { entries in
            var read = oldCount - 1
            var write = entries.count - 1
            for index in added.indices.reversed() {
                let offset = offset(index)
                while read >= offset {
                    entries.swapAt(write, read)
                    read -= 1
                    write -= 1
                }
                entries[write] = added[index].entry
                write -= 1
            }
        }
    }

    #if DEBUG || STRATA_CHECKED
    /// Checks the chunks against the starts and the order; for tests, and
    /// after changes in the checked build.
    func checkInvariants() {
        checkChunks()
        var previous: ListKey?
        for entry in self {
            if let previous { checkInvariant(previous < entry.key, "entries out of order") }
            previous = entry.key
        }
    }

    /// Checks the chunks, their starts and last keys, and the order where
    /// two chunks meet: the part of ``checkInvariants()`` that costs a step
    /// per chunk, as `restart()` does.
    func checkChunks() {
        checkInvariant(
            starts.count == chunks.count && lastKeys.count == chunks.count,
            "not one start and last key a chunk")
        var start = 0
        for index in chunks.indices {
            let chunk = chunks[index]
            checkInvariant(
                !chunk.isEmpty && chunk.count <= chunkCapacity,
                "chunk \(index) is empty or too full")
            checkInvariant(
                starts[index] == start, "chunk \(index) starts at \(starts[index]), not \(start)")
            let last = chunk[chunk.count - 1].key
            checkInvariant(
                lastKeys[index].rowID == last.rowID && lastKeys[index].sortsWith(last), "chunk \(index)'s last key")
            if index > 0 {
                checkInvariant(
                    lastKeys[index - 1] < chunk[0].key, "chunks \(index - 1) and \(index) overlap")
            }
            start += chunk.count
        }
        checkInvariant(count == start, "count differs from the chunks")
    }
    #endif

    #if STRATA_CHECKED
    /// After each change (checked build): the chunks, then every entry's
    /// order when its turn comes.
    private mutating func checkAfterChange() {
        checkChunks()
        if invariantSchedule.isFullCheckDue(size: count) { checkInvariants() }
    }
    #endif
}
