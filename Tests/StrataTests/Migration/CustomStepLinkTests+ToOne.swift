import Foundation
@testable import Strata
import Testing

// A custom step that transforms Shelf while three of its to-manys become
// to-ones: Shelf.books ↔ Book.shelf (a one-to-many) becomes a one-to-one,
// Shelf.marks (no inverse) a to-one, and Shelf.readers ↔ Reader.shelves (a
// many-to-many) a to-one whose inverse stays to-many. Which member to keep is
// a choice the step cannot make, and a transformer can neither read nor set
// links: the step must refuse while a link between two kept objects exists.

final class LinkShelfV1: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("keep") var keep: Bool = true
    @Field.Relationship("books", inverse: \LinkBookV1.$shelf) var books: Set<LinkBookV1>
    @Field.Relationship("marks") var marks: Set<LinkMarkV1>
    @Field.Relationship("readers", inverse: \LinkReaderV1.$shelves) var readers: Set<LinkReaderV1>
}

final class LinkBookV1: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("keep") var keep: Bool = true
    @Field.Relationship("shelf") var shelf: LinkShelfV1?
}

final class LinkMarkV1: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("keep") var keep: Bool = true
}

final class LinkReaderV1: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("keep") var keep: Bool = true
    @Field.Relationship("shelves") var shelves: Set<LinkShelfV1>
}

final class LinkShelfV2: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("stamp") var stamp: String = ""
    @Field.Relationship("books", inverse: \LinkBookV2.$shelf) var books: LinkBookV2?
    @Field.Relationship("marks") var marks: LinkMarkV2?
    @Field.Relationship("readers", inverse: \LinkReaderV2.$shelves) var readers: LinkReaderV2?
}

final class LinkBookV2: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("stamp") var stamp: String = ""
    @Field.Relationship("shelf") var shelf: LinkShelfV2?
}

final class LinkMarkV2: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("stamp") var stamp: String = ""
}

final class LinkReaderV2: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("stamp") var stamp: String = ""
    @Field.Relationship("shelves") var shelves: Set<LinkShelfV2>
}

private let shelvesV1 = Schema("V1", entities: [
    Entity<LinkShelfV1>("Shelf"), Entity<LinkBookV1>("Book"), Entity<LinkMarkV1>("Mark"),
    Entity<LinkReaderV1>("Reader"),
])
private let shelvesV2 = Schema("V2", entities: [
    Entity<LinkShelfV2>("Shelf"), Entity<LinkBookV2>("Book"), Entity<LinkMarkV2>("Mark"),
    Entity<LinkReaderV2>("Reader"),
])

/// Which entities a custom Shelf step transforms, whether they drop the
/// objects without `keep`, and whether a `willMigrate` hook deletes every
/// link of the three relationships first.
enum ToOneStep: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case transformShelf, transformShelfDropping, transformEveryEntityDropping
    case transformShelfAfterAHookDeletesTheLinks

    var testDescription: String { rawValue }

    var transformed: [String] {
        self == .transformEveryEntityDropping ? ["Shelf", "Book", "Mark", "Reader"] : ["Shelf"]
    }

    var dropping: Bool { self == .transformShelfDropping || self == .transformEveryEntityDropping }

    var stages: [MigrationStage] {
        guard self == .transformShelfAfterAHookDeletesTheLinks else { return [] }
        return [MigrationStage(from: "V1", to: "V2", willMigrate: { context in
            try context.execute("UPDATE \"Book\" SET \"shelf\" = NULL")
            try context.execute("DELETE FROM \"_strata_link_Shelf_marks\"")
            try context.execute("DELETE FROM \"_strata_link_Reader_shelves\"")
        })]
    }
}

extension CustomStepLinkTests {
    /// A transformed entity's to-many made to-one is refused, as inference
    /// refuses it, while it holds a link between two objects the step keeps,
    /// naming the relationship and counting those links, and the store is
    /// left as it was: a transformer can neither read nor set links, so it
    /// has not chosen which to keep. When every link it held was to or from
    /// an object a transformer dropped, or a hook deleted them, the step runs
    /// and the to-one starts empty, on both sides.
    @Test(arguments: migratingKinds, ToOneStep.allCases)
    func aTransformedToManyMadeToOneIsRefusedWhileItHoldsKeptLinks(
        kind: StoreKind, step: ToOneStep
    ) throws {
        for _ in 0..<4 {
            let random = SplitMix64.random()
            try checkToOne(step, kind: kind, seed: random.seed)
        }
    }

    private func checkToOne(_ step: ToOneStep, kind: StoreKind, seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        var counts: [String: Int] = [:]
        var keep: [String: [Bool]] = [:]
        for entity in ["Shelf", "Book", "Mark", "Reader"] {
            counts[entity] = Int.random(in: 0...5, using: &random)
            keep[entity] = (0..<counts[entity]!).map { _ in Bool.random(using: &random) }
        }
        // Sometimes no link at all, sometimes many.
        let density = Int.random(in: 0...3, using: &random)
        func linked(_ random: inout SplitMix64) -> Bool {
            Int.random(in: 0..<4, using: &random) < density
        }
        let shelfCount = counts["Shelf"]!
        let bookShelf = (0..<counts["Book"]!).map { _ in
            linked(&random) && shelfCount > 0 ? Int.random(in: 0..<shelfCount, using: &random) : nil
        }
        let marks = (0..<shelfCount).map { _ in
            (0..<counts["Mark"]!).filter { _ in linked(&random) }
        }
        let readers = (0..<shelfCount).map { _ in
            (0..<counts["Reader"]!).filter { _ in linked(&random) }
        }
        do {
            let stack = DataStack(shelvesV1)
            try stack.addStorageAndWait(makeStorage(kind, in: directory))
            try stack.perform(synchronous: { tx in
                let shelves = (0..<shelfCount).map { index in
                    let shelf = tx.create(Into<LinkShelfV1>())
                    shelf.name = "S\(index)"
                    shelf.keep = keep["Shelf"]![index]
                    return shelf
                }
                for (index, shelf) in bookShelf.enumerated() {
                    let book = tx.create(Into<LinkBookV1>())
                    book.name = "B\(index)"
                    book.keep = keep["Book"]![index]
                    book.shelf = shelf.map { shelves[$0] }
                }
                let markObjects = (0..<counts["Mark"]!).map { index in
                    let mark = tx.create(Into<LinkMarkV1>())
                    mark.name = "M\(index)"
                    mark.keep = keep["Mark"]![index]
                    return mark
                }
                let readerObjects = (0..<counts["Reader"]!).map { index in
                    let reader = tx.create(Into<LinkReaderV1>())
                    reader.name = "R\(index)"
                    reader.keep = keep["Reader"]![index]
                    return reader
                }
                for (index, shelf) in shelves.enumerated() {
                    shelf.marks = Set(marks[index].map { markObjects[$0] })
                    shelf.readers = Set(readers[index].map { readerObjects[$0] })
                }
            })
            try stack.removeStorage()
        }
        // The links between kept objects, by relationship, in the order the step checks them.
        func kept(_ entity: String, _ index: Int) -> Bool {
            !(step.dropping && step.transformed.contains(entity)) || keep[entity]![index]
        }
        func keptMembers(_ members: [[Int]], _ entity: String) -> Int {
            var count = 0
            for (shelf, list) in members.enumerated() where kept("Shelf", shelf) {
                count += list.filter { kept(entity, $0) }.count
            }
            return count
        }
        var keptBooks = 0
        for (book, shelf) in bookShelf.enumerated() {
            if let shelf, kept("Shelf", shelf), kept("Book", book) { keptBooks += 1 }
        }
        // A hook that deletes every link leaves none to keep.
        let deleted = !step.stages.isEmpty
        let keptLinks: [(String, Int)] = deleted ? [] : [
            ("books", keptBooks), ("marks", keptMembers(marks, "Mark")),
            ("readers", keptMembers(readers, "Reader")),
        ]
        let before = try storeContents(kind, in: directory)
        let provider = CustomSchemaMappingProvider(
            from: "V1", to: "V2",
            entityMappings: step.transformed.map { stamping($0, $0, dropping: step.dropping) })
        let stack = DataStack(schemaHistory: SchemaHistory(
            [shelvesV1, shelvesV2], chain: ["V1", "V2"], mappingProviders: [provider],
            stages: step.stages))
        let context = "\(step), \(kind), seed \(seed), kept links \(keptLinks)"
        if let (name, count) = keptLinks.first(where: { $0.1 > 0 }) {
            do {
                try stack.addStorageAndWait(makeStorage(kind, in: directory))
                Issue.record("the step should refuse: \(context)")
            } catch StrataError.migrationFailed("V1", "V2", "Shelf", name, let reason) {
                #expect(reason.contains("\(count) links"), "\(reason): \(context)")
            }
            #expect(try storeContents(kind, in: directory) == before,
                    "the store is as it was: \(context)")
            return
        }
        try stack.addStorageAndWait(makeStorage(kind, in: directory))
        for shelf in try stack.fetchAll(From<LinkShelfV2>()) {
            #expect(shelf.books == nil && shelf.marks == nil && shelf.readers == nil,
                    "\(shelf.name): \(context)")
        }
        #expect(try stack.fetchAll(From<LinkBookV2>()).allSatisfy { $0.shelf == nil }, "\(context)")
        #expect(try stack.fetchAll(From<LinkReaderV2>()).allSatisfy { $0.shelves.isEmpty },
                "\(context)")
        let shelves = Set(try stack.fetchAll(From<LinkShelfV2>()).map(\.name))
        let keptShelves = Set((0..<shelfCount).filter { kept("Shelf", $0) }.map { "S\($0)" })
        #expect(shelves == keptShelves, "\(context)")
    }
}
