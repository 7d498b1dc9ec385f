import Foundation
@testable import Strata
import Testing

/// Bulk writes against the same work done object by object: two stores
/// built alike from one seed take the same random transactions, one through
/// `deleteAll`/`updateAll`, the other by fetching the objects and deleting or
/// setting them one by one. After every transaction both fail or both
/// commit, with the same change set, the same rows in every table (link
/// tables and positions included), and monitors and held objects that agree
/// with the store and with each other, each monitor's callback batches
/// replaying to its list.
@MainActor
@Suite("Bulk writes: the same as object by object")
struct BulkWriteModelTests {
    @Test(arguments: 0..<8)
    func bulkWritesMatchObjectByObject(seed: Int) throws {
        var random = SplitMix64(seed: 0xB01C + UInt64(seed))
        let world = try BulkWorld(random: &random)
        var outcomes: [String: Int] = [:]
        for round in 0..<25 {
            let operations = (0..<Int(random.next() % 3) + 1).map { _ in BulkOperation.random(&random, world) }
            let context = "seed \(seed) round \(round): \(operations)"
            let bulk = try world.bulk.run(operations, bulk: true)
            let plain = try world.plain.run(operations, bulk: false)
            outcomes[bulk.outcome, default: 0] += 1
            #expect(bulk.outcome == plain.outcome, "\(context)")
            #expect(bulk.changes == plain.changes, "\(context)")
            try world.check(context)
        }
        // The rounds exercise commits and failures alike.
        #expect(outcomes["committed", default: 0] > 5, "\(outcomes)")
    }
}

/// The two sides, built alike.
@MainActor
struct BulkWorld {
    let directory = TemporaryDirectory()
    let bulk: BulkSide
    let plain: BulkSide

    init(random: inout SplitMix64) throws {
        let seed = random.next()
        bulk = try BulkSide(directory.file("bulk.sqlite"), seed: seed)
        plain = try BulkSide(directory.file("plain.sqlite"), seed: seed)
    }

    /// How many objects of each entity exist now (both sides agree, or a check fails).
    func rowIDs(_ kind: BulkKind) -> [Int64] {
        (try? bulk.rows(kind.table).map { $0[0] }.compactMap { if case .integer(let id) = $0 { id } else { nil } }) ?? []
    }

    func check(_ context: String) throws {
        for table in bulkSchema.tables.map(\.name) {
            let (bulkRows, plainRows) = (try bulk.rows(table), try plain.rows(table))
            #expect(bulkRows == plainRows, "\(context): table \(table): \(bulkRows.filter { !plainRows.contains($0) }) against \(plainRows.filter { !bulkRows.contains($0) })")
        }
        try bulk.checkObservers(context)
        try plain.checkObservers(context)
        #expect(bulk.pets.monitor.objectsInAllSections().map(\.rowID)
            == plain.pets.monitor.objectsInAllSections().map(\.rowID), "\(context)")
    }
}

enum BulkKind: CaseIterable {
    case owner, pet, toy, tag, item, badge, vault

    var table: String {
        switch self {
        case .owner: "Owner"
        case .pet: "Pet"
        case .toy: "Toy"
        case .tag: "Tag"
        case .item: "Item"
        case .badge: "Badge"
        case .vault: "Vault"
        }
    }
}

/// Which rows an operation selects: by rank, and maybe one page of them in
/// descending rank order.
struct BulkFilter: CustomStringConvertible {
    var below: Int?
    var atLeast: Int?
    var page: (limit: Int, offset: Int)?

    static func random(_ random: inout SplitMix64) -> BulkFilter {
        var filter = BulkFilter()
        switch random.next() % 4 {
        case 0: filter.below = Int(random.next() % 120) - 10
        case 1: filter.atLeast = Int(random.next() % 120) - 10
        case 2: break
        default:
            filter.below = Int(random.next() % 120) - 10
            filter.atLeast = Int(random.next() % 60) - 10
        }
        if random.next() % 3 == 0 { filter.page = (Int(random.next() % 6), Int(random.next() % 4)) }
        return filter
    }

    func query<Object: ManagedObject, Rank: FieldStorable & FixedWidthInteger>(
        _ rank: KeyPath<Object, Field.Stored<Rank>>
    ) -> From<Object> {
        var query = From<Object>()
        if let below { query = query.where(rank < Rank(clamping: below)) }
        if let atLeast { query = query.where(rank >= Rank(clamping: atLeast)) }
        if let page {
            query = query.orderBy(.descending(rank)).tweak {
                $0.fetchLimit = page.limit
                $0.fetchOffset = page.offset
            }
        }
        return query
    }

    var description: String {
        [below.map { "rank < \($0)" }, atLeast.map { "rank >= \($0)" }, page.map { "page \($0.limit)+\($0.offset)" }]
            .compactMap { $0 }.joined(separator: ", ")
    }
}

/// One step of a random transaction.
enum BulkOperation: CustomStringConvertible {
    /// `deleteAll`, or fetch and delete one by one.
    case delete(BulkKind, BulkFilter)
    /// `updateAll`, or fetch and set one by one.
    case update(BulkKind, BulkFilter, [BulkAssignment])
    /// An object edited first, so that bulk writes meet registered objects with pending changes.
    case edit(BulkKind, Int64, rank: Int)
    /// An object deleted one by one.
    case remove(BulkKind, Int64)
    /// A new pet, registered and inserted when later steps run.
    case createPet(rank: Int, owner: Int64?)

    @MainActor
    static func random(_ random: inout SplitMix64, _ world: BulkWorld) -> BulkOperation {
        let kind = BulkKind.allCases[Int(random.next() % UInt64(BulkKind.allCases.count))]
        let owners = world.rowIDs(.owner)
        func anyOwner() -> Int64? {
            owners.isEmpty || random.next() % 4 == 0 ? nil : owners[Int(random.next() % UInt64(owners.count))]
        }
        switch random.next() % 10 {
        case 0..<3: return .delete(kind, .random(&random))
        case 3..<7:
            let count = Int(random.next() % 2) + 1
            let assignments = (0..<count).map { _ in BulkAssignment.random(for: kind, &random, owner: anyOwner()) }
            var seen: Set<String> = []
            return .update(kind, .random(&random), assignments.filter { seen.insert($0.field).inserted })
        case 7:
            let rows = world.rowIDs(kind)
            guard !rows.isEmpty else { return .createPet(rank: Int(random.next() % 100), owner: anyOwner()) }
            return .edit(kind, rows[Int(random.next() % UInt64(rows.count))], rank: Int(random.next() % 100))
        case 8:
            let rows = world.rowIDs(kind)
            guard !rows.isEmpty else { return .createPet(rank: Int(random.next() % 100), owner: anyOwner()) }
            return .remove(kind, rows[Int(random.next() % UInt64(rows.count))])
        default:
            return .createPet(rank: Int(random.next() % 100), owner: anyOwner())
        }
    }

    var description: String {
        switch self {
        case let .delete(kind, filter): "delete \(kind) [\(filter)]"
        case let .update(kind, filter, assignments): "update \(kind) [\(filter)] \(assignments)"
        case let .edit(kind, rowID, rank): "edit \(kind) \(rowID) rank \(rank)"
        case let .remove(kind, rowID): "remove \(kind) \(rowID)"
        case let .createPet(rank, owner): "create pet \(rank) owner \(owner.map(String.init) ?? "nil")"
        }
    }
}

/// One assignment of an update, which each side applies its own way.
enum BulkAssignment: CustomStringConvertible {
    case rank(Int)
    case bump(Int)
    case label(String)
    case code(String?)
    case weight(Double)
    case relate(String, Int64?)

    var field: String {
        switch self {
        case .rank, .bump: "rank"
        case .label: "label"
        case .code: "code"
        case .weight: "weight"
        case .relate(let name, _): name
        }
    }

    static func random(for kind: BulkKind, _ random: inout SplitMix64, owner: Int64?) -> BulkAssignment {
        let rank: BulkAssignment = random.next() % 2 == 0
            ? .rank(Int(random.next() % 100)) : .bump(Int(random.next() % 60) - 20)
        switch (kind, random.next() % 4) {
        case (.owner, 1): return .label(["a", "b", "c"][Int(random.next() % 3)])
        case (.owner, 2): return random.next() % 2 == 0 ? .code(nil) : .code("c\(random.next() % 4)")
        case (.owner, 3): return .relate("mentor", owner)
        case (.pet, 1): return .weight(Double(random.next() % 5) / 2)
        case (.pet, 2): return .relate("owner", owner)
        case (.pet, 3): return .relate("hero", owner)
        case (.item, 1), (.item, 2): return .relate("list", owner)
        case (.badge, 1): return .relate("holder", nil)
        case (.vault, 1): return .relate("keeper", owner)
        default: return rank
        }
    }

    var description: String {
        switch self {
        case .rank(let value): "rank = \(value)"
        case .bump(let value): "rank += \(value)"
        case .label(let value): "label = \(value)"
        case .code(let value): "code = \(value ?? "nil")"
        case .weight(let value): "weight += \(value)"
        case let .relate(name, rowID): "\(name) = \(rowID.map(String.init) ?? "nil")"
        }
    }
}

/// A step the plain side cannot take the way the bulk side refuses it (an
/// increment past an `Int8`): it gives up too.
struct PlainSideRefused: Error {}

/// One store, its stack, and what watches it.
@MainActor
final class BulkSide {
    let url: URL
    let stack: DataStack
    let pets: (monitor: ListMonitor<BulkPet>, checker: ReplayChecker<BulkPet>)
    let owners: (monitor: ListMonitor<BulkOwner>, checker: ReplayChecker<BulkOwner>)
    let heldPets: [BulkPet]
    let heldToys: [BulkToy]

    init(_ url: URL, seed: UInt64) throws {
        self.url = url
        stack = DataStack(bulkSchema)
        try stack.addStorageAndWait(SQLiteStore(fileURL: url))
        var random = SplitMix64(seed: seed)
        try stack.perform(synchronous: { tx in Self.populate(tx, &random) })
        let petMonitor = try stack.monitorList(
            From<BulkPet>().where(\.$rank < 60).orderBy(.ascending(\.$label), .ascending(\.$rank)))
        pets = (petMonitor, ReplayChecker(petMonitor))
        let ownerMonitor = try stack.monitorList(From<BulkOwner>().orderBy(.descending(\.$rank)))
        owners = (ownerMonitor, ReplayChecker(ownerMonitor))
        heldPets = try stack.fetchAll(From<BulkPet>())
        heldToys = try stack.fetchAll(From<BulkToy>())
    }

    private static func populate(_ tx: BaseDataTransaction, _ random: inout SplitMix64) {
        func pick<T>(_ list: [T]) -> T? { list.isEmpty || random.next() % 4 == 0 ? nil : list[Int(random.next() % UInt64(list.count))] }
        let owners = (0..<12).map { index in
            let owner = tx.create(Into<BulkOwner>())
            owner.rank = Int(random.next() % 100)
            owner.label = ["a", "b", "c"][Int(random.next() % 3)]
            owner.code = random.next() % 3 == 0 ? nil : "o\(index)"
            return owner
        }
        for owner in owners { owner.mentor = pick(owners) }
        let pets = (0..<30).map { _ in
            let pet = tx.create(Into<BulkPet>())
            pet.rank = Int(random.next() % 100)
            pet.label = ["x", "y"][Int(random.next() % 2)]
            pet.weight = random.next() % 3 == 0 ? nil : Double(random.next() % 10)
            pet.owner = pick(owners)
            pet.hero = pick(owners)
            return pet
        }
        for pet in pets { pet.friends = Set((0..<Int(random.next() % 3)).compactMap { _ in pick(pets) }) }
        let tags = (0..<10).map { _ in
            let tag = tx.create(Into<BulkTag>())
            tag.rank = Int(random.next() % 100)
            tag.owners = Set((0..<Int(random.next() % 3)).compactMap { _ in pick(owners) })
            return tag
        }
        for _ in 0..<40 {
            let toy = tx.create(Into<BulkToy>())
            toy.rank = Int8(Int(random.next() % 220) - 110)
            toy.pet = pick(pets)
            if random.next() % 3 == 0 { toy.tags = Set((0..<2).compactMap { _ in pick(tags) }).sorted { $0.rowID < $1.rowID } }
        }
        for _ in 0..<20 {
            let item = tx.create(Into<BulkItem>())
            item.rank = Int(random.next() % 100)
            item.list = pick(owners)
        }
        for owner in owners.prefix(8) where random.next() % 2 == 0 {
            let badge = tx.create(Into<BulkBadge>())
            badge.rank = Int(random.next() % 100)
            badge.holder = owner
        }
        for _ in 0..<6 {
            let vault = tx.create(Into<BulkVault>())
            vault.rank = Int(random.next() % 100)
            vault.keeper = random.next() % 3 == 0 ? pick(owners) : nil
        }
    }

    /// Runs the operations in one transaction and commits; what came of it.
    func run(_ operations: [BulkOperation], bulk: Bool) throws -> (outcome: String, changes: [String]) {
        let tx = try stack.beginUnsafe()
        do {
            for operation in operations { try apply(operation, bulk: bulk, tx) }
            let changeSet = try tx.commitAndWait()
            return ("committed", Self.summary(changeSet))
        } catch let error as StrataError {
            tx.rollback()
            switch error {
            case .deleteDenied(let entity, let relationship, _): return ("denied \(entity).\(relationship)", [])
            case .uniqueConstraintViolation: return ("unique", [])
            case .invalidValue: return ("refused", [])
            default: throw error
            }
        } catch is PlainSideRefused {
            tx.rollback()
            return ("refused", [])
        }
    }

    private func apply(_ operation: BulkOperation, bulk: Bool, _ tx: UnsafeDataTransaction) throws {
        switch operation {
        case let .delete(kind, filter):
            switch kind {
            case .owner: try delete(filter.query(\BulkOwner.$rank), bulk, tx)
            case .pet: try delete(filter.query(\BulkPet.$rank), bulk, tx)
            case .toy: try delete(filter.query(\BulkToy.$rank), bulk, tx)
            case .tag: try delete(filter.query(\BulkTag.$rank), bulk, tx)
            case .item: try delete(filter.query(\BulkItem.$rank), bulk, tx)
            case .badge: try delete(filter.query(\BulkBadge.$rank), bulk, tx)
            case .vault: try delete(filter.query(\BulkVault.$rank), bulk, tx)
            }
        case let .update(kind, filter, assignments):
            switch kind {
            case .owner: try update(filter.query(\BulkOwner.$rank), assignments, bulk, tx)
            case .pet: try update(filter.query(\BulkPet.$rank), assignments, bulk, tx)
            case .toy: try update(filter.query(\BulkToy.$rank), assignments, bulk, tx)
            case .tag: try update(filter.query(\BulkTag.$rank), assignments, bulk, tx)
            case .item: try update(filter.query(\BulkItem.$rank), assignments, bulk, tx)
            case .badge: try update(filter.query(\BulkBadge.$rank), assignments, bulk, tx)
            case .vault: try update(filter.query(\BulkVault.$rank), assignments, bulk, tx)
            }
        case let .edit(kind, rowID, rank):
            let object = try tx.fetchExisting(AnyObjectID(entityName: kind.table, rowID: rowID), of: kind)
            object.map { Self.setRank($0, rank) }
        case let .remove(kind, rowID):
            if let object = try tx.fetchExisting(AnyObjectID(entityName: kind.table, rowID: rowID), of: kind) {
                tx.delete(object)
            }
        case let .createPet(rank, owner):
            let pet = tx.create(Into<BulkPet>())
            pet.rank = rank
            pet.owner = try owner.flatMap { try tx.fetchExisting(ObjectID<BulkOwner>(entityName: "Owner", rowID: $0)) }
        }
    }

    private static func setRank(_ object: ManagedObject, _ rank: Int) {
        switch object {
        case let owner as BulkOwner: owner.rank = rank
        case let pet as BulkPet: pet.rank = rank
        case let toy as BulkToy: toy.rank = Int8(clamping: rank)
        case let tag as BulkTag: tag.rank = rank
        case let item as BulkItem: item.rank = rank
        case let badge as BulkBadge: badge.rank = rank
        case let vault as BulkVault: vault.rank = rank
        default: Issue.record("unknown object \(object)")
        }
    }

    private func delete<Object: ManagedObject>(_ query: From<Object>, _ bulk: Bool, _ tx: UnsafeDataTransaction) throws {
        if bulk {
            try tx.deleteAll(query)
        } else {
            for object in try tx.fetchAll(query) { tx.delete(object) }
        }
    }

    private func update<Object: ManagedObject>(
        _ query: From<Object>, _ assignments: [BulkAssignment], _ bulk: Bool, _ tx: UnsafeDataTransaction
    ) throws {
        if bulk {
            try tx.updateAll(query, assignments.map { Self.fieldAssignment($0, for: Object.self) })
            return
        }
        // updateAll refuses, before changing anything, a one-to-one set to
        // an object and a related object that does not exist.
        for case .relate(let name, let rowID?) in assignments {
            if name == "holder" { throw PlainSideRefused() }
            if try tx.fetchExisting(ObjectID<BulkOwner>(entityName: "Owner", rowID: rowID)) == nil {
                throw PlainSideRefused()
            }
        }
        let objects = try tx.fetchAll(query)
        for object in objects {
            for case .bump(let amount) in assignments {
                if let toy = object as? BulkToy, Int8(exactly: Int(toy.rank) + amount) == nil { throw PlainSideRefused() }
            }
        }
        for object in objects {
            for assignment in assignments { try Self.set(assignment, on: object, tx) }
        }
    }

    /// The assignment as `updateAll` takes it.
    private static func fieldAssignment<Object: ManagedObject>(
        _ assignment: BulkAssignment, for type: Object.Type
    ) -> FieldAssignment<Object> {
        func owner(_ rowID: Int64?) -> ObjectID<BulkOwner>? { rowID.map { ObjectID(entityName: "Owner", rowID: $0) } }
        func relate<O>(_ keyPath: KeyPath<O, Field.Relationship<BulkOwner?>>, _ rowID: Int64?) -> FieldAssignment<O> {
            owner(rowID).map { FieldAssignment.set(keyPath, to: $0) } ?? FieldAssignment.set(keyPath, to: nil)
        }
        let made: Any
        switch (assignment, Object.self) {
        case (.rank(let value), is BulkToy.Type): made = FieldAssignment<BulkToy>.set(\.$rank, to: Int8(clamping: value))
        case (.bump(let value), is BulkToy.Type): made = FieldAssignment<BulkToy>.increment(\.$rank, by: Int8(clamping: value))
        case (.rank(let value), _): made = rankAssignment(Object.self) { FieldAssignment.set($0, to: value) }
        case (.bump(let value), _): made = rankAssignment(Object.self) { FieldAssignment.increment($0, by: value) }
        case (.label(let value), _): made = FieldAssignment<BulkOwner>.set(\.$label, to: value)
        case (.code(let value), _): made = FieldAssignment<BulkOwner>.set(\.$code, to: value)
        case (.weight(let value), _): made = FieldAssignment<BulkPet>.increment(\.$weight, by: value)
        case (.relate("mentor", let rowID), _): made = relate(\BulkOwner.$mentor, rowID)
        case (.relate("owner", let rowID), _): made = relate(\BulkPet.$owner, rowID)
        case (.relate("hero", let rowID), _): made = relate(\BulkPet.$hero, rowID)
        case (.relate("list", let rowID), _): made = relate(\BulkItem.$list, rowID)
        case (.relate("holder", let rowID), _): made = relate(\BulkBadge.$holder, rowID)
        case (.relate("keeper", let rowID), _): made = relate(\BulkVault.$keeper, rowID)
        case (.relate, _): preconditionFailure("no such relationship")
        }
        return made as! FieldAssignment<Object>
    }

    private static func rankAssignment<Object: ManagedObject>(
        _ type: Object.Type, _ make: (KeyPath<Object, Field.Stored<Int>>) -> FieldAssignment<Object>
    ) -> FieldAssignment<Object> {
        let keyPath: AnyKeyPath
        switch Object.self {
        case is BulkOwner.Type: keyPath = \BulkOwner.$rank
        case is BulkPet.Type: keyPath = \BulkPet.$rank
        case is BulkTag.Type: keyPath = \BulkTag.$rank
        case is BulkItem.Type: keyPath = \BulkItem.$rank
        case is BulkBadge.Type: keyPath = \BulkBadge.$rank
        default: keyPath = \BulkVault.$rank
        }
        return make(keyPath as! KeyPath<Object, Field.Stored<Int>>)
    }

    /// The assignment applied to one object, as a user would.
    private static func set(_ assignment: BulkAssignment, on object: ManagedObject, _ tx: UnsafeDataTransaction) throws {
        func owner(_ rowID: Int64?) throws -> BulkOwner? {
            try rowID.flatMap { try tx.fetchExisting(ObjectID<BulkOwner>(entityName: "Owner", rowID: $0)) }
        }
        switch (assignment, object) {
        case (.rank(let value), _): setRank(object, value)
        case (.bump(let value), let toy as BulkToy): toy.rank += Int8(clamping: value)
        case (.bump(let value), _): setRank(object, rank(of: object) + value)
        case (.label(let value), let owner as BulkOwner): owner.label = value
        case (.code(let value), let owner as BulkOwner): owner.code = value
        case (.weight(let value), let pet as BulkPet): pet.weight = pet.weight.map { $0 + value }
        case (.relate("mentor", let rowID), let object as BulkOwner): object.mentor = try owner(rowID)
        case (.relate("owner", let rowID), let pet as BulkPet): pet.owner = try owner(rowID)
        case (.relate("hero", let rowID), let pet as BulkPet): pet.hero = try owner(rowID)
        case (.relate("list", let rowID), let item as BulkItem): item.list = try owner(rowID)
        case (.relate("holder", let rowID), let badge as BulkBadge): badge.holder = try owner(rowID)
        case (.relate("keeper", let rowID), let vault as BulkVault): vault.keeper = try owner(rowID)
        default: Issue.record("\(assignment) does not apply to \(object)")
        }
    }

    private static func rank(of object: ManagedObject) -> Int {
        switch object {
        case let owner as BulkOwner: owner.rank
        case let pet as BulkPet: pet.rank
        case let tag as BulkTag: tag.rank
        case let item as BulkItem: item.rank
        case let badge as BulkBadge: badge.rank
        case let vault as BulkVault: vault.rank
        default: 0
        }
    }

    /// A change set as sorted lines: per entity the inserted, updated (with
    /// fields) and deleted row IDs.
    static func summary(_ changeSet: ChangeSet?) -> [String] {
        guard let changeSet else { return [] }
        var lines: [String] = []
        for entity in changeSet.entityNames.sorted() {
            lines.append("\(entity) inserted \(changeSet.insertedRowIDs(entity: entity).sorted())")
            lines.append("\(entity) deleted \(changeSet.deletedRowIDs(entity: entity).sorted())")
            for rowID in changeSet.updatedRowIDs(entity: entity).sorted() {
                let fields = changeSet.changedFields(of: AnyObjectID(entityName: entity, rowID: rowID)).sorted()
                lines.append("\(entity) updated \(rowID) \(fields)")
            }
        }
        return lines
    }

    /// Every row of a table, sorted, read by a connection of its own.
    func rows(_ table: String) throws -> [[StoredValue]] {
        let connection = try Connection(path: url.path, readOnly: true)
        defer { connection.close() }
        let statement = try connection.statement("SELECT * FROM \(SQL.quote(table))")
        var rows: [[StoredValue]] = []
        while try statement.step() {
            rows.append((0..<statement.columnCount).map { statement.value(at: $0) })
        }
        statement.reset()
        return rows.sorted { $0.description < $1.description }
    }

    /// Monitors replay to fresh fetches; held objects equal their rows.
    func checkObservers(_ context: String) throws {
        #expect(pets.checker.failures.isEmpty, "\(context): \(pets.checker.failures)")
        #expect(owners.checker.failures.isEmpty, "\(context): \(owners.checker.failures)")
        let freshPets = try stack.fetchAll(
            From<BulkPet>().where(\.$rank < 60).orderBy(.ascending(\.$label), .ascending(\.$rank))).map(\.rowID)
        #expect(pets.monitor.objectsInAllSections().map(\.rowID) == freshPets, "\(context)")
        let freshOwners = try stack.fetchAll(From<BulkOwner>().orderBy(.descending(\.$rank))).map(\.rowID)
        #expect(owners.monitor.objectsInAllSections().map(\.rowID) == freshOwners, "\(context)")
        let petRows = Dictionary(uniqueKeysWithValues: try rows("Pet").map { ($0[0], Array($0.dropFirst())) })
        for pet in heldPets {
            if let row = petRows[.integer(pet.rowID)] {
                #expect(!pet.isDeletedObject && Array(pet.values) == row, "\(context): held pet \(pet.rowID)")
            } else {
                #expect(pet.isDeletedObject, "\(context): held pet \(pet.rowID) was deleted")
            }
        }
        let toyRows = Dictionary(uniqueKeysWithValues: try rows("Toy").map { ($0[0], Array($0.dropFirst())) })
        for toy in heldToys {
            #expect(toyRows[.integer(toy.rowID)].map { Array(toy.values) == $0 } ?? toy.isDeletedObject,
                    "\(context): held toy \(toy.rowID)")
        }
    }
}

extension UnsafeDataTransaction {
    /// This transaction's object for an untyped ID of one of the bulk world's entities.
    func fetchExisting(_ id: AnyObjectID, of kind: BulkKind) throws -> ManagedObject? {
        switch kind {
        case .owner: try fetchExisting(ObjectID<BulkOwner>(entityName: id.entityName, rowID: id.rowID))
        case .pet: try fetchExisting(ObjectID<BulkPet>(entityName: id.entityName, rowID: id.rowID))
        case .toy: try fetchExisting(ObjectID<BulkToy>(entityName: id.entityName, rowID: id.rowID))
        case .tag: try fetchExisting(ObjectID<BulkTag>(entityName: id.entityName, rowID: id.rowID))
        case .item: try fetchExisting(ObjectID<BulkItem>(entityName: id.entityName, rowID: id.rowID))
        case .badge: try fetchExisting(ObjectID<BulkBadge>(entityName: id.entityName, rowID: id.rowID))
        case .vault: try fetchExisting(ObjectID<BulkVault>(entityName: id.entityName, rowID: id.rowID))
        }
    }
}
