import Foundation
@testable import Strata
import Testing

// V1 → V2 gives two relationships without an inverse an inverse to-one:
// Host.labels (a to-many in a link table) gains Label.host, and Host.buddy (a
// to-one) becomes Host.buddies, a one-to-many with Pal.host. Both move to a
// foreign-key column on the other side.

final class HostV1: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("labels") var labels: Set<LabelV1>
    @Field.Relationship("buddy") var buddy: PalV1?
}

final class LabelV1: ManagedObject {
    @Field.Stored("name") var name: String = ""
}

final class PalV1: ManagedObject {
    @Field.Stored("name") var name: String = ""
}

final class HostV2: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("labels", inverse: \LabelV2.$host) var labels: Set<LabelV2>
    @Field.Relationship("buddies", inverse: \PalV2.$host, renamingIdentifier: "buddy")
    var buddies: Set<PalV2>
}

final class LabelV2: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("host") var host: HostV2?
}

final class PalV2: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("host") var host: HostV2?
}

// Host.labels, a to-many without inverse, becomes a one-to-one: Host.label ↔ Label.host.

final class HostOneV2: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("labels", inverse: \LabelOneV2.$host) var labels: LabelOneV2?
    @Field.Relationship("buddy") var buddy: PalOneV2?
}

final class LabelOneV2: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("host") var host: HostOneV2?
}

final class PalOneV2: ManagedObject {
    @Field.Stored("name") var name: String = ""
}

private let hostsOneV2 = Schema("V2", entities: [
    Entity<HostOneV2>("Host"), Entity<LabelOneV2>("Label"), Entity<PalOneV2>("Pal"),
])

private let hostsV1 = Schema("V1", entities: [
    Entity<HostV1>("Host"), Entity<LabelV1>("Label"), Entity<PalV1>("Pal"),
])
private let hostsV2 = Schema("V2", entities: [
    Entity<HostV2>("Host"), Entity<LabelV2>("Label"), Entity<PalV2>("Pal"),
])

@Suite("Migrating a relationship that gains an inverse to-one")
@MainActor
struct InverseAddedMigrationTests {
    /// Each link survives the move of the relationship's storage to the
    /// new inverse's foreign-key column, instead of the relationship
    /// starting empty; also when a custom step transforms the entities that
    /// hold the new columns (a transform carries to-ones as inference does).
    @Test(arguments: migratingKinds, [false, true])
    func linksMoveToTheNewInversesColumn(kind: StoreKind, custom: Bool) throws {
        for _ in 0..<4 {
            var random = SplitMix64.random()
            let directory = TemporaryDirectory()
            let hostCount = Int.random(in: 1...4, using: &random)
            let labelCount = Int.random(in: 0...12, using: &random)
            let palCount = Int.random(in: 0...6, using: &random)
            let picks = (0..<(labelCount + hostCount)).map { _ in Int.random(in: 0...6, using: &random) }
            var hostOfLabel: [String: String] = [:]
            var buddyOf: [String: String] = [:]
            do {
                let stack = DataStack(hostsV1)
                try stack.addStorageAndWait(makeStorage(kind, in: directory))
                try stack.perform(synchronous: { tx in
                    var pick = picks.makeIterator()
                    let hosts = (0..<hostCount).map { index in
                        let host = tx.create(Into<HostV1>())
                        host.name = "H\(index)"
                        return host
                    }
                    let pals = (0..<palCount).map { index in
                        let pal = tx.create(Into<PalV1>())
                        pal.name = "P\(index)"
                        return pal
                    }
                    for index in 0..<labelCount {
                        let label = tx.create(Into<LabelV1>())
                        label.name = "L\(index)"
                        let choice = pick.next()!
                        if choice < hostCount { hosts[choice].labels.insert(label) }
                    }
                    // Each pal the buddy of one host at most: a to-one inverse holds one.
                    for (index, host) in hosts.enumerated() where index < palCount && pick.next()! < 4 {
                        host.buddy = pals[index]
                    }
                })
                for host in try stack.fetchAll(From<HostV1>()) {
                    for label in host.labels { hostOfLabel[label.name] = host.name }
                    buddyOf[host.name] = host.buddy?.name
                }
                try stack.removeStorage()
            }
            let copying = CustomSchemaMappingProvider(from: "V1", to: "V2", entityMappings: [
                .transformEntity(source: "Label", destination: "Label") { _, create in _ = create() },
                .transformEntity(source: "Pal", destination: "Pal") { _, create in _ = create() },
            ])
            let stack = DataStack(schemaHistory: SchemaHistory(
                [hostsV1, hostsV2], mappingProviders: custom ? [copying] : []))
            try stack.addStorageAndWait(makeStorage(kind, in: directory))
            for label in try stack.fetchAll(From<LabelV2>()) {
                #expect(label.host?.name == hostOfLabel[label.name],
                        "\(label.name), seed \(random.seed)")
            }
            for host in try stack.fetchAll(From<HostV2>()) {
                #expect(host.buddies.map(\.name) == (buddyOf[host.name].map { [$0] } ?? []),
                        "\(host.name), seed \(random.seed)")
                let labels = Set(hostOfLabel.filter { $0.value == host.name }.keys)
                #expect(Set(host.labels.map(\.name)) == labels, "\(host.name), seed \(random.seed)")
            }
        }
    }

    /// A to-many made a to-one would start empty, which member to keep
    /// being a choice inference cannot make: while it holds links, the step
    /// fails naming it, and the store is left as it was. Once it holds none,
    /// the step runs, and the relationship and the new inverse of the
    /// one-to-one it becomes start empty: the two sides never disagree.
    @Test(arguments: migratingKinds)
    func aToManyMadeOneToOneIsRefusedWhileItHoldsLinks(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        do {
            let stack = DataStack(hostsV1)
            try stack.addStorageAndWait(makeStorage(kind, in: directory))
            try stack.perform(synchronous: { tx in
                for _ in 0..<2 { tx.create(Into<HostV1>()).labels = [tx.create(Into<LabelV1>())] }
            })
            try stack.removeStorage()
        }
        let before = try storeContents(kind, in: directory)
        do {
            let stack = DataStack(schemaHistory: SchemaHistory([hostsV1, hostsOneV2]))
            try stack.addStorageAndWait(makeStorage(kind, in: directory))
            Issue.record("\(kind): the migration should fail")
        } catch StrataError.migrationFailed("V1", "V2", "Host", "labels", let reason) {
            #expect(reason.contains("2 links"), "\(kind): \(reason)")
        } catch {
            throw error
        }
        #expect(try storeContents(kind, in: directory) == before, "\(kind): the store is as it was")
        do {
            let stack = DataStack(hostsV1)
            try stack.addStorageAndWait(makeStorage(kind, in: directory))
            try stack.perform(synchronous: { tx in
                for host in try tx.fetchAll(From<HostV1>()) { host.labels = [] }
            })
            try stack.removeStorage()
        }
        let stack = DataStack(schemaHistory: SchemaHistory([hostsV1, hostsOneV2]))
        try stack.addStorageAndWait(makeStorage(kind, in: directory))
        #expect(try stack.fetchAll(From<HostOneV2>()).map { $0.labels == nil } == [true, true])
        #expect(try stack.fetchAll(From<LabelOneV2>()).map { $0.host == nil } == [true, true])
    }
}
