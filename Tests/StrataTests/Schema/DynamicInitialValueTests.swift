import Foundation
import Testing
@testable import Strata

// `dynamicInitialValue:` (CoreStore's spelling): a value made anew for every
// object created, where `= value` is worked out once per class.

class Ticket: ManagedObject {
    @Field.Stored("identifier", .unique, dynamicInitialValue: { UUID() })
    var identifier: UUID
    @Field.Stored("createdDate", dynamicInitialValue: { Date() })
    var createdDate: Date
    @Field.Stored("serial", dynamicInitialValue: { Ticket.serials.withLock { $0 += 1; return $0 } })
    var serial: Int
    @Field.Coded("tags", dynamicInitialValue: { ["new", UUID().uuidString] })
    var tags: [String]

    static let serials = Locked(0)
}

/// A subentity inherits its base's dynamic field.
final class UrgentTicket: Ticket {
    @Field.Stored("level") var level: Int = 1
}

let ticketSchema = Schema("T1", entities: [Entity<Ticket>("Ticket"), Entity<UrgentTicket>("UrgentTicket")])

/// Version 1 of a model that version 2 gives an `identifier` made per object.
final class BadgeV1: ManagedObject {
    @Field.Stored("name") var name: String = ""
}

final class BadgeV2: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("identifier", .unique, dynamicInitialValue: { UUID() })
    var identifier: UUID
}

/// Version 1 of the same model, whose `identifier` is optional: version 2
/// makes it required.
final class BadgeOptional: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("identifier") var identifier: UUID? = nil
}

/// Its closure makes NaN, which cannot be stored, once told to.
final class Gauge: ManagedObject {
    static let failing = Locked(false)
    @Field.Stored("reading", dynamicInitialValue: { Gauge.failing.withLock { $0 } ? .nan : 0 })
    var reading: Double
}

final class BrokenGauge: ManagedObject {
    @Field.Stored("reading", dynamicInitialValue: { Double.nan }) var reading: Double
}

@Suite("Fields with a dynamic initial value")
struct DynamicInitialValueTests {
    /// Every object created (a subentity's too; imports create through the
    /// same call) runs the closures once for it; values set afterwards win; the values
    /// survive reopening, with the same schema fingerprint although each
    /// description of the class runs the closures once more.
    @Test(arguments: StoreKind.allCases)
    @MainActor
    func everyNewObjectGetsItsOwnValue(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(ticketSchema, kind, in: directory)
        let start = Date()
        let serialsBefore = Ticket.serials.withLock { $0 }
        let chosen = UUID()
        try stack.perform(synchronous: { tx in
            for _ in 0..<20 { _ = tx.create(Into<Ticket>()) }
            for _ in 0..<8 { _ = tx.create(Into<UrgentTicket>()) }
            tx.create(Into<Ticket>()).identifier = chosen
        })
        let tickets = try stack.fetchAll(From<Ticket>())
        #expect(tickets.count == 29)
        #expect(Set(tickets.map(\.identifier)).count == 29, "one identifier each")
        #expect(tickets.contains { $0.identifier == chosen }, "a value set after create wins")
        #expect(tickets.allSatisfy { $0.createdDate >= start.addingTimeInterval(-1) })
        #expect(Set(tickets.map(\.serial)).count == 29)
        #expect(tickets.allSatisfy { $0.serial > serialsBefore })
        #expect(Set(tickets.map(\.tags)).count == 29 && tickets.allSatisfy { $0.tags.first == "new" })
        #expect(try stack.fetchCount(From<UrgentTicket>()) == 8)

        if kind != .inMemory {
            let reopened = try makeStack(
                Schema("T1", entities: [Entity<Ticket>("Ticket"), Entity<UrgentTicket>("UrgentTicket")]),
                kind, in: directory)
            #expect(Set(try reopened.fetchAll(From<Ticket>()).map(\.identifier)) == Set(tickets.map(\.identifier)))
        }
    }

    /// A migration that adds a unique field with a dynamic initial value
    /// gives each existing row its own value, by inference and through a
    /// custom mapping's transformer alike; the unique index then holds.
    @Test(arguments: StoreKind.enabled([.file, .postgreSQL]), [false, true])
    @MainActor
    func aMigrationGivesEachExistingRowItsOwnValue(_ kind: StoreKind, custom: Bool) throws {
        let directory = TemporaryDirectory()
        let v1 = Schema("V1", entities: [Entity<BadgeV1>("Badge")])
        let v2 = Schema("V2", entities: [Entity<BadgeV2>("Badge")])
        do {
            let old = try makeStack(v1, kind, in: directory)
            try old.perform(synchronous: { tx in
                for index in 0..<40 { tx.create(Into<BadgeV1>()).name = "b\(index)" }
            })
        }
        let copyName = CustomEntityMapping.transformEntity(source: "Badge", destination: "Badge") {
            source, createDestination in
            createDestination()["name"] = source["name"]
        }
        let providers = custom ? [CustomSchemaMappingProvider(from: "V1", to: "V2", entityMappings: [copyName])] : []
        let stack = DataStack(schemaHistory: SchemaHistory([v1, v2], chain: ["V1", "V2"], mappingProviders: providers))
        try stack.addStorageAndWait(makeStorage(kind, in: directory))
        let badges = try stack.fetchAll(From<BadgeV2>())
        #expect(badges.count == 40)
        #expect(Set(badges.map(\.identifier)).count == 40)
        #expect(Set(badges.map(\.name)).count == 40)
        let taken = try #require(badges.first).identifier
        #expect(throws: StrataError.self, "the unique index holds") {
            try stack.perform(synchronous: { tx in tx.create(Into<BadgeV2>()).identifier = taken })
        }
    }

    /// A migration that makes an optional field required gives each row
    /// that held `nil` a value of its own from the closure (not one shared
    /// default, which the unique index would refuse), and keeps the others'.
    @Test(arguments: StoreKind.enabled([.file, .postgreSQL]), [false, true])
    @MainActor
    func aFieldMadeRequiredGivesEachNilRowItsOwnValue(_ kind: StoreKind, custom: Bool) throws {
        var random = SplitMix64.random()
        let directory = TemporaryDirectory()
        let v1 = Schema("V1", entities: [Entity<BadgeOptional>("Badge")])
        let v2 = Schema("V2", entities: [Entity<BadgeV2>("Badge")])
        var kept: [String: UUID] = [:]
        for index in 0..<30 where Bool.random(using: &random) { kept["b\(index)"] = UUID() }
        do {
            let old = try makeStack(v1, kind, in: directory)
            try old.perform(synchronous: { [kept] tx in
                for index in 0..<30 {
                    let badge = tx.create(Into<BadgeOptional>())
                    badge.name = "b\(index)"
                    badge.identifier = kept[badge.name]
                }
            })
        }
        let copy = CustomEntityMapping.copyEntity(source: "Badge", destination: "Badge")
        let providers = custom ? [CustomSchemaMappingProvider(from: "V1", to: "V2", entityMappings: [copy])] : []
        let stack = DataStack(schemaHistory: SchemaHistory([v1, v2], chain: ["V1", "V2"], mappingProviders: providers))
        try stack.addStorageAndWait(makeStorage(kind, in: directory))
        let badges = try stack.fetchAll(From<BadgeV2>())
        let context = "seed \(random.seed)"
        #expect(badges.count == 30, "\(context)")
        #expect(Set(badges.map(\.identifier)).count == 30, "\(context)")
        for badge in badges where kept[badge.name] != nil {
            #expect(badge.identifier == kept[badge.name], "\(context): \(badge.name)")
        }
    }

    /// A closure whose value cannot be stored fails the commit with an
    /// error that names the entity and field, and nothing is saved; one
    /// whose first value (the schema's placeholder default) cannot be stored
    /// fails adding the store, as a default that cannot be stored does.
    @Test(arguments: StoreKind.sqlite)
    @MainActor
    func anUnstorableValueFailsTheCommit(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        #expect(throws: StrataError.self) {
            _ = try makeStack(Schema("B1", entities: [Entity<BrokenGauge>("Gauge")]), kind, in: TemporaryDirectory())
        }
        let stack = try makeStack(Schema("G1", entities: [Entity<Gauge>("Gauge")]), kind, in: directory)
        Gauge.failing.withLock { $0 = true }
        defer { Gauge.failing.withLock { $0 = false } }
        #expect(performing: {
            try stack.perform(synchronous: { tx in _ = tx.create(Into<Gauge>()) })
        }, throws: { error in
            guard case .invalidValue(let entity, let field, _)? = error as? StrataError else { return false }
            return entity == "Gauge" && field == "reading"
        })
        #expect(try stack.fetchCount(From<Gauge>()) == 0)
    }
}
