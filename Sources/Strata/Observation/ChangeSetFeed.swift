/// Feeds an `AsyncStream` every merged change set that passes its filter:
/// the observer behind ``DataStack/changeSets(touching:author:)``. The stream
/// keeps it alive; it stops when the stream ends.
@MainActor
final class ChangeSetFeed: ChangeSetObserver {
    private let continuation: AsyncStream<ChangeSet>.Continuation
    private let entityNames: Set<String>
    private let author: String?

    init(continuation: AsyncStream<ChangeSet>.Continuation, entityNames: Set<String>, author: String?) {
        self.continuation = continuation
        self.entityNames = entityNames
        self.author = author
    }

    /// The feed reads no values of its own: change sets carry what others need.
    var watchedEntityNames: Set<String> { [] }

    func didMerge(_ changeSet: ChangeSet) { yieldIfWanted(changeSet) }

    func didRefresh(_ changeSet: ChangeSet) { yieldIfWanted(changeSet) }

    func observationDidEnd() { continuation.finish() }

    private func yieldIfWanted(_ changeSet: ChangeSet) {
        // A refresh may hold anyone's changes to anything: every filter passes it.
        if !changeSet.isRefresh {
            if let author, changeSet.author != author { return }
            // A base entity's name also passes its subentities' changes.
            if !entityNames.isEmpty, !changeSet.touches(entityNames) { return }
        }
        continuation.yield(changeSet)
    }
}

/// A change-set feed the stack keeps track of without keeping it alive.
@MainActor
struct WeakChangeSetFeed {
    weak var feed: ChangeSetFeed?
}
