import Foundation
@testable import Strata

/// The random workload over items and owners (`monitorSchema`) that the
/// monitor, log and following tests share.
enum MonWorkload {
    /// Seeds three owners ("o0"...) and `count` items with random fields through `stack`.
    @MainActor
    static func seed(_ stack: DataStack, count: Int, random: inout SplitMix64) throws {
        try stack.perform(synchronous: { tx in
            let owners = (0..<3).map { index -> MonOwner in
                let owner = tx.create(Into<MonOwner>())
                owner.name = "o\(index)"
                return owner
            }
            for _ in 0..<count {
                let item = tx.create(Into<MonItem>())
                item.owner = owners.randomElement(using: &random)
                item.rank = Int(random.next() % 100)
                item.group = Int(random.next() % 5)
                item.flag = random.next() % 2 == 0
                item.label = ListMonitorModelTests.labels[Int(random.next() % UInt64(ListMonitorModelTests.labels.count))]
            }
        })
    }

    /// One random commit's changes: `operations` inserts, field updates,
    /// relationship changes, owner renames, deletes and (when `cascades`)
    /// an owner deleted with all its items. Nonisolated: a transaction's
    /// body, from whichever thread begins it.
    static func change(_ tx: BaseDataTransaction, _ random: inout SplitMix64, operations: Int, cascades: Bool) throws {
        let items = try tx.fetchAll(From<MonItem>())
        var owners = try tx.fetchAll(From<MonOwner>())
        if owners.isEmpty {
            let owner = tx.create(Into<MonOwner>())
            owner.name = "o0"
            owners.append(owner)
        }
        for _ in 0..<operations {
            switch random.next() % 9 {
            case 0:
                let item = tx.create(Into<MonItem>())
                item.rank = Int(random.next() % 100)
                item.group = Int(random.next() % 5)
                item.owner = owners.randomElement(using: &random)
            case 1:
                if let victim = items.randomElement(using: &random), !victim.isDeletedObject { tx.delete(victim) }
            case 2:
                // Relationship change: another owner, or none.
                if let item = items.randomElement(using: &random), !item.isDeletedObject {
                    item.owner = random.next() % 4 == 0 ? nil : owners.randomElement(using: &random)
                }
            case 3:
                // The other side of a path changes: rename an owner.
                owners.randomElement(using: &random)?.name = "o\(random.next() % 3)"
            case 4 where cascades:
                // Cascade: an owner and all its items go.
                if let owner = owners.randomElement(using: &random) {
                    tx.delete(owner)
                    owners.removeAll { $0 === owner }
                    let fresh = tx.create(Into<MonOwner>())
                    fresh.name = "o\(random.next() % 3)"
                    owners.append(fresh)
                }
            default:
                if let item = items.randomElement(using: &random), !item.isDeletedObject {
                    ListMonitorModelTests.randomize(item, &random)
                }
            }
        }
    }
}

/// One random commit of the shared workload: one to four changes, a cascade now and then.
func randomCommit(_ tx: BaseDataTransaction, _ random: inout SplitMix64) throws {
    let operations = Int(random.next() % 4) + 1
    try MonWorkload.change(tx, &random, operations: operations, cascades: random.next() % 4 == 0)
}
