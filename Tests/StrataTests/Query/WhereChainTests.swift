import Foundation
import Testing

@testable import Strata

/// CoreStore's other spellings of a chained `where` (`combineByAnd:`,
/// `combineByOr:`, `format:`) and `appending(_:)`: each refines `From`, a
/// query chain and a sectioned query exactly as `.where(_:)` of the one
/// predicate it means, and as the clause list it spells.
@MainActor
@Suite("Chained where(combineBy…:), where(format:) and appending(_:)")
struct WhereChainTests {
    nonisolated static let seeds: [UInt64] = [0x3C4A_0001, 0x3C4A_0002, SplitMix64.random().seed]

    @Test(arguments: seeds)
    func everySpellingSelectsWhatItsPredicateSelects(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let stack = try makeStack(probeSchema, .inMemory, in: directory)
        try stack.perform(synchronous: { tx in
            for _ in 0..<60 {
                let item = tx.create(Into<ProbeItem>())
                item.number = Int(random.next() % 40)
                item.other = Int(random.next() % 3)
            }
        })
        let byNumber = OrderBy<ProbeItem>(.ascending(\.$number))
        let ids = { (query: From<ProbeItem>) in try stack.fetchAll(query.orderBy(byNumber)).map(\.rowID) }
        for round in 0..<20 {
            let (low, high, other) = (Int(random.next() % 40), Int(random.next() % 40), Int(random.next() % 3))
            let context = "seed \(seed), round \(round): \(low), \(high), \(other)"
            let a = Where<ProbeItem>(\.$number >= low)
            let b = Where<ProbeItem>(\.$number <= high)
            let c = Where<ProbeItem>(\.$other == other)
            let from = From<ProbeItem>()
            #expect(try ids(from.where(combineByAnd: a, b, c)) == ids(from.where(a && b && c)), "\(context)")
            #expect(try ids(from.where(combineByOr: a, b, c)) == ids(from.where(a || b || c)), "\(context)")
            let formatted = from.where(format: "number >= %d AND %K <= %d", low, "number", high)
            #expect(try ids(formatted) == ids(from.where(a && b)), "\(context)")
            #expect(try ids(from.where(format: "other == %@", argumentArray: [other])) == ids(from.where(c)), "\(context)")
            // Appending clauses is the chain and the clause list.
            let clauses: [any FetchClause] = [a, byNumber, Tweak { $0.fetchLimit = 5 }]
            let appended = try stack.fetchAll(from.appending(contentsOf: clauses)).map(\.rowID)
            #expect(appended == (try stack.fetchAll(from, clauses).map(\.rowID)), "\(context)")
            #expect(appended == (try stack.fetchAll(from.where(a).orderBy(byNumber).tweak { $0.fetchLimit = 5 })
                .map(\.rowID)), "\(context)")
            #expect(try ids(from.appending(c)) == ids(from.where(c)), "\(context)")
            // A query chain and a sectioned query take the same spellings.
            let count = Select<ProbeItem, Int>(.count())
            #expect(try stack.queryValue(from.select(count).where(combineByOr: a, c))
                == stack.fetchCount(from.where(a || c)), "\(context)")
            #expect(try stack.queryValue(from.select(count).where(format: "other == %d", other))
                == stack.fetchCount(from.where(c)), "\(context)")
            #expect(try stack.queryValue(from.select(count).appending(c).appending(contentsOf: [a] as [any QueryClause]))
                == stack.fetchCount(from.where(c && a)), "\(context)")
            let sectioned = try stack.monitorList(
                from.sectionBy(SectionBy(\.$other)).where(combineByAnd: a, b).orderBy(.ascending(\.$number)))
            #expect(sectioned.numberOfObjects() == (try stack.fetchCount(from.where(a && b))), "\(context)")
        }
    }

    /// A bad format in a chain is the typed error a fetch throws, never a trap.
    @Test
    func aBadFormatInAChainThrowsWhenFetched() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(probeSchema, .inMemory, in: directory)
        #expect(throws: StrataError.self) { try stack.fetchAll(From<ProbeItem>().where(format: "numbr > %d", 3)) }
        #expect(throws: StrataError.self) { try stack.fetchCount(From<ProbeItem>().where(format: "number >", 3)) }
    }
}
