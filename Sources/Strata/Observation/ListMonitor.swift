import Foundation

/// A live, sorted and optionally sectioned list of the objects a query
/// matches, kept current after every commit.
///
/// ```swift
/// let monitor = try stack.monitorList(
///     From<Person>().where(\.$age >= 18).orderBy(.ascending(\.$name)))
/// monitor.addObserver(self)
/// print(monitor.numberOfObjects(), monitor[0].name)
/// ```
///
/// After each commit the monitor updates itself from the saved change set:
/// it decides membership by evaluating the `Where` in memory and positions by
/// binary search on the sort keys, so a commit of k changes costs O(k log n),
/// not a re-fetch. It re-fetches (and diffs) only when it cannot decide in
/// memory: a raw-SQL `Where`, a `Where` or sort key reading through a
/// relationship whose other side changed, a fetch limit or offset (which
/// objects enter at the window's edges depends on objects outside it), or a
/// change set larger than half the list (past that, re-fetching is no dearer).
@MainActor
public final class ListMonitor<Object: ManagedObject>: ChangeSetObserver {
    /// Data of your own kept with the monitor, as CoreStore's
    /// `monitor.userInfo`; see ``UserInfo``.
    ///
    /// ```swift
    /// monitor.userInfo[ScreenKeys.scrollOffset] = 120.0
    /// ```
    public nonisolated let userInfo = UserInfo()
    let main: MainContext
    let entity: EntityDescription
    /// The query the monitor shows.
    public private(set) var query: From<Object>
    /// How the list is sectioned, if it is.
    public private(set) var sectionBy: SectionBy<Object>? {
        didSet { namesSection = sectionBy?.name }
    }
    /// `sectionBy`'s naming closure, or `nil` for a list without sections:
    /// what naming a changed member's section needs, without copying the
    /// generic `SectionBy` (its copy and metadata were a sixth of a
    /// 10,000-change update).
    var namesSection: (@Sendable (StoredValue) -> String)?
    /// The generation of the last change set the list reflects.
    var generation: UInt64 = 0
    /// Whether the list is being fetched: merges set off meanwhile are
    /// older than the fetch and are ignored.
    var isLoading = false
    /// How many times the list was fetched: a batch waiting to be delivered
    /// (``ObservationCenter/deliver(_:)``) is dropped when a refetch replaced
    /// the list it describes, whose observers hear of the refetch instead.
    var loadCount = 0
    /// While observers hear that a merge rebuilt the list as a refetch
    /// (sections of one name split or joined): the row IDs of the members
    /// it inserted or updated, which a publisher marks updated in its next
    /// snapshot. Empty at any other time.
    var rowsChangedByRebuild: Set<Int64> = []
    // The state below is read and written per changed member of a merge;
    // it opts out of dynamic exclusivity checks as the context's hot state
    // does (3% of a 10,000-change update). The checked build keeps them.
    #if !STRATA_CHECKED
    @exclusivity(unchecked)
    #endif
    var specs: [ListSortKey] = []
    /// The list, in order: each member with its key.
    #if !STRATA_CHECKED
    @exclusivity(unchecked)
    #endif
    var members = ListMembers()
    #if !STRATA_CHECKED
    @exclusivity(unchecked)
    #endif
    var keysByRowID = ListKeyMap()
    /// The entities the predicate, the sort keys and the sections read
    /// through relationships (including the monitored one, for a path back to it).
    var entitiesRead: Set<String> = []
    #if !STRATA_CHECKED
    @exclusivity(unchecked)
    #endif
    var sectionRuns: [ListSection] = []
    /// Section names by section-key value, while the SectionBy stays the same.
    #if !STRATA_CHECKED
    @exclusivity(unchecked)
    #endif
    var namesBySectionKey = SectionNameCache()
    var observers: [ListObserverBox<Object>] = []
    /// The main context of the store a query names, as `monitorList` finds
    /// it (set by the stack; `nil` once the stack is gone): a refetch must
    /// name the store the monitor follows.
    var storeOfQuery: ((From<Object>) throws -> MainContext?)?
    /// How many times ``removeObserver(_:)`` ran: a batch being delivered
    /// checks it before each call (see ``isObserving(_:removals:)``).
    private(set) var observerRemovals = 0

    /// `chunkCapacity` sizes the chunks the list is kept in; tests make it
    /// small so that a few dozen members already span several chunks.
    init(
        main: MainContext, query: From<Object>, sectionBy: SectionBy<Object>?,
        chunkCapacity: Int = ListMembers.defaultChunkCapacity
    ) throws {
        self.main = main
        self.entity = main.context.schema.entity(of: Object.self)
        self.query = query
        self.sectionBy = sectionBy
        self.namesSection = sectionBy?.name
        self.members = ListMembers(chunkCapacity: chunkCapacity)
        try load()
        main.observation.add(self, stage: .monitors)
    }

    isolated deinit {
        main.observation.remove(self)
    }

    // MARK: Observers

    /// Adds an observer of the list as a whole; held weakly.
    public func addObserver<Observer: ListObserver>(_ observer: Observer) where Observer.ListEntityType == Object {
        addBox(ListObserverBox(observer))
    }

    /// Adds an observer of objects; held weakly.
    public func addObserver<Observer: ListObjectObserver>(_ observer: Observer)
    where Observer.ListEntityType == Object {
        addBox(ListObserverBox(observer))
    }

    /// Adds an observer of objects and sections; held weakly.
    public func addObserver<Observer: ListSectionObserver>(_ observer: Observer)
    where Observer.ListEntityType == Object {
        addBox(ListObserverBox(observer))
    }

    /// Removes an observer. It gets nothing more, not even the rest of a
    /// batch whose callback removes it.
    public func removeObserver(_ observer: AnyObject) {
        observers.removeAll { $0.observer == nil || $0.observer === observer }
        observerRemovals &+= 1
    }

    /// Whether `box`'s observer is still added, for a batch that began when
    /// ``observerRemovals`` was `removals`: one comparison unless a callback
    /// removed an observer since.
    func isObserving(_ box: ListObserverBox<Object>, removals: Int) -> Bool {
        removals == observerRemovals || observers.contains { $0.observer != nil && $0.observer === box.observer }
    }

    private func addBox(_ box: ListObserverBox<Object>) {
        observers.removeAll { $0.observer == nil || $0.observer === box.observer }
        observers.append(box)
    }

    var liveObservers: [ListObserverBox<Object>] {
        // Checked before removing: this runs on every commit the list shows.
        if observers.contains(where: { $0.observer == nil }) {
            observers.removeAll { $0.observer == nil }
        }
        return observers
    }

    // MARK: Refetching

    /// Whether a refetch was asked for and has not run yet: always `false`,
    /// since ``refetch(_:)`` fetches the new list before it returns (CoreStore
    /// runs it later, and code written for it may wait for this to clear).
    ///
    /// ```swift
    /// guard !monitor.isPendingRefetch else { return }   // never returns here in Strata
    /// ```
    public var isPendingRefetch: Bool { false }

    /// Replaces the query, sectioning included: observers get
    /// `listMonitorWillRefetch` now and `listMonitorDidRefetch` once the new
    /// list is in place, with no per-object events in between. A ``From``
    /// makes the list one section; a ``SectionedQuery`` sections it.
    ///
    /// ```swift
    /// try monitor.refetch(From<Person>().sectionBy(\.$city).orderBy(.ascending(\.$name)))
    /// ```
    ///
    /// - Throws: a ``StrataError`` if the fetch fails; the old list stays, and
    ///   observers still get `listMonitorDidRefetch`.
    public func refetch(_ query: some ListQuery<Object>) throws(StrataError) {
        try refetch(from: query.from, sectionBy: query.sectionBy)
    }

    /// Replaces the fetch and the sectioning; see ``refetch(_:)``.
    func refetch(from query: From<Object>, sectionBy: SectionBy<Object>?) throws(StrataError) {
        // A monitor follows one store: a query of another (or one several
        // stores answer) is refused, as `monitorList` refuses it, before
        // observers hear of a refetch; the old list stays.
        if let storeOfQuery {
            let target = try StrataError.catching { try storeOfQuery(query) }
            if let target, target !== main {
                throw StrataError.invalidValue(
                    entity: entity.name, field: "configuration",
                    reason: "a monitor follows one store, and the query names another; "
                        + "refetch with a query of the store it follows, or make a new monitor")
            }
        }
        let boxes = liveObservers
        let removals = observerRemovals
        for box in boxes where isObserving(box, removals: removals) { box.willRefetch(self) }
        let previous = (self.query, self.sectionBy)
        self.query = query
        self.sectionBy = sectionBy
        // In a refresh, `didRefetch` waits until every monitor has re-read
        // (``ObservationCenter/deliver(_:)``); otherwise it comes at once.
        let didRefetch = { [self] in
            for box in boxes where isObserving(box, removals: removals) { box.didRefetch(self) }
        }
        do {
            try load()
        } catch {
            // The old list stays, and observers that were told a refetch
            // began are told it ended, as they would be after a success.
            (self.query, self.sectionBy) = previous
            main.observation.deliver(didRefetch)
            throw StrataError.wrapping(error)
        }
        main.observation.deliver(didRefetch)
    }

    // MARK: Positions

    func position(of indexPath: IndexPath) -> Int {
        Self.position(of: indexPath, in: sectionRuns)
    }

    /// The position in the whole list of `indexPath` among `sectionRuns`.
    static func position(of indexPath: IndexPath, in sectionRuns: [ListSection]) -> Int {
        sectionRuns[..<indexPath.section].reduce(0) { $0 + $1.count } + indexPath.item
    }

    func indexPath(ofPosition position: Int) -> IndexPath {
        IndexPath(position: position, sectionEnds: sectionEnds(sectionRuns))
    }

    /// Where each section ends in the list (the next one's start).
    func sectionEnds(_ sectionRuns: [ListSection]) -> [Int] {
        var ends: [Int] = []
        ends.reserveCapacity(sectionRuns.count)
        var end = 0
        for section in sectionRuns {
            end += section.count
            ends.append(end)
        }
        return ends
    }
}

/// One member of a monitored list while it is being placed: the object,
/// where it sorts and its section name.
struct ListMember {
    let object: ManagedObject
    let key: ListKey
    let section: String
}

/// One sort key of a monitored list, resolved for in-memory comparison.
struct ListSortKey {
    let path: ValuePath
    /// How its values are encoded into a member's ``ListKey``.
    let rule: ListKey.Rule
    /// The value's slot when the path is a field of the object itself.
    var slot: Int?

    init(path: ValuePath, ascending: Bool, options: TextOptions, nullsFirst: Bool, slot: Int? = nil) {
        self.path = path
        rule = ListKey.Rule(
            ascending: ascending, nullsFirst: nullsFirst, options: options, isDecimal: path.isDecimal)
        self.slot = slot
    }

    var ascending: Bool { rule.ascending }
    var options: TextOptions { rule.options }
    var nullsFirst: Bool { rule.nullsFirst }
}

/// Section names by section-key value, so that a SectionBy closure is
/// called once a value, not once a changed member. Integers sit in a table
/// indexed by a multiplicative hash of the value (hashing each into a
/// dictionary was most of naming a member); texts are told apart by their
/// bytes, as the list's order does (Swift's `String` equality would take
/// `"é"` and `"e\u{301}"` for one value). Other values are named each time,
/// so that `0.0` and `-0.0`, equal as keys, keep names of their own.
struct SectionNameCache {
    private var integers: [(value: Int64, name: String)?] = []
    private var texts: [[UInt8]: String] = [:]
    private static let integerSlots = 1_024

    /// The name of the section for `value`, as `naming` names it.
    mutating func name(of value: StoredValue, naming: (StoredValue) -> String) -> String {
        switch value {
        case .integer(let integer):
            if integers.isEmpty { integers = Array(repeating: nil, count: Self.integerSlots) }
            // The top ten bits of the product spread neighbouring values apart.
            let hash = UInt64(bitPattern: integer) &* 0x9E37_79B9_7F4A_7C15
            let index = Int(truncatingIfNeeded: hash >> 54)
            if let known = integers[index], known.value == integer { return known.name }
            let name = naming(value)
            integers[index] = (integer, name)
            return name
        case .text(let text):
            let bytes = Array(text.utf8)
            if let name = texts[bytes] { return name }
            let name = naming(value)
            if texts.count >= 4_096 { texts.removeAll(keepingCapacity: true) }
            texts[bytes] = name
            return name
        case .null, .real, .blob:
            return naming(value)
        }
    }
}

/// One section of a monitored list: a run of members with the same name.
struct ListSection {
    let name: String
    var count: Int
}

/// Two monitors are equal when they are the same one, as CoreStore's are: a
/// monitor made again for the same query is another monitor.
extension ListMonitor: Hashable {
    /// Whether `lhs` and `rhs` are the same instance.
    public nonisolated static func == (lhs: ListMonitor, rhs: ListMonitor) -> Bool { lhs === rhs }

    /// Hashes the instance's identity, consistently with `==`.
    public nonisolated func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}
