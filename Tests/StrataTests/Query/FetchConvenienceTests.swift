import Foundation
import Strata
import Testing

// The model the fetch-convenience tests use; the `Fc` prefix keeps it apart
// from other test files' models.

/// A tagged item, where several items may share a tag.
final class FcItem: ManagedObject {
    @Field.Stored("tag") var tag: String = ""
    @Field.Stored("value") var value: Int = 0
}

enum FcSchema {
    static let schema = Schema("FcV1", entities: [Entity<FcItem>("FcItem")])
}

/// Inserts one item per tag.
@MainActor
private func seedItems(_ stack: DataStack, tags: [String]) throws {
    try stack.perform(synchronous: { tx in
        for (index, tag) in tags.enumerated() {
            let item = tx.create(Into<FcItem>())
            item.tag = tag
            item.value = index
        }
    })
}

@Suite("Fetch conveniences: fetchOrCreate, fetchUnique")
struct FetchConvenienceTests {
    // MARK: fetchOrCreate

    @Test(arguments: StoreKind.allCases)
    @MainActor
    func fetchOrCreateReturnsTheFirstMatchWithoutConfiguringIt(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(FcSchema.schema, kind, in: directory)
        try seedItems(stack, tags: ["a", "b", "b"])
        let value = try stack.perform(synchronous: { tx in
            var configured = 0
            let item = try tx.fetchOrCreate(
                From<FcItem>().where(\.$tag == "b").orderBy(.descending(\.$value))
            ) {
                _ in configured += 1
            }
            #expect(configured == 0)
            #expect(!tx.hasChanges)
            return item.value
        })
        #expect(value == 2)
        #expect(try stack.fetchCount(From<FcItem>()) == 3)
    }

    @Test(arguments: StoreKind.allCases)
    @MainActor
    func fetchOrCreateCreatesAndConfiguresWhenNothingMatches(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(FcSchema.schema, kind, in: directory)
        try seedItems(stack, tags: ["a"])
        let query = From<FcItem>().where(\.$tag == "c")
        try stack.perform(synchronous: { tx in
            let created = try tx.fetchOrCreate(query) {
                $0.tag = "c"
                $0.value = 42
            }
            #expect(created.value == 42)
            // The new object is pending, and a second call finds it instead of creating another.
            let again = try tx.fetchOrCreate(query) { _ in
                Issue.record("configured a found object")
            }
            #expect(again === created)
        })
        #expect(try stack.fetchCount(From<FcItem>()) == 2)
        #expect(try stack.fetchUnique(query)?.value == 42)
    }

    @Test(arguments: StoreKind.allCases)
    @MainActor
    func fetchOrCreatePassesConfigureErrorsThroughUnchanged(_ kind: StoreKind) throws {
        struct Refused: Error, Equatable {}
        let directory = TemporaryDirectory()
        let stack = try makeStack(FcSchema.schema, kind, in: directory)
        let error = #expect(throws: StrataError.self) {
            try stack.perform(synchronous: { tx in
                _ = try tx.fetchOrCreate(From<FcItem>()) { _ in throw Refused() }
            })
        }
        // fetchOrCreate wraps it in `.userError`; perform passes that StrataError through.
        guard case .userError(let wrapped)? = error else {
            Issue.record("expected .userError, got \(String(describing: error))")
            return
        }
        #expect(wrapped as? Refused == Refused())
        #expect(try stack.fetchCount(From<FcItem>()) == 0)
    }

    // MARK: fetchUnique

    @Test(arguments: StoreKind.allCases)
    @MainActor
    func fetchUniqueIsNilUnlessExactlyOneMatches(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(FcSchema.schema, kind, in: directory)
        try seedItems(stack, tags: ["one", "two", "two", "many", "many", "many"])
        #expect(try stack.fetchUnique(From<FcItem>().where(\.$tag == "none")) == nil)
        #expect(try stack.fetchUnique(From<FcItem>().where(\.$tag == "one"))?.value == 0)
        #expect(try stack.fetchUnique(From<FcItem>().where(\.$tag == "two")) == nil)
        #expect(try stack.fetchUnique(From<FcItem>().where(\.$tag == "many")) == nil)
        // The query's own limit and offset apply first.
        let lastTwo = From<FcItem>().where(\.$tag == "two").tweak { $0.fetchOffset = 1 }
        #expect(try stack.fetchUnique(lastTwo)?.value == 2)

        try stack.perform(synchronous: { tx in
            #expect(try tx.fetchUnique(From<FcItem>().where(\.$tag == "none")) == nil)
            #expect(try tx.fetchUnique(From<FcItem>().where(\.$tag == "one"))?.value == 0)
            #expect(try tx.fetchUnique(From<FcItem>().where(\.$tag == "two")) == nil)
            // Pending changes count: one "two" renamed leaves one; a new "one" makes two.
            tx.edit(try tx.fetchOne(From<FcItem>().where(\.$tag == "two")))?.tag = "other"
            let unique = try tx.fetchUnique(From<FcItem>().where(\.$tag == "two"))
            #expect(unique?.value == 2)
            tx.create(Into<FcItem>()).tag = "one"
            #expect(try tx.fetchUnique(From<FcItem>().where(\.$tag == "one")) == nil)
        })
        #expect(try stack.fetchUnique(From<FcItem>().where(\.$tag == "other"))?.value == 1)
    }
}

@Suite("Tweak: limits as Core Data reads them")
@MainActor
struct TweakLimitTests {
    @Test(arguments: [0, -1])
    func aLimitOfZeroOrLessMeansNoLimit(limit: Int) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(FcSchema.schema, .inMemory, in: directory)
        try seedItems(stack, tags: ["a", "b", "c"])
        let query = From<FcItem>().orderBy(.ascending(\.$value)).tweak { $0.fetchLimit = limit }
        #expect(try stack.fetchAll(query).map(\.tag) == ["a", "b", "c"])
        #expect(try stack.fetchCount(query) == 3)
        #expect(try stack.fetchOne(query)?.tag == "a")
        #expect(try stack.queryValue(query.select(Int.self, .count(\.$value))) == 3)
        let monitor = try stack.monitorList(query)
        try stack.perform(synchronous: { tx in tx.create(Into<FcItem>()).value = 9 })
        #expect(monitor.numberOfObjects() == 4)
        #expect(try stack.fetchAll(query.tweak { $0.fetchLimit = 2 }).count == 2)
    }
}
