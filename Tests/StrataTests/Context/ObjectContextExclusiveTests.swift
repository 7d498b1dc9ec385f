import Foundation
@testable import Strata
import Testing

/// What the child process of the two-threads test does.
enum TwoThreadsChild {
    /// Two threads create objects in one unsafe transaction until Strata traps.
    @MainActor
    static func createFromTwoThreads() throws {
        let stack = DataStack(monitorSchema)
        try stack.addStorageAndWait(InMemoryStore())
        let transaction = try stack.beginUnsafe()
        let shared = UncheckedBox(transaction)
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<2 {
            Thread.detachNewThread {
                for rank in 0..<2_000_000 { shared.value.create(Into<MonItem>()).rank = rank }
                done.signal()
            }
        }
        done.wait()
        done.wait()
    }
}

/// Carries a non-Sendable value to other threads on purpose, as a misusing
/// program would.
final class UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

@Suite("Object context: an unsafe transaction used from two threads")
struct ObjectContextExclusiveTests {
    @Test
    func twoThreadsAtOnceTrapWithAMessage() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            try await TwoThreadsChild.createFromTwoThreads()
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("used from two threads at once"), "\(message.suffix(2_000))")
    }

    @Test
    @MainActor
    func oneThreadAfterAnotherIsFine() async throws {
        let stack = DataStack(monitorSchema)
        try stack.addStorageAndWait(InMemoryStore())
        let transaction = UncheckedBox(try stack.beginUnsafe())
        for _ in 0..<3 {
            await Task.detached { for rank in 0..<100 { transaction.value.create(Into<MonItem>()).rank = rank } }.value
        }
        try transaction.value.commitAndWait()
        #expect(try stack.fetchCount(From<MonItem>()) == 300)
    }
}
