import Foundation
@testable import Strata
import Testing

/// Random sequences of everything a stack offers — transactions of every
/// kind that create, edit, relate and delete (cascade, nullify, deny), throw
/// or cancel; bulk writes; unique imports; exports, replaced and reset
/// stores, a store removed and added again; reads; list and object monitors
/// and held objects made at random points — checked after every step
/// against a plain Swift model of what the store must hold.
///
/// A failure names the store kind, the seed and the step; run it again with
/// `STRATA_TEST_SEED=<seed> swift test --filter StackModelFuzzTests/aFreshSeed`.
@MainActor
@Suite("Stack: random operations across every feature agree with a plain model")
struct StackModelFuzzTests {
    nonisolated static let steps = 400

    nonisolated static let cases: [(StoreKind, UInt64)] =
        [(.file, 1), (.file, 2), (.file, 3), (.inMemory, 4), (.inMemory, 5)]
            + StoreKind.enabled([.postgreSQL]).map { ($0, 6) }

    @Test(arguments: cases)
    func randomStepsAgreeWithTheModel(kind: StoreKind, seed: UInt64) async throws {
        // A server round trip costs more than a file read: fewer steps there.
        let steps = kind == .postgreSQL ? Self.steps / 2 : Self.steps
        let run = try FuzzRun(kind, seed: seed)
        await run.run(steps: steps)
        #expect(run.step == steps - 1, "\(kind), seed \(seed): stopped at step \(run.step)")
        // The run reached what it checks: commits, and transactions that must fail.
        let tally = run.tally
        #expect(tally["committed", default: 0] > steps / 4, "\(kind), seed \(seed): \(tally)")
        #expect(tally["unique violation", default: 0] > 0 && tally["user error", default: 0] > 0, "\(tally)")
        #expect(tally["watch", default: 0] > 0 && tally["reads", default: 0] > 0, "\(tally)")
    }

    /// A fresh seed each run (or `STRATA_TEST_SEED`), on each SQLite kind.
    @Test(arguments: StoreKind.sqlite)
    func aFreshSeed(kind: StoreKind) async throws {
        let seed = SplitMix64.random().seed
        let run = try FuzzRun(kind, seed: seed)
        await run.run(steps: Self.steps)
        #expect(run.step == Self.steps - 1, "\(kind), seed \(seed): stopped at step \(run.step)")
        #expect(run.tally["committed", default: 0] > 0, "\(kind), seed \(seed): \(run.tally)")
    }
}
