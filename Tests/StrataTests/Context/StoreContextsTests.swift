@testable import Strata
import Testing

private final class Kettle: ManagedObject {
    @Field.Stored("name") var name: String = ""
}

private final class Teapot: ManagedObject {
    @Field.Stored("name") var name: String = ""
}

private let kitchenSchema = Schema("Kitchen", entities: [
    Entity<Kettle>("Kettle"),
    Entity<Teapot>("Teapot", configurations: ["Pantry"]),
])

@MainActor
@Suite("StoreContexts: where a created object goes")
struct StoreContextsTests {
    /// `create`'s borrowed form finds the context and entity that
    /// `creationTarget(for:)` returns, or throws what it throws, in a stack
    /// of one store and of two.
    @Test(arguments: [1, 2])
    func theBorrowedTargetIsTheReturnedOne(storeCount: Int) throws {
        let stack = DataStack(kitchenSchema)
        try stack.addStorageAndWait(InMemoryStore())
        if storeCount == 2 { try stack.addStorageAndWait(InMemoryStore(configuration: "Pantry")) }
        try stack.perform(synchronous: { tx in
            let contexts = tx.contexts
            func check<Object: ManagedObject>(_ into: Into<Object>, _ label: String) {
                let returned = Result { try contexts.creationTarget(for: into) }
                let borrowed = Result {
                    try contexts.withCreationTarget(for: into) { context, entity in
                        (context, entity)
                    }
                }
                switch (returned, borrowed) {
                case let (.success(expected), .success(found)):
                    #expect(found.0 === expected.context, "\(label), \(storeCount) store(s)")
                    #expect(found.1 === expected.entity, "\(label), \(storeCount) store(s)")
                    #expect(found.1.type == Object.self, "\(label)")
                case let (.failure(expected), .failure(found)):
                    #expect("\(found)" == "\(expected)", "\(label), \(storeCount) store(s)")
                default:
                    Issue.record("\(label), \(storeCount) store(s): \(returned) but \(borrowed)")
                }
            }
            check(Into<Kettle>(), "Kettle, inferred")
            check(Into<Kettle>(nil), "Kettle, default configuration")
            check(Into<Teapot>("Pantry"), "Teapot, Pantry")
            check(Into<Kettle>("Pantry"), "Kettle, Pantry (none holds it)")
            // The default configuration's store holds every entity: with the
            // pantry too, an inferred store for a teapot is ambiguous (a trap).
            if storeCount == 1 { check(Into<Teapot>(), "Teapot, inferred") }
        })
    }
}
