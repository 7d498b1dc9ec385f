import Foundation
@testable import Strata
import Testing

// Four classes whose field names hold `_`, given entity names that also
// do: table, index and link-table names are names joined with `_`, so some
// of these schemas give two things one name.

private final class ClashTarget: ManagedObject {
    @Field.Stored("n") var n: Int = 0
}

private final class ClashOne: ManagedObject {
    @Field.Stored("b_c", .indexed) var bc: Int = 0
    @Field.Relationship("b_c_links") var links: Set<ClashTarget>
}

private final class ClashTwo: ManagedObject {
    @Field.Stored("c", .indexed) var c: Int = 0
    @Field.Relationship("c_links") var links: Set<ClashTarget>
}

private final class ClashThree: ManagedObject {
    @Field.Stored("age", .unique) var age: Int = 0
    @Field.Relationship("links") var links: Set<ClashTarget>
}

/// The name parts entity names are drawn from: joined with `_`, they meet
/// the generated names of other entities (`A` + `b_c` and `A_b` + `c`).
private let nameParts = ["A", "b", "c", "b_c", "age", "unique", "index", "links", "c_links"]

@MainActor
@Suite("Schema: derived table and index names never clash")
struct NameClashTests {
    /// Entity `A` indexing `b_c` and entity `A_b` indexing `c` would both make
    /// `A_b_c_index`; SQLite refused the second when the store was created.
    @Test
    func twoIndexesOfOneNameAreAnInvalidSchema() {
        let schema = Schema("V1", entities: [Entity<ClashOne>("A"), Entity<ClashTwo>("A_b")])
        guard case .invalidSchema("A_b", "c", let reason)? = #expect(throws: StrataError.self, performing: {
            try schema.validate()
        }) else { return }
        #expect(reason.contains("A_b_c_index"), "\(reason)")
    }

    /// `A.b_c_links` and `A_b.c_links` would both be stored in
    /// `_strata_link_A_b_c_links`: each would read the other's links.
    @Test
    func twoRelationshipsInOneLinkTableAreAnInvalidSchema() {
        let schema = Schema("V1", entities: [
            Entity<ClashTarget>("T"), Entity<ClashOne>("A"), Entity<ClashTwo>("A_b"),
        ])
        guard case .invalidSchema(_, _, let reason)? = #expect(throws: StrataError.self, performing: {
            try schema.validate()
        }) else { return }
        #expect(reason.contains("_strata_link_A_b_c"), "\(reason)")
    }

    /// Whatever the entity names, a schema is refused as `invalidSchema`, or
    /// it opens, and every relationship keeps its own links.
    @Test
    func everySchemaIsRefusedOrOpensWithEachRelationshipApart() throws {
        var random = SplitMix64.random()
        for round in 0..<60 {
            var names: [String] = []
            while names.count < 3 {
                let parts = (0..<Int.random(in: 1...3, using: &random)).map { _ in
                    nameParts.randomElement(using: &random)!
                }
                let name = "A_" + parts.joined(separator: "_")
                let candidate = Bool.random(using: &random) ? "A" : name
                if !names.contains(where: { $0.lowercased() == candidate.lowercased() }) { names.append(candidate) }
            }
            let schema = Schema("V1", entities: [
                Entity<ClashTarget>("T"), Entity<ClashOne>(names[0]), Entity<ClashTwo>(names[1]),
                Entity<ClashThree>(names[2]),
            ])
            let context = "seed \(random.seed), round \(round), entities \(names)"
            do {
                try schema.validate()
            } catch {
                guard case .invalidSchema = error else {
                    Issue.record("\(context): \(error)")
                    return
                }
                continue
            }
            let stack = DataStack(schema)
            do {
                try stack.addStorageAndWait(InMemoryStore())
                try stack.perform(synchronous: { tx in
                    let targets = (1...3).map { n in
                        let target = tx.create(Into<ClashTarget>())
                        target.n = n
                        return target
                    }
                    tx.create(Into<ClashOne>()).links = [targets[0]]
                    tx.create(Into<ClashTwo>()).links = [targets[1]]
                    tx.create(Into<ClashThree>()).links = [targets[2]]
                })
                #expect(try stack.fetchOne(From<ClashOne>())?.links.map(\.n) == [1], "\(context)")
                #expect(try stack.fetchOne(From<ClashTwo>())?.links.map(\.n) == [2], "\(context)")
                #expect(try stack.fetchOne(From<ClashThree>())?.links.map(\.n) == [3], "\(context)")
            } catch {
                Issue.record("\(context): a valid schema failed: \(error)")
                return
            }
        }
    }
}
