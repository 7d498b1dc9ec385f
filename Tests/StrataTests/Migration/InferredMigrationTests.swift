import Foundation
@testable import Strata
import Testing

/// Row IDs of the V1 objects, by name or title.
private struct V1Rows {
    var people: [String: Int64] = [:]
    var pets: [String: Int64] = [:]
    var clubs: [String: Int64] = [:]
}

/// Writes the V1 store of `kind` in `directory` and releases its stack (a
/// file's WAL is folded into the file): Ann (no nickname) and Bob, pets Rex
/// and Tom of Ann and Kit of nobody, clubs Chess (Ann, Bob) and Go (Bob).
@MainActor
private func makeV1Store(
    _ kind: StoreKind, in directory: TemporaryDirectory, bobScore: Int = 1 << 40
) async throws -> V1Rows {
    let rows = try writeV1Store(kind, in: directory, bobScore: bobScore)
    try await settleStore(kind, in: directory)
    return rows
}

@MainActor
private func writeV1Store(_ kind: StoreKind, in directory: TemporaryDirectory, bobScore: Int) throws -> V1Rows {
    var rows = V1Rows()
    let stack = DataStack(schemaV1)
    try stack.addStorageAndWait(makeStorage(kind, in: directory))
    try stack.perform(synchronous: { tx in
        let ann = tx.create(Into<PersonV1>())
        ann.name = "Ann"
        ann.age = 30
        ann.score = 7
        ann.obsolete = "gone"
        let bob = tx.create(Into<PersonV1>())
        bob.name = "Bob"
        bob.age = 41
        bob.nickname = "B"
        bob.score = bobScore
        for (name, owner) in [("Rex", ann), ("Tom", ann), ("Kit", nil)] {
            let pet = tx.create(Into<PetV1>())
            pet.name = name
            pet.owner = owner
        }
        let chess = tx.create(Into<ClubV1>())
        chess.title = "Chess"
        chess.members = [ann, bob]
        let go = tx.create(Into<ClubV1>())
        go.title = "Go"
        go.members = [bob]
    })
    for person in try stack.fetchAll(From<PersonV1>()) {
        rows.people[person.name] = person.objectID.rowID
    }
    for pet in try stack.fetchAll(From<PetV1>()) { rows.pets[pet.name] = pet.objectID.rowID }
    for club in try stack.fetchAll(From<ClubV1>()) { rows.clubs[club.title] = club.objectID.rowID }
    return rows
}

/// Checks every value, relationship and row ID of the V3 store.
@MainActor
private func expectV3(_ stack: DataStack, rows: V1Rows) throws {
    let people = Dictionary(
        uniqueKeysWithValues: try stack.fetchAll(From<PersonV3>()).map { ($0.fullName, $0) })
    #expect(people.keys.sorted() == ["Ann", "Bob"], "name was renamed fullName")
    let ann = try #require(people["Ann"])
    let bob = try #require(people["Bob"])
    #expect(ann.objectID.rowID == rows.people["Ann"])
    #expect(bob.objectID.rowID == rows.people["Bob"])
    #expect(ann.age == "30" && bob.age == "41", "age Int → String keeps the digits")
    #expect(ann.nickname == "none", "a NULL nickname became required: the default")
    #expect(bob.nickname == "B")
    #expect(ann.score == 7.0 && bob.score == Double(1 << 40), "score Int → Double")
    #expect(ann.email == "unknown@example.com" && bob.email == "unknown@example.com",
            "an added field holds its default")
    #expect(Set(ann.pets.map(\.name)) == ["Rex", "Tom"], "one-to-many carried")
    #expect(bob.pets.isEmpty)
    #expect(Set(ann.clubs.map(\.title)) == ["Chess"], "many-to-many carried")
    #expect(Set(bob.clubs.map(\.title)) == ["Chess", "Go"])

    let animals = try stack.fetchAll(From<AnimalV3>())
    #expect(Set(animals.map(\.name)) == ["Rex", "Tom", "Kit"], "Pet was renamed Animal")
    for animal in animals {
        #expect(animal.objectID.rowID == rows.pets[animal.name], "\(animal.name)'s row ID")
        #expect(animal.objectID.entityName == "Animal")
        #expect(animal.owner?.fullName == (animal.name == "Kit" ? nil : "Ann"), "to-one carried")
    }
    for club in try stack.fetchAll(From<ClubV3>()) {
        #expect(club.objectID.rowID == rows.clubs[club.title])
        let members = Set(club.members.map(\.fullName))
        #expect(members == (club.title == "Chess" ? ["Ann", "Bob"] : ["Bob"]))
    }
}

@Suite("Inferred migration")
@MainActor
struct InferredMigrationTests {
    @Test(arguments: migratingKinds)
    func linearChainMigratesV1ThroughV2ToV3KeepingEveryValueAndID(kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let rows = try await makeV1Store(kind, in: directory)
        let stack = DataStack(schemaHistory: SchemaHistory(
            [schemaV1, schemaV2, schemaV3], chain: MigrationChain(["V1", "V2", "V3"])))
        let forecast = try stack.requiredMigrations(for: makeStorage(kind, in: directory))
        #expect(forecast.map(\.description) == ["V1 → V2", "V2 → V3"])
        try stack.addStorageAndWait(makeStorage(kind, in: directory))
        #expect(stack.migrationsRun.withLock { $0 } == forecast, "the forecast is what ran")
        try expectV3(stack, rows: rows)
        #expect(try stack.requiredMigrations(for: makeStorage(kind, in: directory)).isEmpty)

        // New objects get fresh row IDs: the sequence followed the renamed entity.
        let newID = try stack.perform(synchronous: { tx in
            let animal = tx.create(Into<AnimalV3>())
            animal.name = "New"
            return animal
        }).objectID
        #expect(newID.rowID > rows.pets.values.max()!)
    }

    /// CoreStore's `upgradeStorageIfNeeded`: the store is migrated and closed,
    /// not added; a second call finds nothing to do, and adding the store
    /// then runs no step. The callback form says `nil` and `[]` for a store
    /// that needs nothing, and completes its progress for one that did.
    @Test(arguments: migratingKinds)
    func upgradingAStoreMigratesItWithoutAddingIt(kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let rows = try await makeV1Store(kind, in: directory)
        let history = SchemaHistory([schemaV1, schemaV2, schemaV3], chain: MigrationChain(["V1", "V2", "V3"]))
        let stack = DataStack(schemaHistory: history)
        let recorder = ProgressRecorder()
        let steps = try await stack.upgradeStorageIfNeeded(makeStorage(kind, in: directory)) {
            recorder.record($0)
        }
        #expect(steps.map(\.description) == ["V1 → V2", "V2 → V3"])
        #expect(recorder.updates.last == .finished(migrationRan: true))
        #expect(!stack.hasStore, "upgrading does not add the store")
        #expect(try await stack.upgradeStorageIfNeeded(makeStorage(kind, in: directory)).isEmpty)
        let result: Result<[MigrationStep], StrataError> = try await withCheckedThrowingContinuation { done in
            do {
                let progress = try stack.upgradeStorageIfNeeded(makeStorage(kind, in: directory)) {
                    done.resume(returning: $0)
                }
                #expect(progress == nil, "nothing to migrate")
            } catch {
                done.resume(throwing: error)
            }
        }
        #expect(try result.get().isEmpty)
        try stack.addStorageAndWait(makeStorage(kind, in: directory))
        #expect(stack.migrationsRun.withLock { $0 }.isEmpty, "adding it ran no step")
        try expectV3(stack, rows: rows)

        // The callback form on a store that needs a migration.
        let again = TemporaryDirectory()
        _ = try await makeV1Store(kind, in: again)
        var progress: Progress?
        let ran: Result<[MigrationStep], StrataError> = await withCheckedContinuation { done in
            progress = try? DataStack(schemaHistory: history).upgradeStorageIfNeeded(
                makeStorage(kind, in: again)) { done.resume(returning: $0) }
        }
        #expect(try ran.get().count == 2)
        #expect(progress?.completedUnitCount == 100)
    }

    /// Upgrading a store of no version of the history throws before it is
    /// touched, in both forms.
    @Test
    func upgradingAStoreOfAnotherSchemaThrowsAndLeavesIt() async throws {
        let directory = TemporaryDirectory()
        let url = storeURL(in: directory)
        let other = DataStack(contextSchema)
        try other.addStorageAndWait(SQLiteStore(fileURL: url))
        try other.perform(synchronous: { tx in tx.create(Into<Owner>()).name = "kept" })
        try other.removeStorage()
        let before = try Data(contentsOf: url)
        let stack = DataStack(schemaHistory: SchemaHistory([schemaV1, schemaV2], chain: ["V1", "V2"]))
        await #expect(throws: StrataError.self) {
            try await stack.upgradeStorageIfNeeded(SQLiteStore(fileURL: url))
        }
        #expect(throws: StrataError.self) {
            try stack.upgradeStorageIfNeeded(SQLiteStore(fileURL: url)) { _ in }
        }
        #expect(try Data(contentsOf: url) == before)
    }

    /// Several app servers starting on a new version at once: one migrates,
    /// the others wait for the store's lock and find it migrated.
    @Test(arguments: migratingKinds)
    func stacksOpeningTogetherMigrateOnce(kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let rows = try await makeV1Store(kind, in: directory)
        let history = SchemaHistory([schemaV1, schemaV2, schemaV3], chain: MigrationChain(["V1", "V2", "V3"]))
        let stacks = (0..<4).map { _ in DataStack(schemaHistory: history) }
        let storage = try makeStorage(kind, in: directory)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for stack in stacks {
                group.addTask { try await stack.addStorage(storage) }
            }
            try await group.waitForAll()
        }
        let migrated = stacks.filter { !$0.migrationsRun.withLock { $0 }.isEmpty }
        #expect(migrated.count == 1, "one stack migrated; the others found V3")
        #expect(migrated.first?.migrationsRun.withLock { $0 }.map(\.description) == ["V1 → V2", "V2 → V3"])
        for stack in stacks { try expectV3(stack, rows: rows) }
    }

    @Test(arguments: migratingKinds)
    func branchingChainMigratesEachVersionAlongItsOwnBranch(kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let rows = try await makeV1Store(kind, in: directory)
        let history = SchemaHistory(
            [schemaV1, schemaV2, schemaV3], chain: MigrationChain(["V1": "V3", "V2": "V3"]))
        let stack = DataStack(schemaHistory: history)
        #expect(try stack.requiredMigrations(for: makeStorage(kind, in: directory))
            == [MigrationStep(sourceVersion: "V1", destinationVersion: "V3")])
        try stack.addStorageAndWait(makeStorage(kind, in: directory))
        #expect(stack.migrationsRun.withLock { $0 }.map(\.description) == ["V1 → V3"])
        try expectV3(stack, rows: rows)
    }

    @Test(arguments: migratingKinds)
    func emptyChainMigratesStraightToTheCurrentVersion(kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let rows = try await makeV1Store(kind, in: directory)
        let stack = DataStack(schemaHistory: SchemaHistory([schemaV1, schemaV2, schemaV3]))
        try stack.addStorageAndWait(makeStorage(kind, in: directory))
        #expect(stack.migrationsRun.withLock { $0 }.map(\.description) == ["V1 → V3"])
        try expectV3(stack, rows: rows)
    }

    @Test(arguments: migratingKinds)
    func eachInferredChangeKindOfOneStep(kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let rows = try await makeV1Store(kind, in: directory)
        let stack = DataStack(schemaHistory: SchemaHistory(
            [schemaV1, schemaV2], chain: MigrationChain(["V1", "V2"])))
        try stack.addStorageAndWait(makeStorage(kind, in: directory))
        let people = try stack.fetchAll(From<PersonV2>().orderBy(.ascending(\.$fullName)))
        #expect(people.map(\.fullName) == ["Ann", "Bob"], "rename field")
        #expect(people.map(\.objectID.rowID) == [rows.people["Ann"], rows.people["Bob"]])
        #expect(people.map(\.age) == [30, 41], "unchanged field")
        #expect(people.map(\.nickname) == ["none", "B"], "optional → required with the default")
        #expect(people.map(\.score) == [7, Double(1 << 40)], "lossless retype Int → Double")
        #expect(people.map(\.email) == ["unknown@example.com", "unknown@example.com"],
                "added field with its default")
        #expect(Set(try stack.fetchAll(From<AnimalV2>()).map(\.name)) == ["Rex", "Tom", "Kit"],
                "rename entity")
        let reader = try makeStorage(kind, in: directory).settings.openConnection(.inspector)
        defer { reader.close() }
        let columns = try reader.columnNames(of: "Person")
        #expect(!columns.contains("obsolete"), "removed field dropped")
        #expect(!columns.contains("name"))
        let tables = try reader.tableNames()
        #expect(!tables.contains("Pet") && tables.contains("Animal"))
        #expect(!tables.contains { $0.hasPrefix("_strata_migrating_") })
        let indexes = try reader.indexes(of: "Person").merging(reader.indexes(of: "Club")) { $1 }
        #expect(indexes["Person_age_index"] == false && indexes["Club_title_unique"] == true,
                "indexes recreated: \(indexes)")
        let meta = try reader.query(
            "SELECT key, value FROM _strata_meta ORDER BY key") { ($0.value(at: 0), $0.value(at: 1)) }
        // The migration is a generation of its own that the log cannot describe:
        // its history restarts after it (log_horizon), one commit before.
        #expect(meta.map(\.0) == [.text("fingerprint"), .text("generation"), .text("log_horizon"), .text("version")])
        // PostgreSQL's value column is text.
        let number: (Int64) -> StoredValue = { kind == .postgreSQL ? .text("\($0)") : .integer($0) }
        #expect(meta.map(\.1) == [.text(schemaV2.fingerprint), number(2), number(2), .text("V2")])
    }

    /// A refusal that depends on the rows is found by running the step: the
    /// forecast, which reads no rows, lists the step.
    @Test(arguments: migratingKinds)
    func integerBeyondTwoToThe53DoesNotBecomeADouble(kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        _ = try await makeV1Store(kind, in: directory, bobScore: (1 << 53) + 1)
        let before = try storeContents(kind, in: directory)
        let stack = DataStack(schemaHistory: SchemaHistory(
            [schemaV1, schemaV2], chain: MigrationChain(["V1", "V2"])))
        #expect(try stack.requiredMigrations(for: makeStorage(kind, in: directory))
            == [MigrationStep(sourceVersion: "V1", destinationVersion: "V2")])
        do {
            try stack.addStorageAndWait(makeStorage(kind, in: directory))
            Issue.record("the migration should fail")
        } catch StrataError.migrationFailed("V1", "V2", "Person", "score", _) {
        } catch {
            // Exhaustive: Swift 6.3.1 can crash (SIL ownership) compiling a typed
            // catch that lets other errors through.
            throw error
        }
        #expect(try storeContents(kind, in: directory) == before)
    }

    /// A column inference cannot carry fails the forecast as it fails adding
    /// the store (CoreStore's forecast throws when no mapping can be inferred).
    @Test(arguments: migratingKinds)
    func failingSecondStepLeavesTheFileByteForByteAndV1StillOpens(kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let rows = try await makeV1Store(kind, in: directory)
        let before = try storeContents(kind, in: directory)
        do {
            let stack = DataStack(schemaHistory: SchemaHistory(
                [schemaV1, schemaV2, schemaLossy], chain: MigrationChain(["V1", "V2", "Lossy"])))
            #expect {
                try stack.requiredMigrations(for: makeStorage(kind, in: directory))
            } throws: { error in
                if case StrataError.migrationFailed("V2", "Lossy", "Person", "fullName", _) = error {
                    true
                } else {
                    false
                }
            }
            // A custom transformer carries what inference cannot: the forecast lists the step.
            let numbering = CustomSchemaMappingProvider(from: "V2", to: "Lossy", entityMappings: [
                .transformEntity(source: "Person", destination: "Person") { _, create in
                    create()["fullName"] = .integer(1)
                },
            ])
            #expect(try DataStack(schemaHistory: SchemaHistory(
                [schemaV1, schemaV2, schemaLossy], chain: MigrationChain(["V1", "V2", "Lossy"]),
                mappingProviders: [numbering])).requiredMigrations(for: makeStorage(kind, in: directory))
                .map(\.description) == ["V1 → V2", "V2 → Lossy"])
            do {
                try stack.addStorageAndWait(makeStorage(kind, in: directory))
                Issue.record("the second step should fail")
            } catch StrataError.migrationFailed("V2", "Lossy", "Person", "fullName", let reason) {
                #expect(reason.contains("TEXT"))
            } catch {
                // Exhaustive: Swift 6.3.1 can crash (SIL ownership) compiling a typed
                // catch that lets other errors through.
                throw error
            }
        }
        #expect(try storeContents(kind, in: directory) == before, "byte for byte")
        let stack = DataStack(schemaV1)
        try stack.addStorageAndWait(makeStorage(kind, in: directory))
        let people = try stack.fetchAll(From<PersonV1>())
        #expect(Set(people.map(\.name)) == ["Ann", "Bob"])
        #expect(Set(people.map(\.objectID.rowID)) == Set(rows.people.values))
    }

    /// The forecast refuses what adding refuses, as CoreStore's
    /// `requiredMigrationsForStorage` does, and agrees on what it allows.
    @Test(arguments: migratingKinds)
    func preventProgressiveMigrationRefusesTwoStepsButAllowsOne(kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        _ = try await makeV1Store(kind, in: directory)
        let before = try storeContents(kind, in: directory)
        let linear = DataStack(schemaHistory: SchemaHistory(
            [schemaV1, schemaV2, schemaV3], chain: MigrationChain(["V1", "V2", "V3"])))
        #expect(try linear.requiredMigrations(for: makeStorage(kind, in: directory)).count == 2)
        #expect {
            try linear.requiredMigrations(
                for: makeStorage(kind, in: directory, options: .preventProgressiveMigration))
        } throws: { error in
            if case StrataError.progressiveMigrationPrevented(_, ["V1", "V2", "V3"]) = error {
                true
            } else {
                false
            }
        }
        do {
            try linear.addStorageAndWait(makeStorage(kind, in: directory, options: .preventProgressiveMigration))
            Issue.record("two steps should be refused")
        } catch StrataError.progressiveMigrationPrevented(_, let versions) {
            #expect(versions == ["V1", "V2", "V3"])
        } catch {
            // Exhaustive: Swift 6.3.1 can crash (SIL ownership) compiling a typed
            // catch that lets other errors through.
            throw error
        }
        #expect(try storeContents(kind, in: directory) == before)
        let branching = DataStack(schemaHistory: SchemaHistory(
            [schemaV1, schemaV2, schemaV3], chain: MigrationChain(["V1": "V3", "V2": "V3"])))
        #expect(try branching.requiredMigrations(
            for: makeStorage(kind, in: directory, options: .preventProgressiveMigration))
            == [MigrationStep(sourceVersion: "V1", destinationVersion: "V3")])
        try branching.addStorageAndWait(makeStorage(kind, in: directory, options: .preventProgressiveMigration))
        #expect(branching.migrationsRun.withLock { $0.count } == 1)
    }

    @Test(arguments: migratingKinds)
    func storeOfAnUnknownVersionIsAMismatchOrIsRecreated(kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        _ = try await makeV1Store(kind, in: directory)
        let history = SchemaHistory([schemaV2, schemaV3], chain: MigrationChain(["V2", "V3"]))
        #expect {
            try DataStack(schemaHistory: history).requiredMigrations(for: makeStorage(kind, in: directory))
        } throws: { error in
            if case StrataError.schemaMismatch(_, "V1", "V3") = error { true } else { false }
        }
        #expect {
            try DataStack(schemaHistory: history).addStorageAndWait(makeStorage(kind, in: directory))
        } throws: { error in
            if case StrataError.schemaMismatch(_, "V1", "V3") = error { true } else { false }
        }
        let stack = DataStack(schemaHistory: history)
        try stack.addStorageAndWait(makeStorage(kind, in: directory, options: .recreateStoreOnModelMismatch))
        #expect(try stack.fetchAll(From<PersonV3>()).isEmpty)
    }

    @Test(arguments: migratingKinds)
    func newStoreNeedsNoMigration(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = DataStack(schemaHistory: SchemaHistory(
            [schemaV1, schemaV2], chain: MigrationChain(["V1", "V2"])))
        #expect(try stack.requiredMigrations(for: makeStorage(kind, in: directory)).isEmpty)
        if kind == .file {
            #expect(!FileManager.default.fileExists(atPath: storeURL(in: directory).path),
                    "the forecast creates nothing")
        }
        try stack.addStorageAndWait(makeStorage(kind, in: directory))
        #expect(stack.migrationsRun.withLock { $0 }.isEmpty)
    }
}
