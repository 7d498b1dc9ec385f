import Foundation
@testable import Strata
import Testing

// V1 → V2 with a custom step: Person.first + Person.last become fullName; Log
// keeps its shape but is deleted by hand; Tag starts empty; Memo is copied to Note.

final class MappedPersonV1: ManagedObject {
    @Field.Stored("first") var first: String = ""
    @Field.Stored("last") var last: String = ""
    @Field.Stored("age") var age: Int = 0
    @Field.Stored("active") var active: Bool = true
    @Field.Relationship("pets", inverse: \MappedPetV1.$owner) var pets: Set<MappedPetV1>
}

final class MappedPetV1: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("owner") var owner: MappedPersonV1?
}

final class MappedLogV1: ManagedObject {
    @Field.Stored("message") var message: String = ""
}

final class MappedTagV1: ManagedObject {
    @Field.Stored("label") var label: String = ""
}

final class MappedMemoV1: ManagedObject {
    @Field.Stored("text") var text: String = ""
}

final class MappedPersonV2: ManagedObject {
    @Field.Stored("fullName") var fullName: String = ""
    @Field.Stored("age") var age: Int = 0
    @Field.Relationship("pets", inverse: \MappedPetV2.$owner) var pets: Set<MappedPetV2>
}

final class MappedPetV2: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("owner") var owner: MappedPersonV2?
}

final class MappedLogV2: ManagedObject {
    @Field.Stored("message") var message: String = ""
}

final class MappedTagV2: ManagedObject {
    @Field.Stored("label") var label: String = ""
}

final class MappedNoteV2: ManagedObject {
    @Field.Stored("text") var text: String = ""
}

private let mappedV1 = Schema("V1", entities: [
    Entity<MappedPersonV1>("Person"), Entity<MappedPetV1>("Pet"), Entity<MappedLogV1>("Log"),
    Entity<MappedTagV1>("Tag"), Entity<MappedMemoV1>("Memo"),
])
private let mappedV2 = Schema("V2", entities: [
    Entity<MappedPersonV2>("Person"), Entity<MappedPetV2>("Pet"), Entity<MappedLogV2>("Log"),
    Entity<MappedTagV2>("Tag"), Entity<MappedNoteV2>("Note"),
])

/// Row IDs of the V1 objects.
private struct MappedRows {
    var people: [Int64] = []
    var pets: [Int64] = []
}

/// Writes a V1 store of `kind` in `directory` of `count` people (person
/// `i`: first "F<i>", last "L<i>", age `i`, active when `i` is even, one pet
/// "P<i>"), two logs, two tags and two memos, then settles it.
@MainActor
private func makeMappedV1Store(_ kind: StoreKind, in directory: TemporaryDirectory, count: Int) async throws -> MappedRows {
    let rows = try writeMappedV1Store(kind, in: directory, count: count)
    try await settleStore(kind, in: directory)
    return rows
}

@MainActor
private func writeMappedV1Store(_ kind: StoreKind, in directory: TemporaryDirectory, count: Int) throws -> MappedRows {
    let stack = DataStack(mappedV1)
    try stack.addStorageAndWait(makeStorage(kind, in: directory))
    try stack.perform(synchronous: { tx in
        for index in 0..<count {
            let person = tx.create(Into<MappedPersonV1>())
            person.first = "F\(index)"
            person.last = "L\(index)"
            person.age = index
            person.active = index % 2 == 0
            let pet = tx.create(Into<MappedPetV1>())
            pet.name = "P\(index)"
            pet.owner = person
        }
        for message in ["a", "b"] { tx.create(Into<MappedLogV1>()).message = message }
        for label in ["x", "y"] { tx.create(Into<MappedTagV1>()).label = label }
        for text in ["m1", "m2"] { tx.create(Into<MappedMemoV1>()).text = text }
    })
    var rows = MappedRows()
    rows.people = try stack.fetchAll(From<MappedPersonV1>().orderBy(.ascending(\.$age)))
        .map(\.objectID.rowID)
    rows.pets = try stack.fetchAll(From<MappedPetV1>()).map(\.objectID.rowID)
    return rows
}

/// Joins first and last names into fullName; keeps every object.
private let joinNames = CustomEntityMapping.transformEntity(
    source: "Person", destination: "Person"
) { source, createDestination in
    let destination = createDestination()
    destination["fullName"] = .text(
        try source.value("first", as: String.self) + " " + source.value("last", as: String.self))
}

private struct Halfway: Error, Equatable {}

/// The steps and hook events seen, in order.
private final class EventLog: Sendable {
    let events = Locked<[String]>([])
    func record(_ event: String) { events.withLock { $0.append(event) } }
    var all: [String] { events.withLock { $0 } }
}

@Suite("Custom mapping and staged hooks")
@MainActor
struct CustomMappingTests {
    /// The forecast says which steps run code of yours (CoreStore's
    /// heavyweight migrations): a step with a custom mapping or with hooks
    /// is heavyweight, one Strata infers is not. Equality ignores it.
    @Test(arguments: migratingKinds)
    func theForecastTellsHeavyweightStepsFromInferredOnes(kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        _ = try await makeMappedV1Store(kind, in: directory, count: 3)
        let provider = CustomSchemaMappingProvider(from: "V1", to: "V2", entityMappings: [joinNames])
        let stage = MigrationStage(from: "V1", to: "V2", didMigrate: { _ in })
        let histories: [(SchemaHistory, heavyweight: Bool)] = [
            (SchemaHistory([mappedV1, mappedV2], chain: ["V1", "V2"], mappingProviders: [provider]), true),
            (SchemaHistory([mappedV1, mappedV2], chain: ["V1", "V2"], stages: [stage]), true),
            (SchemaHistory([mappedV1, mappedV2], chain: ["V1", "V2"]), false),
        ]
        for (history, heavyweight) in histories {
            let stack = DataStack(schemaHistory: history)
            let storage = try makeStorage(kind, in: directory)
            let steps = try stack.requiredMigrationsForStorage(storage)
            #expect(steps == [MigrationStep(sourceVersion: "V1", destinationVersion: "V2")])
            #expect(steps == (try stack.requiredMigrations(for: storage)))
            #expect(steps.map(\.isHeavyweightMigration) == [heavyweight], "\(kind)")
            #expect(steps.map(\.isLightweightMigration) == [!heavyweight], "\(kind)")
        }
    }

    /// CoreStore's `CustomMapping.inferredTransformation`, as a transformer
    /// of its own and as the last call of one that drops some rows: the
    /// kept pets cross as inference carries them, names and owners included.
    @Test(arguments: migratingKinds)
    func theInferredTransformationCarriesWhatInferenceWould(kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let count = 40
        _ = try await makeMappedV1Store(kind, in: directory, count: count)
        let keepEven = CustomEntityMapping.transformEntity(source: "Pet", destination: "Pet") { source, create in
            let name = try source.value("name", as: String.self)
            guard Int(name.dropFirst())! % 2 == 0 else { return }
            try CustomSchemaMappingProvider.CustomMapping.inferredTransformation(source, create)
        }
        let provider = CustomSchemaMappingProvider(from: "V1", to: "V2", entityMappings: [joinNames, keepEven])
        let stack = DataStack(schemaHistory: SchemaHistory(
            [mappedV1, mappedV2], chain: ["V1", "V2"], mappingProviders: [provider]))
        try stack.addStorageAndWait(makeStorage(kind, in: directory))
        let pets = try stack.fetchAll(From<MappedPetV2>())
        #expect(Set(pets.map(\.name)) == Set(stride(from: 0, to: count, by: 2).map { "P\($0)" }))
        for pet in pets {
            #expect(pet.owner?.fullName == "F\(pet.name.dropFirst()) L\(pet.name.dropFirst())", "\(kind)")
        }
        let logs = CustomEntityMapping.transformEntity(
            source: "Log", destination: "Log", transformer: CustomEntityMapping.inferredTransformation)
        let plain = CustomSchemaMappingProvider(from: "V1", to: "V2", entityMappings: [joinNames, logs])
        let other = TemporaryDirectory()
        _ = try await makeMappedV1Store(kind, in: other, count: 2)
        let second = DataStack(schemaHistory: SchemaHistory(
            [mappedV1, mappedV2], chain: ["V1", "V2"], mappingProviders: [plain]))
        try second.addStorageAndWait(makeStorage(kind, in: other))
        #expect(Set(try second.fetchAll(From<MappedLogV2>()).map(\.message)) == ["a", "b"])
    }

    @Test(arguments: migratingKinds)
    func transformComputesANewFieldFromTwoOldOnesOverThousandsOfRows(kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let count = 3_000
        let rows = try await makeMappedV1Store(kind, in: directory, count: count)
        let provider = CustomSchemaMappingProvider(from: "V1", to: "V2", entityMappings: [joinNames])
        let stack = DataStack(schemaHistory: SchemaHistory(
            [mappedV1, mappedV2], chain: ["V1", "V2"], mappingProviders: [provider]))
        try stack.addStorageAndWait(makeStorage(kind, in: directory))
        let people = try stack.fetchAll(From<MappedPersonV2>().orderBy(.ascending(\.$age)))
        #expect(people.count == count)
        for (index, person) in people.enumerated() {
            #expect(person.fullName == "F\(index) L\(index)", "person \(index)")
            #expect(person.age == index, "a field the transformer left is carried")
            #expect(person.objectID.rowID == rows.people[index], "the row ID is kept")
            #expect(person.pets.map(\.name) == ["P\(index)"], "the to-one of Pet is kept")
        }
        // Inferred entities beside the custom one are carried as before.
        #expect(try stack.fetchCount(From<MappedPetV2>()) == count)
        #expect(Set(try stack.fetchAll(From<MappedLogV2>()).map(\.message)) == ["a", "b"])
    }

    @Test(arguments: migratingKinds)
    func transformThatDoesNotCreateTheDestinationDropsTheObject(kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let count = 2_500
        _ = try await makeMappedV1Store(kind, in: directory, count: count)
        let keepActive = CustomEntityMapping.transformEntity(
            source: "Person", destination: "Person"
        ) { source, createDestination in
            guard try source.value("active", as: Bool.self) else { return }
            createDestination()["fullName"] = source["first"]
        }
        let provider = CustomSchemaMappingProvider(
            from: "V1", to: "V2", entityMappings: [keepActive])
        let stack = DataStack(schemaHistory: SchemaHistory(
            [mappedV1, mappedV2], chain: ["V1", "V2"], mappingProviders: [provider]))
        try stack.addStorageAndWait(makeStorage(kind, in: directory))
        let people = try stack.fetchAll(From<MappedPersonV2>())
        #expect(people.count == count / 2)
        #expect(people.allSatisfy { $0.age % 2 == 0 && $0.fullName == "F\($0.age)" })
        let pets = try stack.fetchAll(From<MappedPetV2>())
        #expect(pets.count == count, "pets are inferred, so all are kept")
        for pet in pets {
            let index = Int(pet.name.dropFirst())!
            #expect(pet.owner?.age == (index % 2 == 0 ? index : nil),
                    "a to-one to a dropped object is cleared")
        }
    }

    @Test(arguments: migratingKinds)
    func insertDeleteAndCopyEntity(kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        _ = try await makeMappedV1Store(kind, in: directory, count: 3)
        let provider = CustomSchemaMappingProvider(from: "V1", to: "V2", entityMappings: [
            .insertEntity("Tag"), .deleteEntity("Log"), .copyEntity(source: "Memo", destination: "Note"),
        ])
        let stack = DataStack(schemaHistory: SchemaHistory(
            [mappedV1, mappedV2], chain: ["V1", "V2"], mappingProviders: [provider]))
        try stack.addStorageAndWait(makeStorage(kind, in: directory))
        #expect(try stack.fetchCount(From<MappedTagV2>()) == 0, "an inserted entity starts empty")
        #expect(try stack.fetchCount(From<MappedLogV2>()) == 0, "a deleted entity's rows are gone")
        #expect(Set(try stack.fetchAll(From<MappedNoteV2>()).map(\.text)) == ["m1", "m2"],
                "a copied entity keeps its rows under its new name")
        #expect(Set(try stack.fetchAll(From<MappedPersonV2>()).map(\.age)) == [0, 1, 2],
                "entities not listed are inferred")
        // New objects do not reuse the copied row IDs.
        let note = try stack.perform(synchronous: { tx in
            let note = tx.create(Into<MappedNoteV2>())
            note.text = "m3"
            return note
        })
        #expect(try stack.fetchCount(From<MappedNoteV2>()) == 3)
        #expect(note.objectID.rowID > 2)
    }

    @Test(arguments: migratingKinds)
    func transformerThrowingHalfwayThroughALargeStoreLeavesV1Whole(kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let count = 5_000
        _ = try await makeMappedV1Store(kind, in: directory, count: count)
        let before = try storeContents(kind, in: directory)
        let calls = Locked(0)
        let failing = CustomEntityMapping.transformEntity(
            source: "Person", destination: "Person"
        ) { source, createDestination in
            let call = calls.withLock { $0 += 1; return $0 }
            if call == count / 2 { throw Halfway() }
            createDestination()["fullName"] = source["first"]
        }
        let provider = CustomSchemaMappingProvider(from: "V1", to: "V2", entityMappings: [failing])
        do {
            let stack = DataStack(schemaHistory: SchemaHistory(
                [mappedV1, mappedV2], chain: ["V1", "V2"], mappingProviders: [provider]))
            #expect {
                try stack.addStorageAndWait(makeStorage(kind, in: directory))
            } throws: { error in
                guard case let .migrationStepThrew(from, to, entity, inner)? = error as? StrataError
                else { return false }
                return from == "V1" && to == "V2" && entity == "Person" && inner is Halfway
            }
        }
        #expect(calls.withLock { $0 } == count / 2, "the migration stopped at the throw")
        #expect(try storeContents(kind, in: directory) == before, "the file is byte-for-byte what it was")
        let stack = DataStack(mappedV1)
        try stack.addStorageAndWait(makeStorage(kind, in: directory))
        let people = try stack.fetchAll(From<MappedPersonV1>())
        #expect(people.count == count)
        #expect(people.allSatisfy { $0.first == "F\($0.age)" && $0.last == "L\($0.age)" })
        #expect(try stack.fetchCount(From<MappedPetV1>()) == count)
    }

    @Test(arguments: migratingKinds)
    func hooksRunInOrderAroundTheStepAndSeeEachVersion(kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        _ = try await makeMappedV1Store(kind, in: directory, count: 10)
        let log = EventLog()
        let transform = CustomEntityMapping.transformEntity(
            source: "Person", destination: "Person"
        ) { source, createDestination in
            if source.rowID == 1 { log.record("transform") }
            createDestination()["fullName"] = source["first"]
        }
        let stage = MigrationStage(
            from: "V1", to: "V2",
            willMigrate: { context in
                log.record("will \(context.schemaVersion) Person=\(try context.count("Person")) "
                    + "Log=\(try context.count("Log"))")
                let active = try context.query(
                    "SELECT count(*) FROM \"Person\" WHERE \"active\" = ?", [.integer(1)])
                log.record("active=\(active == [[.integer(5)]] ? "5" : "\(active)")")
            },
            didMigrate: { context in
                log.record("did \(context.schemaVersion) Person=\(try context.count("Person")) "
                    + "Log=\(try context.count("Log")) Note=\(try context.count("Note"))")
            })
        let provider = CustomSchemaMappingProvider(from: "V1", to: "V2", entityMappings: [
            transform, .deleteEntity("Log"), .copyEntity(source: "Memo", destination: "Note"),
        ])
        let stack = DataStack(schemaHistory: SchemaHistory(
            [mappedV1, mappedV2], chain: ["V1", "V2"], mappingProviders: [provider],
            stages: [stage]))
        try stack.addStorageAndWait(makeStorage(kind, in: directory))
        #expect(log.all == [
            "will V1 Person=10 Log=2", "active=5", "transform",
            "did V2 Person=10 Log=0 Note=2",
        ])
    }

    @Test(arguments: migratingKinds, ["will", "did"])
    func throwingHookRollsEverythingBack(kind: StoreKind, _ which: String) async throws {
        let directory = TemporaryDirectory()
        _ = try await makeMappedV1Store(kind, in: directory, count: 20)
        let before = try storeContents(kind, in: directory)
        let hook: MigrationStage.Hook = { _ in throw Halfway() }
        let stage = which == "will"
            ? MigrationStage(from: "V1", to: "V2", willMigrate: hook)
            : MigrationStage(from: "V1", to: "V2", didMigrate: hook)
        let provider = CustomSchemaMappingProvider(from: "V1", to: "V2", entityMappings: [joinNames])
        do {
            let stack = DataStack(schemaHistory: SchemaHistory(
                [mappedV1, mappedV2], chain: ["V1", "V2"], mappingProviders: [provider],
                stages: [stage]))
            #expect {
                try stack.addStorageAndWait(makeStorage(kind, in: directory))
            } throws: { error in
                guard case let .migrationStepThrew(_, _, entity, inner)? = error as? StrataError
                else { return false }
                return entity == nil && inner is Halfway
            }
        }
        #expect(try storeContents(kind, in: directory) == before)
        let stack = DataStack(mappedV1)
        try stack.addStorageAndWait(makeStorage(kind, in: directory))
        #expect(try stack.fetchCount(From<MappedPersonV1>()) == 20)
        #expect(try stack.fetchCount(From<MappedLogV1>()) == 2)
    }

    @Test(arguments: migratingKinds)
    func hooksWriteInsideTheMigrationsTransaction(kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        _ = try await makeMappedV1Store(kind, in: directory, count: 10)
        let stage = MigrationStage(
            from: "V1", to: "V2",
            willMigrate: { context in
                // A data fix-up on the old version: inactive people go before the step.
                let gone = try context.execute("DELETE FROM \"Person\" WHERE \"active\" = ?", [.integer(0)])
                #expect(gone == 5)
            },
            didMigrate: { context in
                try context.execute("UPDATE \"Person\" SET \"age\" = \"age\" + ?", [.integer(100)])
            })
        let stack = DataStack(schemaHistory: SchemaHistory(
            [mappedV1, mappedV2], chain: ["V1", "V2"], mappingProviders: [
                CustomSchemaMappingProvider(from: "V1", to: "V2", entityMappings: [joinNames]),
            ], stages: [stage]))
        try stack.addStorageAndWait(makeStorage(kind, in: directory))
        let people = try stack.fetchAll(From<MappedPersonV2>().orderBy(.ascending(\.$age)))
        #expect(people.map(\.age) == [100, 102, 104, 106, 108])
        #expect(try stack.fetchCount(From<MappedPetV2>()) == 10, "the pets stay, their owners nullified")
    }

    @Test(arguments: migratingKinds)
    func aHookThatFailsAfterAnotherWroteLeavesTheOldVersionWhole(kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        _ = try await makeMappedV1Store(kind, in: directory, count: 6)
        let before = try storeContents(kind, in: directory)
        let stage = MigrationStage(
            from: "V1", to: "V2",
            willMigrate: { context in try context.execute("DELETE FROM \"Person\"") },
            didMigrate: { _ in throw Halfway() })
        let stack = DataStack(schemaHistory: SchemaHistory(
            [mappedV1, mappedV2], chain: ["V1", "V2"], mappingProviders: [
                CustomSchemaMappingProvider(from: "V1", to: "V2", entityMappings: [joinNames]),
            ], stages: [stage]))
        #expect(throws: StrataError.self) { try stack.addStorageAndWait(makeStorage(kind, in: directory)) }
        #expect(try storeContents(kind, in: directory) == before)
        let old = DataStack(mappedV1)
        try old.addStorageAndWait(makeStorage(kind, in: directory))
        #expect(try old.fetchCount(From<MappedPersonV1>()) == 6)
    }

    @Test(arguments: migratingKinds, [
        "COMMIT", "BEGIN", "SAVEPOINT s", "ROLLBACK", "DROP TABLE \"Person\"", "CREATE TABLE t (x)",
        "ALTER TABLE \"Person\" ADD COLUMN x", "PRAGMA journal_mode = DELETE", "ATTACH ':memory:' AS other",
        "UPDATE _strata_meta SET value = 'V9' WHERE key = 'version'", "DELETE FROM _strata_log",
        "INSERT INTO \"_strata_meta\" VALUES ('a', 'b')",
    ])
    func hooksWriteRowsOnly(kind: StoreKind, _ sql: String) async throws {
        let directory = TemporaryDirectory()
        _ = try await makeMappedV1Store(kind, in: directory, count: 2)
        let stage = MigrationStage(from: "V1", to: "V2", willMigrate: { context in
            #expect(throws: StrataError.self) { _ = try context.query("DELETE FROM \"Person\"") }
            try context.execute(sql)
        })
        let stack = DataStack(schemaHistory: SchemaHistory(
            [mappedV1, mappedV2], chain: ["V1", "V2"], stages: [stage]))
        #expect {
            try stack.addStorageAndWait(makeStorage(kind, in: directory))
        } throws: { error in
            guard case let .migrationStepThrew(_, _, _, inner)? = error as? StrataError,
                  case let .sqlite(code, _, _)? = inner as? StrataError
            else { return false }
            return code == 23
        }
        let old = DataStack(mappedV1)
        try old.addStorageAndWait(makeStorage(kind, in: directory))
        #expect(try old.fetchCount(From<MappedPersonV1>()) == 2)
    }

    @Test func providerForAStepTheChainNeverTakesIsAnInvalidChain() {
        let provider = CustomSchemaMappingProvider(from: "V2", to: "V1", entityMappings: [])
        let history = SchemaHistory(
            [mappedV1, mappedV2], chain: ["V1", "V2"], mappingProviders: [provider, provider])
        #expect(throws: StrataError.self) { try history.validate() }
        #expect(throws: (any Error).self) {
            try InferredMigration(
                source: mappedV1, destination: mappedV2,
                provider: CustomSchemaMappingProvider(
                    from: "V1", to: "V2", entityMappings: [.insertEntity("Nothing")]))
        }
    }
}
