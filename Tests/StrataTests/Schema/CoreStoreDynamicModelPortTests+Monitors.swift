import Foundation
import Testing

@testable import Strata

/// Lists of CoreStore's `DynamicModelTests` model whose filter or order
/// goes through its relationships, and the same filters as CoreStore's
/// format strings: after every commit a monitor holds what a fresh fetch
/// returns, also when only the other side of a relationship changed.
@Suite("CoreStore port: DynamicModelTests, lists through relationships")
struct CoreStoreDynamicModelPortMonitorTests {
    /// The format strings a CoreStore user writes for the model's
    /// relationships find what the key-path clauses find.
    @Test(arguments: StoreKind.sqlite)
    @MainActor
    func formatStringsReachTheRelationshipsAsKeyPathsDo(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(dynPortSchema(), kind, in: directory)
        let ids = try seed(stack)
        let john = try #require(try stack.fetchExisting(ids.john))
        let jane = try #require(try stack.fetchExisting(ids.jane))
        func same(
            _ format: Where<DynPortDog>, _ keyPath: Where<DynPortDog>, _ count: Int,
            sourceLocation: SourceLocation = #_sourceLocation
        ) throws {
            let byFormat = try stack.fetchObjectIDs(From<DynPortDog>().where(format))
            #expect(
                byFormat == (try stack.fetchObjectIDs(From<DynPortDog>().where(keyPath))),
                sourceLocation: sourceLocation)
            #expect(byFormat.count == count, sourceLocation: sourceLocation)
        }
        try same(Where("master.name == %@", "John"), (\.$master ~ \.$name) == "John", 1)
        try same(Where("%K == %@", "master", john), \.$master == john, 1)
        try same(Where("master", isEqualTo: jane), \.$master == jane, 1)
        try same(Where("master == nil"), \.$master == nil, 1)
        try same(
            Where("ANY friends.nickname == %@", "Spot"), .any(\.$friends, \.$nickname == "Spot"), 2)
        try same(Where("friendedBy.@count >= 2"), Where<DynPortDog>.count(\.$friendedBy) >= 2, 1)
        try same(
            Where("NONE friendedBy.nickname BEGINSWITH %@", "M"),
            .none(\.$friendedBy, \.$nickname == "Max" || \.$nickname == "Milo"), 1)
        let people = try stack.fetchObjectIDs(
            From<DynPortPerson>(), Where<DynPortPerson>("spouseInverse == %@", jane))
        #expect(people == [ids.john])
        #expect(
            people
                == (try stack.fetchObjectIDs(From<DynPortPerson>().where(\.$spouseInverse == jane)))
        )
    }

    /// Three lists whose filter or order goes through a relationship; each
    /// commit changes one side of a relationship, or a field of a related
    /// object, and every list then matches a fresh fetch.
    @Test(arguments: StoreKind.sqlite)
    @MainActor
    func listsThroughRelationshipsFollowChangesOnEitherSide(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(dynPortSchema(), kind, in: directory)
        let ids = try seed(stack)
        let queries = [
            From<DynPortDog>().where(.any(\.$friends, \.$nickname == "Spot")).orderBy(
                .ascending(\.$nickname)),
            From<DynPortDog>().where(Where<DynPortDog>.count(\.$friendedBy) >= 1).orderBy(
                .ascending(\.$nickname)),
            From<DynPortDog>().where(\.$master != nil).orderBy(
                .descending(\.$master ~ \.$name), .ascending(\.$nickname)),
        ]
        let monitors = try queries.map { try stack.monitorList($0) }
        func check(_ step: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            for (index, monitor) in monitors.enumerated() {
                let fresh = try stack.fetchAll(queries[index]).map(\.nickname)
                #expect(
                    monitor.objectsInAllSections().map(\.nickname) == fresh,
                    "list \(index) after \(step)", sourceLocation: sourceLocation)
            }
        }
        try check("the seed")
        let edits: [(String, @Sendable (SynchronousDataTransaction) throws -> Void)] = [
            (
                "renaming Spot",
                { tx in
                    try #require(try tx.fetchOne(From<DynPortDog>().where(\.$nickname == "Spot")))
                        .nickname = "Spotty"
                }
            ),
            (
                "naming another dog Spot",
                { tx in
                    try #require(try tx.fetchOne(From<DynPortDog>().where(\.$nickname == "Max")))
                        .nickname = "Spot"
                }
            ),
            (
                "befriending through friendedBy",
                { tx in
                    let milo = try #require(
                        try tx.fetchOne(From<DynPortDog>().where(\.$nickname == "Milo")))
                    let spot = try #require(
                        try tx.fetchOne(From<DynPortDog>().where(\.$nickname == "Spot")))
                    spot.friendedBy.insert(milo)
                }
            ),
            ("renaming a master", { tx in try #require(tx.edit(ids.jane)).name = "Abigail" }),
            (
                "moving a pet",
                { tx in
                    let milo = try #require(
                        try tx.fetchOne(From<DynPortDog>().where(\.$nickname == "Milo")))
                    let john = try #require(tx.edit(ids.john))
                    milo.master = john
                }
            ),
            ("deleting a master", { tx in tx.delete(ids.john) }),
            (
                "deleting a friend",
                { tx in
                    _ = try tx.deleteAll(From<DynPortDog>().where(\.$nickname == "Spotty"))
                }
            ),
        ]
        for (step, edit) in edits {
            try stack.perform(synchronous: { tx in try edit(tx) })
            try check(step)
        }
    }

    /// The family of ``createDynPortFamily(in:)``.
    @MainActor
    private func seed(_ stack: DataStack) throws -> (
        john: ObjectID<DynPortPerson>, jane: ObjectID<DynPortPerson>
    ) {
        try stack.perform(synchronous: { tx in
            let (john, jane, _) = createDynPortFamily(in: tx)
            return (john: john.objectID, jane: jane.objectID)
        })
    }
}
