import Dispatch

/// Frees large values off a latency-bound path: the caller hands over its
/// last reference, and a utility queue releases it there.
///
/// Freeing a change set of 100,000 rows, or the value arrays a merge
/// replaced, touches every buffer, cold in memory: on the main actor that
/// is a few milliseconds after every large commit, during which nothing the
/// user sees can change. Small values are freed where they are, which costs
/// less than handing them over.
enum DeferredRelease {
    /// Below this many rows (or arrays) a value is freed in place.
    static let threshold = 1_000

    private static let queue = DispatchQueue(label: "Strata.deferredRelease", qos: .utility)

    /// Releases `value` on the utility queue. The caller must hold no other
    /// reference (pass it with `consume`), or the last release, and the
    /// freeing, stays with whoever drops it last.
    static func release<Value: Sendable>(_ value: consuming Value) {
        // Moved into the box before the queue can run: no release is left
        // on this side to race the queue's.
        let box = Box(consume value)
        queue.async { box.value = nil }
    }

    /// `@unchecked Sendable`: filled before it is handed over, emptied by the queue alone.
    private final class Box<Value: Sendable>: @unchecked Sendable {
        var value: Value?
        init(_ value: consuming Value) { self.value = consume value }
    }
}
