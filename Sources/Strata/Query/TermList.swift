/// The terms of an `AND` or `OR` list in a ``WherePredicate``.
///
/// A chain built term by term (`reduce(&&)`, `||` in a loop) extends the
/// newest version of its list at every step; were the list an array, each
/// step would copy it, and a chain of 50,000 terms would take 15 seconds to
/// build. Versions of a list share one append-only buffer instead, each
/// seeing its own prefix of it: extending the newest version appends in
/// place, extending an older one copies its prefix. A list is a value as far
/// as anyone can tell.
struct TermList: Sendable {
    /// The terms of every version, shared.
    private let buffer: Locked<[WherePredicate]>
    /// The number of terms: this version's prefix of the buffer.
    let count: Int

    init(_ terms: [WherePredicate]) {
        buffer = Locked(terms)
        count = terms.count
    }

    private init(buffer: Locked<[WherePredicate]>, count: Int) {
        self.buffer = buffer
        self.count = count
    }

    var isEmpty: Bool { count == 0 }

    /// The terms, in order (sharing the buffer's storage until it changes).
    var terms: ArraySlice<WherePredicate> {
        buffer.withLock { $0[..<count] }
    }

    /// This list followed by `more`: in place when this is the newest
    /// version of the buffer, so that building a chain costs O(1) a term.
    func appending(_ more: [WherePredicate]) -> TermList {
        let extended: TermList? = buffer.withLock { stored in
            guard stored.count == count else { return nil }
            stored.append(contentsOf: more)
            return TermList(buffer: buffer, count: stored.count)
        }
        return extended ?? TermList(Array(terms) + more)
    }
}
