/// Who listens to a publisher: closure observers (held for as long as their
/// owner lives) and `AsyncStream` readers. One home for what ``ListPublisher``
/// and ``ObjectPublisher`` share.
@MainActor
final class PublisherAudience<Publisher: AnyObject, Value: Sendable> {
    private struct ClosureObserver {
        weak var owner: AnyObject?
        let closure: @MainActor (Publisher) -> Void
    }

    private var observers: [ClosureObserver] = []
    private var continuations: [Int: AsyncStream<Value>.Continuation] = [:]
    private var nextKey = 0

    isolated deinit {
        finishStreams()
    }

    /// Adds (or replaces) `owner`'s closure.
    func add(_ owner: AnyObject, _ closure: @escaping @MainActor (Publisher) -> Void) {
        observers.removeAll { $0.owner == nil || $0.owner === owner }
        observers.append(ClosureObserver(owner: owner, closure: closure))
    }

    /// Removes `owner`'s closure.
    func remove(_ owner: AnyObject) {
        observers.removeAll { $0.owner == nil || $0.owner === owner }
    }

    /// A new stream that yields `current` first, then every published value.
    /// With `finished`, it yields `current` and ends at once.
    func stream(startingWith current: Value, finished: Bool = false) -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream.makeStream(of: Value.self)
        continuation.yield(current)
        guard !finished else {
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
        // A copy: a closure may add or remove observers while it runs.
        for observer in observers where observer.owner != nil {
            observer.closure(publisher)
        }
        for continuation in continuations.values { continuation.yield(value) }
    }

    /// Ends every stream.
    func finishStreams() {
        for continuation in continuations.values { continuation.finish() }
        continuations = [:]
    }
}
