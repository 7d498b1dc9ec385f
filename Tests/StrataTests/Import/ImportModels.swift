import Foundation
import Strata

// The models the import tests use. Class names start with `Imp` so that they
// never clash with other test files' models.

/// An error of the test's own, thrown by the import hooks.
struct ImpError: Error, Equatable {
    let reason: String
}

/// A record as it arrives in JSON; the flags make the hooks skip or throw.
struct ImpRecord: Codable, Equatable, Sendable {
    var id: Int?
    var name: String
    var skip: Bool? = nil
    var failOnInsert: Bool? = nil
    var failOnUpdate: Bool? = nil
    var failOnID: Bool? = nil
    var keep: Bool? = nil
}

/// A note with no identity: every import creates a new one.
final class ImpNote: ManagedObject, ImportableObject {
    @Field.Stored("text") var text: String = ""

    static func shouldInsert(from source: ImpRecord, in transaction: BaseDataTransaction) -> Bool {
        source.skip != true
    }

    func didInsert(from source: ImpRecord, in transaction: BaseDataTransaction) throws {
        if source.failOnInsert == true { throw ImpError(reason: "insert \(source.name)") }
        text = source.name
    }
}

/// A person identified by `remoteID`, counting how it was imported.
final class ImpPerson: ManagedObject, ImportableUniqueObject {
    @Field.Stored("remoteID", .unique) var remoteID: Int = 0
    @Field.Stored("name") var name: String = ""
    @Field.Stored("inserts") var inserts: Int = 0
    @Field.Stored("updates") var updates: Int = 0

    static var uniqueIDKeyPath: KeyPath<ImpPerson, Field.Stored<Int>> { \.$remoteID }

    static func uniqueID(from source: ImpRecord, in transaction: BaseDataTransaction) throws -> Int?
    {
        if source.failOnID == true { throw ImpError(reason: "id \(source.name)") }
        return source.id
    }

    static func shouldInsert(from source: ImpRecord, in transaction: BaseDataTransaction) -> Bool {
        source.skip != true
    }

    func shouldUpdate(from source: ImpRecord, in transaction: BaseDataTransaction) -> Bool {
        source.skip != true && source.keep != true
    }

    func didInsert(from source: ImpRecord, in transaction: BaseDataTransaction) throws {
        if source.failOnInsert == true { throw ImpError(reason: "insert \(source.name)") }
        inserts += 1
        name = source.name
    }

    func update(from source: ImpRecord, in transaction: BaseDataTransaction) throws {
        if source.failOnUpdate == true { throw ImpError(reason: "update \(source.name)") }
        updates += 1
        name = source.name
    }
}

/// A tag whose `didInsert` is the default one, which calls `update(from:in:)`,
/// and whose update is declined by CoreStore's `static` hook.
final class ImpTag: ManagedObject, ImportableUniqueObject {
    @Field.Stored("code", .indexed) var code: String = ""
    @Field.Stored("label") var label: String = ""

    typealias ImportSource = [String: String]

    static var uniqueIDKeyPath: KeyPath<ImpTag, Field.Stored<String>> { \.$code }

    static func uniqueID(from source: [String: String], in transaction: BaseDataTransaction)
        -> String?
    {
        source["code"]
    }

    static func shouldUpdate(from source: [String: String], in transaction: BaseDataTransaction) -> Bool {
        source["skipUpdate"] == nil
    }

    func update(from source: [String: String], in transaction: BaseDataTransaction) throws {
        label = source["label"] ?? ""
    }
}

/// A badge as it arrives: its code and its owner's `remoteID`.
struct ImpBadgeRecord: Codable, Equatable, Sendable {
    var code: Int?
    var ownerID: Int
    var failToPrepare: Bool? = nil
}

/// What one badge import loads once: owners' names by `remoteID`, and how
/// many sources it was prepared for.
struct ImpBadgeLookup {
    var names: [Int: String]
    var sourceCount: Int
}

/// A badge that takes its owner's name from data its import loads once
/// (the importer-data pattern) instead of one fetch per record.
final class ImpBadge: ManagedObject, ImportableUniqueObject {
    @Field.Stored("code", .unique) var code: Int = 0
    @Field.Stored("ownerName") var ownerName: String = ""
    @Field.Stored("preparedFor") var preparedFor: Int = 0

    typealias ImportSource = ImpBadgeRecord

    static var uniqueIDKeyPath: KeyPath<ImpBadge, Field.Stored<Int>> { \.$code }

    static func uniqueID(from source: ImpBadgeRecord, in transaction: BaseDataTransaction) -> Int? {
        source.code
    }

    static func prepareImport(for sources: [ImpBadgeRecord], in transaction: BaseDataTransaction)
        throws -> ImpBadgeLookup
    {
        if sources.contains(where: { $0.failToPrepare == true }) {
            throw ImpError(reason: "prepare")
        }
        let owners = try transaction.fetchAll(
            From<ImpPerson>().where(Where(\ImpPerson.$remoteID, in: Array(Set(sources.map(\.ownerID))))))
        return ImpBadgeLookup(
            names: Dictionary(owners.map { ($0.remoteID, $0.name) }, uniquingKeysWith: { a, _ in a }),
            sourceCount: sources.count)
    }

    func update(from source: ImpBadgeRecord, in transaction: BaseDataTransaction) throws {
        let lookup = transaction.importData(for: ImpBadge.self)
        code = source.code ?? 0  // a plain importObjects does not set it
        ownerName = lookup.names[source.ownerID] ?? "?"
        preparedFor = lookup.sourceCount
    }
}

/// An object whose unique ID has no index, which an import warns about once.
final class ImpLoose: ManagedObject, ImportableUniqueObject {
    @Field.Stored("key") var key: Int = 0

    typealias ImportSource = Int

    static var uniqueIDKeyPath: KeyPath<ImpLoose, Field.Stored<Int>> { \.$key }

    static func uniqueID(from source: Int, in transaction: BaseDataTransaction) -> Int? { source }

    func update(from source: Int, in transaction: BaseDataTransaction) throws {}
}

enum ImpSchema {
    static let schema = Schema(
        "ImpV1",
        entities: [
            Entity<ImpNote>("ImpNote"), Entity<ImpPerson>("ImpPerson"), Entity<ImpTag>("ImpTag"),
            Entity<ImpBadge>("ImpBadge"), Entity<ImpLoose>("ImpLoose"),
        ])
}

/// A person's values, to compare with the expected store.
struct ImpPersonValues: Equatable, Sendable, CustomStringConvertible {
    var remoteID: Int
    var name: String
    var inserts: Int
    var updates: Int

    init(remoteID: Int, name: String, inserts: Int, updates: Int) {
        self.remoteID = remoteID
        self.name = name
        self.inserts = inserts
        self.updates = updates
    }

    init(_ person: ImpPerson) {
        self.init(
            remoteID: person.remoteID, name: person.name, inserts: person.inserts,
            updates: person.updates)
    }

    var description: String { "#\(remoteID) \(name) i\(inserts) u\(updates)" }
}
