import Foundation
import Testing

@testable import Strata

/// CoreStore's `TweakTests`, ported. CoreStore applies a tweak to an
/// `NSFetchRequest` and reads the request's offset, limit and predicate
/// back; Strata has no fetch request, so the port reads the tweak a fetch
/// would use (``Tweak/applied(to:)``) and checks what the fetch returns.
/// The predicate CoreStore's closure sets has no place in a Strata `Tweak`
/// (filters are `Where` clauses), so that assertion is not ported.
@MainActor
@Suite("CoreStore port: Tweak")
struct CoreStoreTweakPortTests {
    /// `test_ThatTweakClauses_ApplyToFetchRequestsCorrectly`: the closure's
    /// offset and limit are what the fetch uses, and nothing else changes.
    @Test
    func aTweakClosureSetsTheOffsetAndLimitOfTheFetch() {
        let tweak = Tweak {
            $0.fetchOffset = 100
            $0.fetchLimit = 200
        }
        #expect(tweak.fetchOffset == 100)
        #expect(tweak.fetchLimit == 200)
        let request = tweak.applied(to: Tweak())
        #expect(request.fetchOffset == 100)
        #expect(request.fetchLimit == 200)
        #expect(request.effectiveLimit == 200)

        // Options the closure did not set keep the fetch's own.
        var base = Tweak()
        base.includesSubentities = false
        base.includesPendingChanges = false
        let applied = tweak.applied(to: base)
        #expect(applied.fetchOffset == 100 && applied.fetchLimit == 200)
        #expect(!applied.includesSubentities && !applied.includesPendingChanges)
    }

    /// The same tweak on a fetch, as a clause and chained: of `count` objects
    /// in order, objects 100 up to 300 (fewer when there are not as many),
    /// for random counts around the window's edges. The count and the IDs
    /// honour the window too.
    @Test
    func aFetchWithTheTweakReturnsItsWindow() throws {
        var random = SplitMix64.random()
        let directory = TemporaryDirectory()
        let stack = try makeStack(probeSchema, .inMemory, in: directory)
        let tweak = Tweak { $0.fetchOffset = 100; $0.fetchLimit = 200 }
        let order = OrderBy<ProbeItem>(.ascending(\.$number))
        var count = 0
        for target in [0, 99, 100, 101, 299, 300, 301, Int.random(in: 0...400, using: &random)].sorted() {
            try stack.perform(synchronous: { tx in
                for number in count..<max(count, target) {
                    tx.create(Into<ProbeItem>()).number = number
                }
            })
            count = max(count, target)
            let window: [Int] = count < 100 ? [] : Array(100..<min(count, 300))
            let listed = try stack.fetchAll(From<ProbeItem>(), order, tweak).map(\.number)
            let chained = try stack.fetchAll(From<ProbeItem>().orderBy(order).tweak {
                $0.fetchOffset = 100; $0.fetchLimit = 200
            }).map(\.number)
            #expect(listed == window, "\(count) objects, seed \(random.seed)")
            #expect(chained == window, "\(count) objects, seed \(random.seed)")
            #expect(try stack.fetchCount(From<ProbeItem>(), tweak) == window.count, "\(count) objects")
            #expect(try stack.fetchObjectIDs(From<ProbeItem>(), order, tweak).count == window.count)
            // CoreStore's Tweak is a query and delete clause too: its request's
            // window is the rows a query returns and the objects a delete removes.
            let select = Select<ProbeItem, [String: StoredValue]>(.attribute(\.$number))
            let rows = try stack.queryAttributes(From<ProbeItem>(), select, order, tweak)
            #expect(rows == window.map { ["number": .integer(Int64($0))] }, "\(count) objects")
            let unsafe = try stack.beginUnsafe()
            #expect(try unsafe.deleteAll(From<ProbeItem>(), order, tweak) == window.count)
            let left = try unsafe.fetchAll(From<ProbeItem>(), order).map(\.number)
            #expect(left == Array(0..<count).filter { !window.contains($0) }, "\(count) objects")
            unsafe.rollback()
            #expect(try stack.fetchCount(From<ProbeItem>()) == count, "the rollback keeps every object")
        }
    }

    /// A documented difference: CoreStore runs a tweak's closure before each
    /// fetch; Strata runs it once, when the tweak is made, so a tweak used
    /// for several fetches applies the same options to each.
    @Test
    func aTweakClosureRunsOnceWhenTheTweakIsMade() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(probeSchema, .inMemory, in: directory)
        try stack.perform(synchronous: { tx in
            for number in 0..<10 { tx.create(Into<ProbeItem>()).number = number }
        })
        var runs = 0
        let tweak = Tweak {
            runs += 1
            $0.fetchLimit = runs
        }
        #expect(runs == 1)
        let order = OrderBy<ProbeItem>(.ascending(\.$number))
        #expect(try stack.fetchAll(From<ProbeItem>(), order, tweak).map(\.number) == [0])
        #expect(try stack.fetchAll(From<ProbeItem>(), order, tweak).map(\.number) == [0])
        #expect(runs == 1, "the closure does not run again for each fetch")
    }
}
