/// Sections are known by name through a batch, as NSFetchedResultsController
/// (and so CoreStore) knows them: a section that one commit empties and
/// refills in the same place stays, its objects deleted, inserted and moved,
/// instead of being deleted and inserted again. A re-fetch's diff
/// (``ListDiff``) matches sections by name too, so both ways of updating a
/// monitor give the same batch.
extension ListSection {
    /// A batch's deleted sections (old indices into `old`) and inserted ones
    /// (new indices into `new`), both ascending, less the pairs that are one
    /// section kept: a deleted and an inserted section of the same name
    /// between the same kept sections.
    static func keepingRefilled(
        deleted: [Int], of old: [ListSection], inserted: [Int], of new: [ListSection]
    ) -> (deleted: [Int], inserted: [Int]) {
        guard !deleted.isEmpty, !inserted.isEmpty else { return (deleted, inserted) }
        // The k-th deleted section has `deleted[k] - k` kept sections before
        // it, and the k-th inserted one `inserted[k] - k`: equal counts put
        // them in the same gap between kept sections.
        var keptOld = Set<Int>()
        var keptNew = Set<Int>()
        var next = 0  // the first deleted section neither paired nor passed
        for (rank, index) in inserted.enumerated() {
            let gap = index - rank
            while next < deleted.count, deleted[next] - next < gap { next += 1 }
            // Pairs keep their order in both lists, as kept sections do.
            var candidate = next
            while candidate < deleted.count, deleted[candidate] - candidate == gap {
                if old[deleted[candidate]].name == new[index].name {
                    keptOld.insert(deleted[candidate])
                    keptNew.insert(index)
                    next = candidate + 1
                    break
                }
                candidate += 1
            }
        }
        return (deleted.filter { !keptOld.contains($0) }, inserted.filter { !keptNew.contains($0) })
    }
}
