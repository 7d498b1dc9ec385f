import Foundation
@testable import Strata

// The inheritance model the inheritance tests share: a tree of animals
// (ZooAnimal, with ZooDog and ZooCat, and ZooLion under ZooCat), keepers
// whose to-many and to-one relationships point at the base entity, and toys
// related to a subentity only.

class ZooAnimal: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("legs", .indexed) var legs: Int = 4
    @Field.Stored("tag", .unique) var tag: String? = nil
    @Field.Relationship("keeper") var keeper: ZooKeeper?
}

final class ZooDog: ZooAnimal {
    @Field.Stored("breed") var breed: String = "mutt"
    @Field.Relationship("toys", deleteRule: .cascade) var toys: Set<ZooToy>
}

class ZooCat: ZooAnimal {
    @Field.Stored("lives") var lives: Int = 9
}

final class ZooLion: ZooCat {
    @Field.Stored("mane") var mane: Double = 1.5
}

final class ZooKeeper: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("animals", inverse: \ZooAnimal.$keeper, deleteRule: .cascade)
    var animals: [ZooAnimal]
    /// No inverse: cleared when its animal is deleted.
    @Field.Relationship("favorite") var favorite: ZooAnimal?
}

final class ZooToy: ManagedObject {
    @Field.Stored("label") var label: String = ""
    @Field.Relationship("dog", inverse: \ZooDog.$toys) var dog: ZooDog?
}

/// The zoo; `abstract` makes ZooAnimal abstract.
func zooSchema(_ version: String = "Z1", abstract: Bool = false) -> Schema {
    Schema(version, entities: [
        Entity<ZooKeeper>("ZooKeeper"), Entity<ZooDog>("ZooDog"),
        Entity<ZooAnimal>("ZooAnimal", isAbstract: abstract), Entity<ZooCat>("ZooCat"),
        Entity<ZooLion>("ZooLion"), Entity<ZooToy>("ZooToy"),
    ])
}

/// The four entities of the tree, and what a row of each is named.
enum ZooKind: CaseIterable, Sendable {
    case animal, dog, cat, lion

    var entityName: String {
        switch self {
        case .animal: "ZooAnimal"
        case .dog: "ZooDog"
        case .cat: "ZooCat"
        case .lion: "ZooLion"
        }
    }

    /// The kinds `From<Self>` returns: the kind and its subentities.
    var family: Set<ZooKind> {
        switch self {
        case .animal: Set(ZooKind.allCases)
        case .dog: [.dog]
        case .cat: [.cat, .lion]
        case .lion: [.lion]
        }
    }

    /// The kind of an object, by its class.
    static func of(_ animal: ZooAnimal) -> ZooKind {
        switch animal {
        case is ZooDog: .dog
        case is ZooLion: .lion
        case is ZooCat: .cat
        default: .animal
        }
    }

    /// Creates an object of the kind in `tx`.
    @discardableResult
    func create(in tx: BaseDataTransaction) -> ZooAnimal {
        switch self {
        case .animal: tx.create(Into<ZooAnimal>())
        case .dog: tx.create(Into<ZooDog>())
        case .cat: tx.create(Into<ZooCat>())
        case .lion: tx.create(Into<ZooLion>())
        }
    }
}

enum ZooWorkload {
    static let names = ["Rex", "Tom", "ada", "Bo", "Émile", "", "zed"]

    /// Creates `count` animals of random kinds of the tree (the base
    /// included), named "a0", "a1", ….
    static func createAnimals(_ count: Int, in tx: BaseDataTransaction, _ random: inout SplitMix64) {
        let kinds: [ZooAnimal.Type] = [ZooAnimal.self, ZooDog.self, ZooCat.self, ZooLion.self]
        for index in 0..<count {
            tx.create(Into<ZooAnimal>(kinds[Int(random.next() % UInt64(kinds.count))])).name = "a\(index)"
        }
    }

    /// Gives the animal random base fields (and its own kind's, if any).
    static func randomize(_ animal: ZooAnimal, _ random: inout SplitMix64) {
        animal.name = names[Int(random.next() % UInt64(names.count))]
        animal.legs = Int(random.next() % 5)
        if let dog = animal as? ZooDog { dog.breed = ["mutt", "pug", "lab"][Int(random.next() % 3)] }
        if let cat = animal as? ZooCat { cat.lives = Int(random.next() % 10) }
        if let lion = animal as? ZooLion { lion.mane = Double(random.next() % 4) / 2 }
    }

    /// One random commit: creates, edits, relationship changes and deletes
    /// of animals of every kind, now and then a bulk update or delete.
    @MainActor
    static func change(_ tx: BaseDataTransaction, _ random: inout SplitMix64, operations: Int) throws {
        let animals = try tx.fetchAll(From<ZooAnimal>())
        let keepers = try tx.fetchAll(From<ZooKeeper>())
        for _ in 0..<operations {
            switch random.next() % 10 {
            case 0, 1:
                let kind = ZooKind.allCases[Int(random.next() % 4)]
                let animal = kind.create(in: tx)
                randomize(animal, &random)
                animal.keeper = keepers.randomElement(using: &random)
            case 2:
                if let victim = animals.randomElement(using: &random), !victim.isDeletedObject { tx.delete(victim) }
            case 3:
                if let animal = animals.randomElement(using: &random), !animal.isDeletedObject {
                    animal.keeper = random.next() % 3 == 0 ? nil : keepers.randomElement(using: &random)
                }
            case 4 where random.next() % 3 == 0:
                let legs = Int(random.next() % 5)
                _ = try tx.updateAll(From<ZooCat>().where(\.$legs == legs), [.set(\.$name, to: "bulk")])
            case 5 where random.next() % 4 == 0:
                _ = try tx.deleteAll(From<ZooAnimal>().where(\.$legs == Int(random.next() % 5)).tweak {
                    $0.fetchLimit = 2
                })
            default:
                if let animal = animals.randomElement(using: &random), !animal.isDeletedObject {
                    randomize(animal, &random)
                }
            }
        }
    }

    /// Seeds two keepers and `count` animals of random kinds.
    @MainActor
    static func seed(_ stack: DataStack, count: Int, random: inout SplitMix64) throws {
        try stack.perform(synchronous: { tx in
            let keepers = (0..<2).map { index -> ZooKeeper in
                let keeper = tx.create(Into<ZooKeeper>())
                keeper.name = "k\(index)"
                return keeper
            }
            for _ in 0..<count {
                let animal = ZooKind.allCases[Int(random.next() % 4)].create(in: tx)
                randomize(animal, &random)
                animal.keeper = keepers.randomElement(using: &random)
            }
        })
    }
}
