import Foundation
import Testing

@testable import Strata

// Import behaviour a CoreStore user relies on, checked against CoreStore 9.3's
// Sources/ImportableUniqueObject.swift and BaseDataTransaction+Importing.swift.

/// A unique object that declares only CoreStore's `static shouldUpdate`, as
/// most ported models do: CoreStore's default `shouldInsert` answers with it.
final class ImpGated: ManagedObject, ImportableUniqueObject {
    @Field.Stored("code", .unique) var code: Int = 0
    @Field.Stored("label") var label: String = ""

    typealias ImportSource = [String: String]

    static var uniqueIDKeyPath: KeyPath<ImpGated, Field.Stored<Int>> { \.$code }

    static func uniqueID(from source: [String: String], in transaction: BaseDataTransaction) -> Int? {
        source["code"].flatMap { Int($0) }
    }

    static func shouldUpdate(from source: [String: String], in transaction: BaseDataTransaction) -> Bool {
        source["stale"] == nil
    }

    func update(from source: [String: String], in transaction: BaseDataTransaction) throws {
        label = source["label"] ?? ""
    }
}

private let gatedSchema = Schema("ImpGated", entities: [Entity<ImpGated>("ImpGated")])

@MainActor
@Suite("Import: CoreStore parity of the hooks' defaults")
struct ImportParityTests {
    /// ImportableUniqueObject.swift: "`shouldInsert(from:in:)` ... The default
    /// implementation returns the value returned by the `shouldUpdate(from:in:)`
    /// implementation." A source the static `shouldUpdate` declines is not
    /// inserted either, unless the model declares `shouldInsert` itself.
    @Test(arguments: StoreKind.sqlite)
    func defaultShouldInsertAnswersWithTheStaticShouldUpdate(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(gatedSchema, kind, in: directory)
        let imported = try stack.perform(synchronous: { tx in
            let single = try tx.importUniqueObject(
                Into<ImpGated>(), source: ["code": "1", "label": "one", "stale": "yes"])
            let many = try tx.importUniqueObjects(
                Into<ImpGated>(),
                sourceArray: [
                    ["code": "2", "label": "two"], ["code": "3", "label": "three", "stale": "yes"],
                ])
            let plain = try tx.importObject(Into<ImpGated>(), source: ["label": "x", "stale": "yes"])
            return (single: single == nil, many: many.map(\.code), plain: plain == nil)
        })
        #expect(imported.single)
        #expect(imported.many == [2])
        #expect(imported.plain)
        #expect(try stack.fetchAll(From<ImpGated>()).map(\.label) == ["two"])
    }

    /// `ImportableObject.shouldInsert` for a unique object asks the same
    /// default when an existing object is imported into.
    @Test
    func importIntoAnExistingUniqueObjectAsksTheDefaultShouldInsert() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(gatedSchema, .inMemory, in: directory)
        try stack.perform(synchronous: { tx in
            let made = tx.create(Into<ImpGated>())
            made.code = 9
            made.label = "old"
        })
        let held = try #require(try stack.fetchOne(From<ImpGated>()))
        try stack.perform(synchronous: { tx in
            try tx.importObject(held, source: ["label": "declined", "stale": "yes"])
        })
        #expect(try stack.fetchAll(From<ImpGated>()).map(\.label) == ["old"])
        try stack.perform(synchronous: { tx in try tx.importObject(held, source: ["label": "new"]) })
        #expect(try stack.fetchAll(From<ImpGated>()).map(\.label) == ["new"])
    }

    /// ImportableUniqueObject.swift: `var uniqueIDValue` "returns the value of
    /// the attribute pertained to by `uniqueIDKeyPath`"; setting it sets the
    /// field, so the next import finds the object by it.
    @Test
    func uniqueIDValueReadsAndSetsTheIDField() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(gatedSchema, .inMemory, in: directory)
        let ids = try stack.perform(synchronous: { tx in
            let imported = try tx.importUniqueObjects(
                Into<ImpGated>(),
                sourceArray: [["code": "4", "label": "four"], ["code": "2", "label": "two"]])
            let made = tx.create(Into<ImpGated>())
            made.uniqueIDValue = 7
            made.label = "seven"
            return imported.map(\.uniqueIDValue) + [made.code]
        })
        #expect(ids == [4, 2, 7])
        let updated = try stack.perform(synchronous: { tx in
            let seven = try tx.importUniqueObject(Into<ImpGated>(), source: ["code": "7", "label": "SEVEN"])
            return seven?.uniqueIDValue
        })
        #expect(updated == 7)
        let stored = try stack.fetchAll(From<ImpGated>().orderBy(.ascending(\.$code)))
        #expect(stored.map(\.uniqueIDValue) == [2, 4, 7])
        #expect(try stack.fetchAll(From<ImpGated>().where(\.$code == 7)).map(\.label) == ["SEVEN"])
    }

    /// CoreStore's `create` aborts when no store holds the entity in the
    /// configuration `Into` names; Strata's import calls, which throw, say
    /// so at once with `storeNotFound` instead of returning objects whose
    /// transaction can only fail at commit. An import that creates nothing
    /// (every record updates an object) needs no store of its own.
    @Test
    func importIntoAConfigurationWithoutAStoreThrowsAtOnce() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(gatedSchema, .inMemory, in: directory)
        try stack.perform(synchronous: { tx in
            let made = tx.create(Into<ImpGated>())
            made.code = 1
        })
        let expected = StrataError.storeNotFound(entity: "ImpGated", configuration: "Nope")
        let outcomes = try stack.perform(synchronous: { tx in
            let updated = try tx.importUniqueObject(
                Into<ImpGated>("Nope"), source: ["code": "1", "label": "updated"])
            var errors: [StrataError?] = []
            for attempt in 0..<3 {
                do {
                    switch attempt {
                    case 0: _ = try tx.importObject(Into<ImpGated>("Nope"), source: ["label": "x"])
                    case 1: _ = try tx.importObjects(Into<ImpGated>("Nope"), sourceArray: [["label": "x"]])
                    default:
                        _ = try tx.importUniqueObjects(
                            Into<ImpGated>("Nope"),
                            sourceArray: [["code": "1", "label": "updated"], ["code": "2"]])
                    }
                    errors.append(nil)
                } catch {
                    errors.append(error as? StrataError)
                }
            }
            return (updated: updated?.label, errors: errors)
        })
        #expect(outcomes.updated == "updated")
        #expect(outcomes.errors == [expected, expected, expected])
        #expect(try stack.fetchAll(From<ImpGated>()).map(\.label) == ["updated"])
    }
}
