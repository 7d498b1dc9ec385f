import Foundation
import Observation

/// A live list published as ``ListSnapshot`` values: to closures, as an
/// `AsyncSequence`, and as an `@Observable` property SwiftUI-style code reads.
///
/// ```swift
/// let publisher = try stack.publishList(From<Person>().orderBy(.ascending(\.$name)))
/// publisher.addObserver(self, notifyInitial: true) { publisher in
///     render(publisher.snapshot)
/// }
/// for await snapshot in publisher.snapshots { print(snapshot.count) }
/// ```
///
/// A publisher follows its list with a ``ListMonitor`` of its own, so a
/// commit costs what the monitor's update costs plus an O(n) copy of the row
/// IDs into the new snapshot. It publishes once per commit that changes what
/// the list shows (an object entering, leaving or moving, or a shown object's
/// fields changing) and never for a commit the list does not show; and once
/// after each `refetch(_:)`. Snapshots hold IDs only; read the objects on
/// the main actor with `stack.fetchExisting(id)`.
///
/// Let the publisher go to stop it: its ``snapshots`` sequences then finish.
/// They finish too when `removeStorage()` takes its store out of the stack,
/// since it publishes nothing more.
@Observable
@MainActor
public final class ListPublisher<Object: ManagedObject> {
    /// The list as of the last commit merged into the main context. Observable:
    /// reading it inside `withObservationTracking` (or a SwiftUI body) tracks it,
    /// and every publish counts as a change, also one whose snapshot equals the
    /// last (a commit that changed only the fields of shown objects).
    ///
    /// ```swift
    /// let rows = publisher.snapshot.count
    /// ```
    public var snapshot: ListSnapshot<Object> {
        access(keyPath: \.snapshot)
        return published
    }

    /// Kept apart from ``snapshot`` because `@Observable` skips setting a value
    /// equal to the current one, and a snapshot holds IDs only: an update to
    /// shown objects gives an equal snapshot that observers must still hear of.
    @ObservationIgnored private var published: ListSnapshot<Object>

    @ObservationIgnored private let monitor: ListMonitor<Object>
    @ObservationIgnored private let relay = Relay()
    @ObservationIgnored private let audience = PublisherAudience<ListPublisher<Object>, ListSnapshot<Object>>()
    /// Set when the monitor changed in this change set's monitors stage.
    @ObservationIgnored private var needsPublish = false

    init(monitor: ListMonitor<Object>) {
        self.monitor = monitor
        self.published = monitor.makeSnapshot()
        relay.publisher = self
        monitor.addObserver(relay)
        // The monitor updates in the `.monitors` stage, while other monitors may
        // still hold the previous commit; publishing there would let a closure
        // observer read a half-merged main actor. So the relay only notes the
        // change then, and the publisher publishes in the `.publishers` stage,
        // after every monitor has taken the change set (Docs/Architecture.md, "One pass per change set").
        monitor.main.observation.add(relay, stage: .publishers)
    }

    isolated deinit {
        monitor.main.observation.remove(relay)
    }

    // MARK: Closure observers

    /// Calls `closure` after every published change, for as long as `owner`
    /// lives (held weakly) or until ``removeObserver(_:)``. Adding the same
    /// owner again replaces its closure. The publisher keeps `closure`: one
    /// that captures `owner` strongly keeps it alive, and a publisher it
    /// holds, for good; capture it weakly, or read the publisher passed in.
    ///
    /// ```swift
    /// publisher.addObserver(self, notifyInitial: true) { [weak self] publisher in
    ///     self?.render(publisher.snapshot)
    /// }
    /// ```
    ///
    /// - Parameter notifyInitial: also call `closure` now, with the current snapshot.
    public func addObserver(
        _ owner: AnyObject, notifyInitial: Bool = false,
        _ closure: @escaping @MainActor (ListPublisher<Object>) -> Void
    ) {
        audience.add(owner, closure)
        if notifyInitial { closure(self) }
    }

    /// Stops calling the closure `owner` added.
    ///
    /// ```swift
    /// publisher.removeObserver(self)
    /// ```
    public func removeObserver(_ owner: AnyObject) {
        audience.remove(owner)
    }

    // MARK: AsyncSequence

    /// The current snapshot, then one snapshot per published change; the
    /// sequence finishes when the publisher is released, or when
    /// `removeStorage()` takes its store out of the stack (after which a
    /// new sequence yields the last snapshot and finishes). Each access
    /// starts a new sequence; snapshots are buffered, so a slow reader misses none.
    ///
    /// ```swift
    /// for await snapshot in publisher.snapshots {
    ///     print(snapshot.sectionIDs, snapshot.count)
    /// }
    /// ```
    public var snapshots: AsyncStream<ListSnapshot<Object>> {
        audience.stream(startingWith: snapshot)
    }

    // MARK: Refetching

    /// Shows a new query, sectioning included, and publishes the new list:
    /// a ``From`` makes it one section, a ``SectionedQuery`` sections it.
    ///
    /// ```swift
    /// try publisher.refetch(From<Person>().where(\.$age >= 18).orderBy(.ascending(\.$name)))
    /// try publisher.refetch(From<Person>().sectionBy(\.$city).orderBy(.ascending(\.$name)))
    /// ```
    ///
    /// - Throws: a ``StrataError`` if the fetch fails; the old list stays.
    public func refetch(_ query: some ListQuery<Object>) throws(StrataError) {
        let pending = needsPublish
        do {
            try monitor.refetch(query)
        } catch {
            // The old list stays: nothing new to publish.
            needsPublish = pending
            throw error
        }
        publishIfNeeded()
    }

    // MARK: Publishing

    private func publishIfNeeded() {
        guard needsPublish else { return }
        needsPublish = false
        let (updated, updatedRows) = (relay.changedIDs, relay.rebuiltRows)
        (relay.changedIDs, relay.rebuiltRows) = ([], [])
        withMutation(keyPath: \.snapshot) {
            published = monitor.makeSnapshot(updated: updated, updatedRows: updatedRows)
        }
        audience.publish(self, published)
    }

    /// Follows the monitor for the publisher, which it holds weakly, and
    /// stands for it in the observation center's `.publishers` stage.
    @MainActor
    private final class Relay: ListObjectObserver, ChangeSetObserver {
        typealias ListEntityType = Object
        weak var publisher: ListPublisher<Object>?
        /// The items inserted, moved or updated since the last publish: the
        /// next snapshot's `updatedItemIDs`.
        var changedIDs: Set<ObjectID<Object>> = []
        /// The rows a merge inserted or updated when it rebuilt the list, told
        /// as a refetch: their items join the next snapshot's
        /// `updatedItemIDs` too. None after a refetch of the caller's.
        var rebuiltRows: Set<Int64> = []

        func listMonitorDidChange(_ monitor: ListMonitor<Object>) {
            publisher?.needsPublish = true
        }

        func listMonitorWillRefetch(_ monitor: ListMonitor<Object>) {
            changedIDs = []
        }

        func listMonitorDidRefetch(_ monitor: ListMonitor<Object>) {
            rebuiltRows = monitor.rowsChangedByRebuild
            publisher?.needsPublish = true
        }

        func listMonitor(_ monitor: ListMonitor<Object>, didInsertObject object: Object, toIndexPath indexPath: IndexPath) {
            changedIDs.insert(object.objectID)
        }

        func listMonitor(
            _ monitor: ListMonitor<Object>, didMoveObject object: Object,
            fromIndexPath: IndexPath, toIndexPath: IndexPath
        ) {
            changedIDs.insert(object.objectID)
        }

        func listMonitor(_ monitor: ListMonitor<Object>, didUpdateObject object: Object, atIndexPath indexPath: IndexPath) {
            changedIDs.insert(object.objectID)
        }

        var watchedEntityNames: Set<String> { [] }

        func didMerge(_ changeSet: ChangeSet) {
            publisher?.publishIfNeeded()
        }

        func didRefresh(_ changeSet: ChangeSet) {
            publisher?.publishIfNeeded()
        }

        /// The store was removed from the stack: nothing more is published.
        func observationDidEnd() {
            publisher?.audience.end()
        }
    }
}

/// Two publishers are equal when they are the same one, as CoreStore's are: a
/// publisher made again for the same query is another publisher.
extension ListPublisher: Hashable {
    /// Whether `lhs` and `rhs` are the same instance.
    public nonisolated static func == (lhs: ListPublisher, rhs: ListPublisher) -> Bool { lhs === rhs }

    /// Hashes the instance's identity, consistently with `==`.
    public nonisolated func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}
