/// Who listens to a publisher: closure observers (held for as long as their
/// owner lives) and `AsyncStream` readers. One home for what ``ListPublisher``
/// and ``ObjectPublisher`` share.
@MainActor
final class PublisherAudience<Publisher: AnyObject, Value: Sendable> {
    private struct ClosureObserver {
        weak var owner: AnyObject?
        let closure: @MainActor (Publisher) -> Void
        /// Tells this closure from one that replaced it for the same owner.
        let key: Int
    }

    private var observers: [ClosureObserver] = []
    /// How many times an owner's closure was removed or replaced: a publish
    /// under way checks it before each call (see ``publish(_:_:)``).
    private var removals = 0
    private var continuations: [Int: AsyncStream<Value>.Continuation] = [:]
    private var nextKey = 0
    /// Whether the publisher will publish nothing more (its store was
    /// removed from the stack): a stream asked for since ends at once.
    private var hasEnded = false

    isolated deinit {
        finishStreams()
    }

    /// Adds (or replaces) `owner`'s closure.
    func add(_ owner: AnyObject, _ closure: @escaping @MainActor (Publisher) -> Void) {
        remove(owner)
        observers.append(ClosureObserver(owner: owner, closure: closure, key: nextKey))
        nextKey += 1
    }

    /// Removes `owner`'s closure.
    func remove(_ owner: AnyObject) {
        observers.removeAll { $0.owner == nil || $0.owner === owner }
        removals &+= 1
    }

    /// A new stream that yields `current` first, then every published value.
    /// With `finished`, or once ``end()`` was called, it yields `current` and ends at once.
    func stream(startingWith current: Value, finished: Bool = false) -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream.makeStream(of: Value.self)
        continuation.yield(current)
        guard !finished, !hasEnded else {
            continuation.finish()
            return stream
        }
        let key = nextKey
        nextKey += 1
        continuations[key] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { @MainActor in self?.continuations[key] = nil }
        }
        return stream
    }

    /// Calls every live observer with `publisher`, then yields `value` to every stream.
    func publish(_ publisher: Publisher, _ value: Value) {
        observers.removeAll { $0.owner == nil }
        // A copy: a closure may add or remove observers while it runs. One
        // added meanwhile waits for the next publish; one removed (or
        // replaced) meanwhile is not called, as a monitor's observers are not.
        let removalsBefore = removals
        for observer in observers where observer.owner != nil {
            let isAdded = removals == removalsBefore || observers.contains { $0.key == observer.key }
            if isAdded { observer.closure(publisher) }
        }
        for continuation in continuations.values { continuation.yield(value) }
    }

    /// Ends every stream.
    func finishStreams() {
        for continuation in continuations.values { continuation.finish() }
        continuations = [:]
    }

    /// Ends every stream, and every one asked for from now on: the publisher
    /// follows nothing any more.
    func end() {
        hasEnded = true
        finishStreams()
    }
}
