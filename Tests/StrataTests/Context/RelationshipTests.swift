import Foundation
@testable import Strata
import Testing

@MainActor
@Suite("Relationships and inverses")
struct RelationshipTests {
    @Test(arguments: StoreKind.allCases)
    func settingToOneUpdatesTheInverseToMany(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(contextSchema, kind, in: directory)
        try stack.perform(synchronous: { tx in
            let ann = tx.create(Into<Owner>())
            ann.name = "Ann"
            let rex = tx.create(Into<Animal>())
            rex.name = "Rex"
            rex.owner = ann
            #expect(ann.pets.map(\.name) == ["Rex"])
            let bob = tx.create(Into<Owner>())
            rex.owner = bob
            #expect(ann.pets.isEmpty)
            #expect(bob.pets.map(\.name) == ["Rex"])
        })
        let bob = try #require(try stack.fetchOne(From<Owner>().where(\.$name == "")))
        #expect(bob.pets.map(\.name) == ["Rex"])
    }

    @Test(arguments: StoreKind.allCases)
    func settingToManyUpdatesEachMembersToOne(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(contextSchema, kind, in: directory)
        try stack.perform(synchronous: { tx in
            let ann = tx.create(Into<Owner>())
            let bob = tx.create(Into<Owner>())
            let pets = (0..<4).map { index -> Animal in
                let pet = tx.create(Into<Animal>())
                pet.name = "pet\(index)"
                return pet
            }
            ann.pets = Set(pets)
            #expect(pets.allSatisfy { $0.owner === ann })
            bob.pets = [pets[0]]
            #expect(pets[0].owner === bob)
            #expect(ann.pets == Set(pets[1...]))
            ann.pets = []
            #expect(pets[1...].allSatisfy { $0.owner == nil })
        })
    }

    @Test(arguments: StoreKind.allCases)
    func orderedToManyKeepsItsOrderAcrossCommits(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(contextSchema, kind, in: directory)
        var generator = SplitMix64(seed: 7)
        let names = (0..<12).map { "a\($0)" }
        let order = names.shuffled(using: &generator)
        try stack.perform(synchronous: { tx in
            let ann = tx.create(Into<Owner>())
            var byName: [String: Animal] = [:]
            for name in names {
                let animal = tx.create(Into<Animal>())
                animal.name = name
                byName[name] = animal
            }
            ann.queue = order.map { byName[$0]! }
            #expect(ann.queue.map(\.name) == order)
            // Appending through the to-one side puts the object last.
            let late = tx.create(Into<Animal>())
            late.name = "late"
            late.queuedAt = ann
            #expect(ann.queue.map(\.name) == order + ["late"])
        })
        let ann = try #require(try stack.fetchOne(From<Owner>()))
        #expect(ann.queue.map(\.name) == order + ["late"], "seed 7")
        try stack.perform(synchronous: { tx in
            let owner = try #require(tx.edit(ann))
            owner.queue = owner.queue.reversed()
        })
        #expect(ann.queue.map(\.name) == (order + ["late"]).reversed())
    }

    @Test(arguments: StoreKind.allCases)
    func oneToOneKeepsBothSidesInStep(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(contextSchema, kind, in: directory)
        try stack.perform(synchronous: { tx in
            let ann = tx.create(Into<Owner>())
            let bob = tx.create(Into<Owner>())
            let passport = tx.create(Into<Passport>())
            passport.holder = ann
            #expect(ann.passport === passport)
            bob.passport = passport
            #expect(passport.holder === bob)
            #expect(ann.passport == nil)
        })
        let passport = try #require(try stack.fetchOne(From<Passport>()))
        #expect(passport.holder?.passport === passport)
    }

    @Test(arguments: StoreKind.allCases)
    func manyToManyIsVisibleFromBothSides(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(contextSchema, kind, in: directory)
        try stack.perform(synchronous: { tx in
            let owners = (0..<3).map { index -> Owner in
                let owner = tx.create(Into<Owner>())
                owner.name = "o\(index)"
                return owner
            }
            let chess = tx.create(Into<Club>())
            chess.title = "chess"
            let golf = tx.create(Into<Club>())
            golf.title = "golf"
            chess.members = Set(owners)
            owners[0].clubs = [chess, golf]
            #expect(Set(golf.members.map(\.name)) == ["o0"])
            #expect(owners[1].clubs.map(\.title) == ["chess"])
        })
        let chess = try #require(try stack.fetchOne(From<Club>().where(\.$title == "chess")))
        #expect(Set(chess.members.map(\.name)) == ["o0", "o1", "o2"])
    }

    /// Linking an object the transaction deleted fails the commit with
    /// `invalidValue` naming the relationship (Core Data's save fails on a
    /// dangling reference) and saves nothing of the transaction; until then
    /// the relationship keeps what it held. Each way a link is stored: a
    /// to-one's key, a to-many through its members' keys, a link table.
    @Test(arguments: StoreKind.allCases)
    func linkingADeletedObjectFailsTheCommit(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(contextSchema, kind, in: directory)
        try stack.perform(synchronous: { tx in
            tx.create(Into<Owner>()).name = "Ann"
            tx.create(Into<Animal>()).name = "Rex"
            tx.create(Into<Club>()).title = "chess"
        })
        let links: [(field: String, link: (SynchronousDataTransaction) throws -> Void)] = [
            ("owner", { tx in
                let ann = try #require(try tx.fetchOne(From<Owner>()))
                let rex = try #require(try tx.fetchOne(From<Animal>()))
                tx.delete(ann)
                rex.owner = ann
                #expect(rex.owner == nil)
            }),
            ("pets", { tx in
                let ann = try #require(try tx.fetchOne(From<Owner>()))
                let rex = try #require(try tx.fetchOne(From<Animal>()))
                tx.delete(rex)
                ann.pets.insert(rex)
                #expect(ann.pets.isEmpty)
            }),
            ("members", { tx in
                let ann = try #require(try tx.fetchOne(From<Owner>()))
                let chess = try #require(try tx.fetchOne(From<Club>()))
                tx.create(Into<Club>()).title = "golf"
                tx.delete(ann)
                chess.members = [ann]
                #expect(chess.members.isEmpty)
            }),
        ]
        for (field, link) in links {
            #expect {
                try stack.perform(synchronous: link)
            } throws: { error in
                guard case let StrataError.invalidValue(_, named, reason) = error else { return false }
                return named == field && reason.contains("deleted")
            }
            #expect(try stack.fetchCount(From<Owner>()) == 1, "\(field): the deletion was saved")
            #expect(try stack.fetchCount(From<Animal>()) == 1, "\(field): the deletion was saved")
            #expect(try stack.fetchCount(From<Club>()) == 1, "\(field): the new club was saved")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func relationshipChangesAppearInTheChangeSetOnBothSides(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(contextSchema, kind, in: directory)
        let (annID, rexID) = try stack.perform(synchronous: { tx in
            let ann = tx.create(Into<Owner>())
            let rex = tx.create(Into<Animal>())
            return (ann.objectID, rex.objectID)
        })
        let tx = try stack.beginUnsafe()
        tx.edit(rexID)?.owner = tx.edit(annID)
        let changeSet = try #require(try tx.commitAndWait())
        #expect(changeSet.changedFields(of: rexID.erased) == ["owner"])
        #expect(changeSet.changedFields(of: annID.erased) == ["pets"])
    }

    /// Giving an unordered to-many the members it has, in any order, is no
    /// change (Transactions.md, Rule 6); an ordered one in another order is.
    @Test(arguments: StoreKind.sqlite)
    func theSameMembersInAnotherOrderAreNoChangeUnlessOrdered(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(contextSchema, kind, in: directory)
        let annID = try stack.perform(synchronous: { tx in
            let ann = tx.create(Into<Owner>())
            for index in 0..<8 {
                let pet = tx.create(Into<Animal>())
                pet.name = "p\(index)"
                pet.owner = ann
                pet.queuedAt = ann
                let club = tx.create(Into<Club>())
                club.members = [ann]
            }
            return ann.objectID
        })
        let tx = try stack.beginUnsafe()
        let ann = try #require(tx.edit(annID))
        let pets = ann.pets
        ann.pets = Set(pets.sorted { $0.name > $1.name })
        ann.pets = Set(Array(pets).reversed())
        ann.clubs = Set(Array(ann.clubs).reversed())
        #expect(!tx.hasChanges && !ann.hasChanges)
        #expect(try tx.commitAndWait() == nil)
        ann.queue = ann.queue.reversed()
        #expect(tx.hasChanges && ann.hasChanges, "an ordered relationship's order is its value")
        let changeSet = try #require(try tx.commitAndWait())
        #expect(changeSet.changedFields(of: annID.erased) == ["queue"])
    }

    /// Names Strata makes itself — link tables, position columns, indexes —
    /// may pass PostgreSQL's 63 bytes, and be alike in their first 63: the
    /// store is created, written, queried through them, deleted from and
    /// reopened on every engine, and SQLite keeps them as they are.
    @Test(arguments: StoreKind.allCases)
    func relationshipsWhoseNamesPassPostgreSQLsLimitWorkAndReopen(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let owners = From<LongNamedOwner>().orderBy(.ascending(\.$name))
        func check(_ stack: DataStack, _ moment: String) throws {
            let ann = try #require(try stack.fetchOne(owners), "\(moment)")
            #expect(ann.name == "Ann", "\(moment)")
            #expect(ann.firstTags.map(\.label).sorted() == ["t1", "t2"], "\(moment)")
            #expect(ann.secondTags.map(\.label) == ["t3"], "\(moment)")
            #expect(ann.clubs.map(\.title) == ["chess"], "\(moment)")
            #expect(ann.items.map(\.name) == ["i2", "i0", "i1"], "\(moment)")
            let holdingT2 = owners.where(.any(\.$firstTags, \.$label == "t2"))
            #expect(try stack.fetchAll(holdingT2).map(\.name) == ["Ann"], "\(moment)")
            #expect(try stack.fetchCount(owners.where(.any(\.$secondTags, \.$label == "t2"))) == 0)
            #expect(try stack.fetchCount(From<LongNamedItem>()) == 3, "Bob's item went, \(moment)")
        }
        do {
            let stack = try makeStack(longLinkNamesSchema, kind, in: directory)
            try stack.perform(synchronous: { tx in
                let tags = ["t1", "t2", "t3"].map { label in
                    let tag = tx.create(Into<LongNamedTag>())
                    tag.label = label
                    return tag
                }
                for name in ["Ann", "Bob"] {
                    let owner = tx.create(Into<LongNamedOwner>())
                    owner.name = name
                    owner.firstTags = Set(tags[0...1])
                    owner.secondTags = [tags[2]]
                    let club = tx.create(Into<LongNamedClub>())
                    club.title = name == "Ann" ? "chess" : "go"
                    club.members = [owner]
                    owner.items = ["i0", "i1", "i2"].prefix(name == "Ann" ? 3 : 1).map { name in
                        let item = tx.create(Into<LongNamedItem>())
                        item.name = name
                        return item
                    }
                }
            })
            try stack.perform(synchronous: { tx in
                let owners = try tx.fetchAll(owners)
                owners[0].items = [owners[0].items[2]] + owners[0].items[0...1]
                tx.delete(owners[1])
            })
            try check(stack, "after commit")
            if kind == .inMemory { return }
            try stack.removeStorage()
        }
        try check(try makeStack(longLinkNamesSchema, kind, in: directory), "after reopening")

        let connection = try makeStorage(kind, in: directory).settings.openConnection(.inspector)
        defer { connection.close() }
        let tables = try connection.tableNames()
        let link = "_strata_link_\(longNamedOwnerEntity)_"
            + "tagsOfTheFirstKindWithARelationshipNameThatIsLong"
        if kind == .file {
            #expect(tables.contains(link), "SQLite keeps the name: \(tables)")
        } else {
            #expect(tables.contains(SQLDialect.postgreSQL.storedName(link)), "\(tables)")
            #expect(tables.allSatisfy { $0.utf8.count <= 63 }, "\(tables)")
        }
    }
}
