import Foundation
import Synchronization
import Testing

@testable import Strata

/// Every person in the store, by remote ID.
@MainActor
private func people(_ stack: DataStack) throws -> [ImpPersonValues] {
    try stack.fetchAll(From<ImpPerson>().orderBy(.ascending(\.$remoteID))).map(ImpPersonValues.init)
}

/// Commits one imported person per record.
@MainActor
private func seed(_ stack: DataStack, _ records: [ImpRecord]) throws {
    _ = try stack.perform(synchronous: { tx in
        try tx.importUniqueObjects(Into<ImpPerson>(), sourceArray: records).count
    })
}

/// The error a transaction reports for a hook's own error.
private func userError(_ error: StrataError?) -> ImpError? {
    guard case .userError(let wrapped)? = error else { return nil }
    return wrapped as? ImpError
}

@Suite("Importing: ImportableObject and ImportableUniqueObject")
@MainActor
struct ImportTests {
    // MARK: Plain import

    @Test(arguments: StoreKind.allCases)
    func importObjectsCreatesOneObjectPerAcceptedSourceInOrder(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(ImpSchema.schema, kind, in: directory)
        let texts = try stack.perform(synchronous: { tx in
            let single = try tx.importObject(Into<ImpNote>(), source: ImpRecord(name: "one"))
            #expect(single?.text == "one")
            #expect(
                try tx.importObject(Into<ImpNote>(), source: ImpRecord(name: "no", skip: true))
                    == nil)
            let records = [
                ImpRecord(name: "b"), ImpRecord(name: "x", skip: true), ImpRecord(name: "a"),
            ]
            return try tx.importObjects(Into<ImpNote>(), sourceArray: records).map(\.text)
        })
        #expect(texts == ["b", "a"])
        #expect(try stack.fetchAll(From<ImpNote>()).map(\.text).sorted() == ["a", "b", "one"])
    }

    @Test
    func importIntoExistingObjectEditsItThroughTheTransaction() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(ImpSchema.schema, .inMemory, in: directory)
        try stack.perform(synchronous: { tx in tx.create(Into<ImpNote>()).text = "old" })
        let note = try #require(try stack.fetchOne(From<ImpNote>()))
        try stack.perform(synchronous: { tx in
            try tx.importObject(note, source: ImpRecord(name: "new"))
            try tx.importObject(note, source: ImpRecord(name: "skipped", skip: true))
        })
        #expect(try stack.fetchAll(From<ImpNote>()).map(\.text) == ["new"])
    }

    @Test
    func errorOfDidInsertPropagatesAndTheTransactionRollsBack() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(ImpSchema.schema, .inMemory, in: directory)
        let error = #expect(throws: StrataError.self) {
            try stack.perform(synchronous: { tx in
                let records = [ImpRecord(name: "a"), ImpRecord(name: "b", failOnInsert: true)]
                _ = try tx.importObjects(Into<ImpNote>(), sourceArray: records)
            })
        }
        #expect(userError(error) == ImpError(reason: "insert b"))
        #expect(try stack.fetchCount(From<ImpNote>()) == 0)
    }

    // MARK: Unique import: the semantic rules

    @Test(arguments: StoreKind.allCases)
    func uniqueImportUpdatesExistingAndInsertsNew(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(ImpSchema.schema, kind, in: directory)
        try seed(stack, [ImpRecord(id: 1, name: "Ann"), ImpRecord(id: 2, name: "Bob")])
        let names = try stack.perform(synchronous: { tx in
            let records = [ImpRecord(id: 3, name: "Cid"), ImpRecord(id: 1, name: "Ann 2")]
            return try tx.importUniqueObjects(Into<ImpPerson>(), sourceArray: records).map(\.name)
        })
        #expect(names == ["Cid", "Ann 2"])
        #expect(
            try people(stack) == [
                ImpPersonValues(remoteID: 1, name: "Ann 2", inserts: 1, updates: 1),
                ImpPersonValues(remoteID: 2, name: "Bob", inserts: 1, updates: 0),
                ImpPersonValues(remoteID: 3, name: "Cid", inserts: 1, updates: 0),
            ])
    }

    @Test
    func singleUniqueImportUpdatesOrInsertsAndSkips() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(ImpSchema.schema, .inMemory, in: directory)
        try seed(stack, [ImpRecord(id: 1, name: "Ann")])
        try stack.perform(synchronous: { tx in
            let ann = try tx.importUniqueObject(
                Into<ImpPerson>(), source: ImpRecord(id: 1, name: "Ann 2"))
            #expect(ann?.updates == 1)
            let bob = try tx.importUniqueObject(
                Into<ImpPerson>(), source: ImpRecord(id: 2, name: "Bob"))
            #expect(bob?.remoteID == 2 && bob?.inserts == 1)
            #expect(
                try tx.importUniqueObject(Into<ImpPerson>(), source: ImpRecord(id: nil, name: "-"))
                    == nil)
            #expect(
                try tx.importUniqueObject(
                    Into<ImpPerson>(), source: ImpRecord(id: 3, name: "-", skip: true)) == nil)
            #expect(
                try tx.importUniqueObject(
                    Into<ImpPerson>(), source: ImpRecord(id: 1, name: "-", keep: true)) == nil)
        })
        #expect(
            try people(stack) == [
                ImpPersonValues(remoteID: 1, name: "Ann 2", inserts: 1, updates: 1),
                ImpPersonValues(remoteID: 2, name: "Bob", inserts: 1, updates: 0),
            ])
    }

    @Test
    func skippedSourcesCreateNothing() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(ImpSchema.schema, .inMemory, in: directory)
        try seed(stack, [ImpRecord(id: 1, name: "Ann")])
        let imported = try stack.perform(synchronous: { tx in
            let records = [
                ImpRecord(id: nil, name: "no ID"), ImpRecord(id: 2, name: "declined", skip: true),
                ImpRecord(id: 1, name: "kept", keep: true), ImpRecord(id: 4, name: "Dan"),
            ]
            return try tx.importUniqueObjects(Into<ImpPerson>(), sourceArray: records).map(
                \.remoteID)
        })
        #expect(imported == [4])
        #expect(try people(stack).map(\.remoteID) == [1, 4])
        #expect(try people(stack).first?.name == "Ann")
    }

    @Test
    func errorOfInsertPropagates() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(ImpSchema.schema, .inMemory, in: directory)
        try stack.perform(synchronous: { tx in
            let records = [
                ImpRecord(id: 1, name: "a"), ImpRecord(id: 2, name: "b", failOnInsert: true),
            ]
            // A hook's error comes back wrapped in .userError, as out of `perform`.
            let insertB = #expect(throws: StrataError.self) {
                try tx.importUniqueObjects(Into<ImpPerson>(), sourceArray: records)
            }
            #expect(userError(insertB) == ImpError(reason: "insert b"))
            let insertC = #expect(throws: StrataError.self) {
                try tx.importUniqueObject(
                    Into<ImpPerson>(), source: ImpRecord(id: 3, name: "c", failOnInsert: true))
            }
            #expect(userError(insertC) == ImpError(reason: "insert c"))
        })
    }

    @Test
    func errorOfUpdatePropagatesAndTheTransactionRollsBack() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(ImpSchema.schema, .inMemory, in: directory)
        try seed(stack, [ImpRecord(id: 1, name: "Ann")])
        let error = #expect(throws: StrataError.self) {
            try stack.perform(synchronous: { tx in
                let records = [
                    ImpRecord(id: 2, name: "Bob"), ImpRecord(id: 1, name: "x", failOnUpdate: true),
                ]
                _ = try tx.importUniqueObjects(Into<ImpPerson>(), sourceArray: records)
            })
        }
        #expect(userError(error) == ImpError(reason: "update x"))
        #expect(
            try people(stack) == [ImpPersonValues(remoteID: 1, name: "Ann", inserts: 1, updates: 0)]
        )
    }

    @Test
    func errorOfUniqueIDInsertsNothing() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(ImpSchema.schema, .inMemory, in: directory)
        try seed(stack, [ImpRecord(id: 1, name: "Ann")])
        try stack.perform(synchronous: { tx in
            let records = [
                ImpRecord(id: 1, name: "Ann 2"), ImpRecord(id: 2, name: "Bob"),
                ImpRecord(id: 3, name: "bad", failOnID: true),
            ]
            // A hook's error comes back wrapped in .userError, as out of `perform`.
            let idBad = #expect(throws: StrataError.self) {
                try tx.importUniqueObjects(Into<ImpPerson>(), sourceArray: records)
            }
            #expect(userError(idBad) == ImpError(reason: "id bad"))
            let count = try tx.fetchCount(From<ImpPerson>())
            #expect(count == 1)
            #expect(!tx.hasChanges)
        })
        #expect(
            try people(stack) == [ImpPersonValues(remoteID: 1, name: "Ann", inserts: 1, updates: 0)]
        )
    }

    @Test
    func duplicateIDsImportTheLastSourceAtTheFirstPosition() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(ImpSchema.schema, .inMemory, in: directory)
        try seed(stack, [ImpRecord(id: 1, name: "Ann")])
        let names = try stack.perform(synchronous: { tx in
            let records = [
                ImpRecord(id: 2, name: "Bob 1"), ImpRecord(id: 1, name: "Ann 1"),
                ImpRecord(id: 3, name: "Cid"),
                ImpRecord(id: 2, name: "Bob 2"), ImpRecord(id: 1, name: "Ann 2"),
            ]
            return try tx.importUniqueObjects(Into<ImpPerson>(), sourceArray: records).map(\.name)
        })
        #expect(names == ["Bob 2", "Ann 2", "Cid"])
        #expect(
            try people(stack) == [
                ImpPersonValues(remoteID: 1, name: "Ann 2", inserts: 1, updates: 1),
                ImpPersonValues(remoteID: 2, name: "Bob 2", inserts: 1, updates: 0),
                ImpPersonValues(remoteID: 3, name: "Cid", inserts: 1, updates: 0),
            ])
    }

    @Test
    func resultsKeepInputOrderAcrossBatches() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(ImpSchema.schema, .inMemory, in: directory)
        try seed(stack, stride(from: 0, to: 1_200, by: 3).map { ImpRecord(id: $0, name: "old") })
        let ids = Array((0..<1_200).reversed())
        let imported = try stack.perform(synchronous: { tx in
            try tx.importUniqueObjects(
                Into<ImpPerson>(), sourceArray: ids.map { ImpRecord(id: $0, name: "new") }
            ).map(\.remoteID)
        })
        #expect(imported == ids)
        let stored = try people(stack)
        #expect(stored.count == 1_200)
        #expect(stored.filter { $0.updates == 1 }.count == 400)
        #expect(stored.allSatisfy { $0.name == "new" && $0.inserts == 1 })
    }

    @Test
    func uniqueImportRunsOneLookupQueryPerBatch() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(ImpSchema.schema, .file, in: directory)
        try seed(stack, (0..<600).map { ImpRecord(id: $0, name: "old") })
        let log = RecordedStatements()
        try stack.recordStatements { log.record($0) }
        try stack.perform(synchronous: { tx in
            let records = (300..<1_500).map { ImpRecord(id: $0, name: "new") }
            let imported = try tx.importUniqueObjects(Into<ImpPerson>(), sourceArray: records)
            #expect(imported.count == 1_200)
        })
        try stack.recordStatements(nil)
        let reads = log.all.filter {
            $0.hasPrefix("SELECT") && $0.contains("\"ImpPerson\" AS t0")
        }
        #expect(reads.count == 3, "\(reads)")
        // Each batch's IDs joined as a list, looked up one by one in the unique index.
        #expect(reads.allSatisfy { $0.contains("FROM strata_values(?) AS v CROSS JOIN") }, "\(reads)")
        #expect(try people(stack).filter { $0.updates == 1 }.count == 300)
    }

    @Test
    func objectsCreatedEarlierInTheTransactionAreMatched() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(ImpSchema.schema, .inMemory, in: directory)
        try stack.perform(synchronous: { tx in
            let made = tx.create(Into<ImpPerson>())
            made.remoteID = 5
            made.name = "made"
            let first = try tx.importUniqueObjects(
                Into<ImpPerson>(), sourceArray: [ImpRecord(id: 6, name: "six")])
            let again = try tx.importUniqueObject(
                Into<ImpPerson>(), source: ImpRecord(id: 5, name: "five"))
            #expect(again === made)
            let second = try tx.importUniqueObjects(
                Into<ImpPerson>(),
                sourceArray: [ImpRecord(id: 6, name: "six 2"), ImpRecord(id: 5, name: "5")])
            #expect(second.first === first.first)
            #expect(second.last === made)
        })
        #expect(
            try people(stack) == [
                ImpPersonValues(remoteID: 5, name: "5", inserts: 0, updates: 2),
                ImpPersonValues(remoteID: 6, name: "six 2", inserts: 1, updates: 1),
            ])
    }

    @Test
    func preProcessCanDropAndReplaceSources() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(ImpSchema.schema, .inMemory, in: directory)
        let names = try stack.perform(synchronous: { tx in
            let records = [
                ImpRecord(id: 1, name: "a"), ImpRecord(id: 2, name: "b"),
                ImpRecord(id: 3, name: "c"),
            ]
            return try tx.importUniqueObjects(Into<ImpPerson>(), sourceArray: records) { byID in
                var kept = byID
                kept[2] = nil
                kept[3]?.name = "C"
                return kept
            }.map(\.name)
        })
        #expect(names == ["a", "C"])
        #expect(try people(stack).map(\.remoteID) == [1, 3])
    }

    @Test
    func defaultDidInsertCallsUpdate() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(ImpSchema.schema, .inMemory, in: directory)
        try stack.perform(synchronous: { tx in
            _ = try tx.importUniqueObjects(
                Into<ImpTag>(), sourceArray: [["code": "a", "label": "A"], ["label": "no code"]])
            _ = try tx.importUniqueObjects(
                Into<ImpTag>(), sourceArray: [["code": "a", "label": "A2"]])
        })
        let tags = try stack.fetchAll(From<ImpTag>())
        #expect(tags.map(\.code) == ["a"])
        #expect(tags.map(\.label) == ["A2"])
    }

    @Test(arguments: StoreKind.allCases)
    func staticShouldUpdateDeclinesAnUpdateAsInCoreStore(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(ImpSchema.schema, kind, in: directory)
        let imported = try stack.perform(synchronous: { tx in
            _ = try tx.importUniqueObjects(
                Into<ImpTag>(), sourceArray: [["code": "a", "label": "A"], ["code": "b", "label": "B"]])
            // ImpTag declares no shouldInsert: its default asks the static
            // shouldUpdate too, as CoreStore's does, so "c" is not inserted.
            return try tx.importUniqueObjects(
                Into<ImpTag>(),
                sourceArray: [
                    ["code": "a", "label": "A2", "skipUpdate": "yes"], ["code": "b", "label": "B2"],
                    ["code": "c", "label": "C", "skipUpdate": "yes"],
                ]
            ).map(\.code)
        })
        #expect(imported == ["b"])
        let tags = try stack.fetchAll(From<ImpTag>().orderBy(.ascending(\.$code)))
        #expect(tags.map(\.label) == ["A", "B2"])
    }

    // MARK: Codable sources

    @Test(arguments: StoreKind.allCases)
    func decodedJSONArrayImportsTwiceWithoutDuplicating(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(ImpSchema.schema, kind, in: directory)
        let json = Data(
            """
            [{"id": 10, "name": "Ann"}, {"id": 11, "name": "Bob"}, {"name": "no id"}, {"id": 10, "name": "Ann B"}]
            """.utf8)
        for _ in 0..<2 {
            let records = try JSONDecoder().decode([ImpRecord].self, from: json)
            let imported = try stack.perform(synchronous: { tx in
                try tx.importUniqueObjects(Into<ImpPerson>(), sourceArray: records).map(\.name)
            })
            #expect(imported == ["Ann B", "Bob"])
        }
        #expect(
            try people(stack) == [
                ImpPersonValues(remoteID: 10, name: "Ann B", inserts: 1, updates: 1),
                ImpPersonValues(remoteID: 11, name: "Bob", inserts: 1, updates: 1),
            ])
    }

    // MARK: Random workloads against a model

    @Test(arguments: [UInt64(1), 2, 3, 0xC0FFEE])
    func randomBatchesMatchASimpleModel(_ seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let stack = try makeStack(ImpSchema.schema, .inMemory, in: directory)
        var model: [Int: ImpPersonValues] = [:]
        for round in 0..<5 {
            let count = Int.random(in: 0...1_300, using: &random)
            let records = (0..<count).map { index -> ImpRecord in
                let id: Int? =
                    Int.random(in: 0..<20, using: &random) == 0
                    ? nil : Int.random(in: 0..<1_500, using: &random)
                return ImpRecord(id: id, name: "r\(round)-\(index)")
            }
            var expectedOrder: [Int] = []
            var lastByID: [Int: ImpRecord] = [:]
            for record in records {
                guard let id = record.id else { continue }
                if lastByID.updateValue(record, forKey: id) == nil { expectedOrder.append(id) }
            }
            for id in expectedOrder {
                let name = lastByID[id]!.name
                if var person = model[id] {
                    person.name = name
                    person.updates += 1
                    model[id] = person
                } else {
                    model[id] = ImpPersonValues(remoteID: id, name: name, inserts: 1, updates: 0)
                }
            }
            let imported = try stack.perform(synchronous: { tx in
                try tx.importUniqueObjects(Into<ImpPerson>(), sourceArray: records).map(\.remoteID)
            })
            #expect(imported == expectedOrder, "seed \(seed), round \(round)")
            let expected = model.values.sorted { $0.remoteID < $1.remoteID }
            let stored = try people(stack)
            #expect(stored == expected, "seed \(seed), round \(round)")
            if stored != expected { return }
        }
    }

    /// `preProcess` sees each ID once with its last source; what it keeps is
    /// imported in input order, then the IDs it adds, in any order.
    @Test(arguments: [UInt64(4), 5, 0xFEED])
    func preProcessDropsReplacesAndAddsAsAModelSays(_ seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let stack = try makeStack(ImpSchema.schema, .inMemory, in: directory)
        let records = (0..<Int.random(in: 1...1_200, using: &random)).map { index in
            ImpRecord(id: Int.random(in: 0..<900, using: &random), name: "in-\(index)")
        }
        var inputOrder: [Int] = []
        var lastByID: [Int: ImpRecord] = [:]
        for record in records where lastByID.updateValue(record, forKey: record.id!) == nil {
            inputOrder.append(record.id!)
        }
        let dropped = Set(inputOrder.filter { _ in Int.random(in: 0..<4, using: &random) == 0 })
        let renamed = Set(inputOrder.filter { _ in Int.random(in: 0..<4, using: &random) == 0 })
        let added = Set((0..<Int.random(in: 0...30, using: &random)).map { 1_000 + $0 * 3 })
        let seen = Locked<[Int: ImpRecord]>([:])

        let imported = try stack.perform(synchronous: { tx in
            try tx.importUniqueObjects(Into<ImpPerson>(), sourceArray: records) { byID in
                seen.withLock { $0 = byID }
                var kept = byID
                for id in dropped { kept[id] = nil }
                for id in renamed where kept[id] != nil { kept[id]?.name = "renamed-\(id)" }
                for id in added { kept[id] = ImpRecord(id: id, name: "added-\(id)") }
                return kept
            }.map(\.remoteID)
        })

        #expect(seen.withLock { $0 } == lastByID)
        let keptInOrder = inputOrder.filter { !dropped.contains($0) }
        #expect(Array(imported.prefix(keptInOrder.count)) == keptInOrder)
        #expect(Set(imported.dropFirst(keptInOrder.count)) == added)
        #expect(imported.count == keptInOrder.count + added.count)
        let names = Dictionary(uniqueKeysWithValues: try people(stack).map { ($0.remoteID, $0.name) })
        for id in keptInOrder {
            #expect(names[id] == (renamed.contains(id) ? "renamed-\(id)" : lastByID[id]!.name))
        }
        for id in added { #expect(names[id] == "added-\(id)") }
        #expect(names.count == keptInOrder.count + added.count)
    }
}

// MARK: Importer data: loaded once per import call

extension ImportTests {
    @Test(arguments: [UInt64(7), 8, 0xBAD6E5])
    func prepareImportRunsOnceWithTheSourcesTheImportProcesses(_ seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let stack = try makeStack(ImpSchema.schema, .file, in: directory)
        try ImportTests.seedPeople(stack, count: 50)
        let records = (0..<Int.random(in: 1...900, using: &random)).map { _ in
            ImpBadgeRecord(
                code: Int.random(in: 0..<15, using: &random) == 0
                    ? nil : Int.random(in: 0..<700, using: &random),
                ownerID: Int.random(in: 0..<60, using: &random))
        }
        var lastByCode: [Int: ImpBadgeRecord] = [:]
        for record in records { if let code = record.code { lastByCode[code] = record } }

        let log = RecordedStatements()
        try stack.recordStatements { log.record($0) }
        try stack.perform(synchronous: { tx in
            let imported = try tx.importUniqueObjects(Into<ImpBadge>(), sourceArray: records)
            #expect(imported.count == lastByCode.count, "seed \(seed)")
        })
        try stack.recordStatements(nil)
        let ownerReads = log.all.filter { $0.hasPrefix("SELECT") && $0.contains("\"ImpPerson\"") }
        #expect(ownerReads.count == 1, "seed \(seed): \(ownerReads)")

        let badges = try stack.fetchAll(From<ImpBadge>())
        #expect(badges.count == lastByCode.count)
        for badge in badges {
            let owner = lastByCode[badge.code]!.ownerID
            #expect(badge.ownerName == (owner < 50 ? "person \(owner)" : "?"), "seed \(seed)")
            #expect(badge.preparedFor == lastByCode.count, "seed \(seed)")
        }
    }

    @Test
    func plainAndSingleImportsPrepareTheirOwnSources() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(ImpSchema.schema, .inMemory, in: directory)
        try ImportTests.seedPeople(stack, count: 3)
        try stack.perform(synchronous: { tx in
            let many = try tx.importObjects(
                Into<ImpBadge>(),
                sourceArray: (0..<4).map { ImpBadgeRecord(code: $0, ownerID: $0) })
            #expect(many.map(\.preparedFor) == [4, 4, 4, 4])
            #expect(many.map(\.ownerName) == ["person 0", "person 1", "person 2", "?"])
            let one = try tx.importUniqueObject(
                Into<ImpBadge>(), source: ImpBadgeRecord(code: 2, ownerID: 1))
            #expect(one?.preparedFor == 1)
            #expect(one?.ownerName == "person 1")
            #expect(one === many[2])
        })
    }

    @Test
    func anErrorOfPrepareImportInsertsNothing() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(ImpSchema.schema, .inMemory, in: directory)
        var thrown: StrataError?
        do {
            try stack.perform(synchronous: { tx in
                _ = try tx.importUniqueObjects(
                    Into<ImpBadge>(),
                    sourceArray: [
                        ImpBadgeRecord(code: 1, ownerID: 1),
                        ImpBadgeRecord(code: 2, ownerID: 1, failToPrepare: true),
                    ])
            })
        } catch {
            thrown = error
        }
        #expect(userError(thrown) == ImpError(reason: "prepare"))
        #expect(try stack.fetchCount(From<ImpBadge>()) == 0)
    }

    /// Commits people 0..<count named "person N".
    static func seedPeople(_ stack: DataStack, count: Int) throws {
        try seed(stack, (0..<count).map { ImpRecord(id: $0, name: "person \($0)") })
    }
}

// MARK: The unique-ID field's index

extension ImportTests {
    @Test
    func anUnindexedUniqueIDIsReportedOncePerEntity() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(ImpSchema.schema, .inMemory, in: directory)
        let capture = LogCapture()
        defer { capture.stop() }
        for round in 0..<3 {
            try stack.perform(synchronous: { tx in
                let imported = try tx.importUniqueObjects(Into<ImpLoose>(), sourceArray: [1, 2, round])
                #expect(imported.count == (round < 1 || round > 2 ? 3 : 2))
                _ = try tx.importUniqueObjects(Into<ImpPerson>(), sourceArray: [ImpRecord(id: round, name: "p")])
            })
        }
        let mine = capture.all.map(\.text).filter { $0.contains("Imp") }
        #expect(mine.count == 1, "\(mine)")
        #expect(mine.first?.contains("ImpLoose") == true)
        #expect(try stack.fetchCount(From<ImpLoose>()) == 3)
    }
}
