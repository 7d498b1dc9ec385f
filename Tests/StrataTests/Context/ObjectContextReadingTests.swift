import Foundation
@testable import Strata
import Testing

@MainActor
@Suite("Object context: an unsafe transaction's kept objects follow other writers")
struct ObjectContextReadingTests {
    @Test
    func aKeptObjectTakesAnotherWritersCommitBeforeItIsChangedAgain() throws {
        let directory = TemporaryDirectory()
        let mine = try openStack(in: directory)
        let other = try openStack(in: directory)
        let tx = try mine.beginUnsafe()
        let item = tx.create(Into<MonItem>())
        item.rank = 1
        let doomed = tx.create(Into<MonItem>())
        try tx.commitAndWait()
        try other.perform(synchronous: { tx in
            try tx.fetchOne(From<MonItem>().where(\.$rank == 1))!.rank = 10
            tx.delete(try tx.fetchOne(From<MonItem>().where(\.$rank == 0))!)
        })
        // Read-modify-write on the kept object: the other writer's 10 is not lost.
        try tx.refreshAndMergeAllObjects()
        item.rank += 1
        try tx.commitAndWait()
        #expect(try other.fetchOne(From<MonItem>())?.rank == 11)
        #expect(doomed.isDeletedObject, "a kept object whose row is gone is deleted")
        #expect(try other.fetchCount(From<MonItem>()) == 1)
    }

    @Test
    func aKeptObjectKeepsItsOwnChangesWhenItTakesAnotherWritersCommit() throws {
        let directory = TemporaryDirectory()
        let mine = try openStack(in: directory)
        let other = try openStack(in: directory)
        let tx = try mine.beginUnsafe()
        let item = tx.create(Into<MonItem>())
        item.rank = 1
        try tx.commitAndWait()
        try other.perform(synchronous: { tx in
            let item = try tx.fetchOne(From<MonItem>())!
            item.rank = 10
            item.label = "theirs"
        })
        item.group = 3  // changed here before the next SQLite transaction begins
        try tx.commitAndWait()
        let stored = try other.fetchOne(From<MonItem>())
        #expect(stored?.group == 3 && stored?.rank == 10 && stored?.label == "theirs")
        #expect(item.rank == 10 && item.label == "theirs")
    }
}
