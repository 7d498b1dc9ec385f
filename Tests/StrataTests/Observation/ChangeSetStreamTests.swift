import Foundation
@testable import Strata
import Testing

@MainActor
@Suite("DataStack.changeSets: a stream of merged change sets")
struct ChangeSetStreamTests {
    /// Random commits by two authors, of one entity or the other, some by a
    /// second stack on the same file, then a write that bypasses the log:
    /// each stream yields exactly the merged change sets its filter keeps,
    /// in generation order, and the refresh; and ends when the stack goes.
    @Test(arguments: 0..<4)
    func eachStreamYieldsTheMergedChangeSetsItsFilterKeeps(seed: Int) async throws {
        var random = SplitMix64(seed: 0x57EA + UInt64(seed))
        let directory = TemporaryDirectory()
        let url = directory.file("stream.sqlite")
        var stack: DataStack? = DataStack(bulkSchema)
        try stack!.addStorageAndWait(SQLiteStore(fileURL: url))
        let other = DataStack(bulkSchema)
        try other.addStorageAndWait(SQLiteStore(fileURL: url))
        let all = try stack!.changeSets()
        let pets = try stack!.changeSets(touching: ["Pet"])
        let sync = try stack!.changeSets(author: "sync")
        var committed: [(generation: UInt64, entities: Set<String>, author: String?, isLocal: Bool)] = []
        for _ in 0..<30 {
            let author = random.next() % 3 == 0 ? "sync" : nil
            let local = random.next() % 4 != 0
            let tx = try (local ? stack! : other).beginUnsafe(author: author)
            let entities: Set<String>
            switch random.next() % 3 {
            case 0: tx.create(Into<BulkPet>()).rank = 1; entities = ["Pet"]
            case 1: tx.create(Into<BulkOwner>()).rank = 1; entities = ["Owner"]
            default:
                tx.create(Into<BulkPet>()).owner = tx.create(Into<BulkOwner>())
                entities = ["Pet", "Owner"]
            }
            let changeSet = try #require(try tx.commitAndWait())
            committed.append((changeSet.generation, entities, author, local))
            // A read merges what the other stack committed.
            _ = try stack!.fetchCount(From<BulkPet>())
        }
        // A write that bypasses the log: the refresh may hold any author's and
        // any entity's changes, so every stream yields it.
        let held = try stack!.fetchAll(From<BulkPet>())
        try writeBypassingStrata("UPDATE Pet SET rank = 99", at: url)
        await Task.yield()
        _ = try stack!.fetchCount(From<BulkPet>())
        #expect(held.allSatisfy { $0.rank == 99 })
        stack = nil
        func collect(_ stream: AsyncStream<ChangeSet>) async -> [ChangeSet] {
            var collected: [ChangeSet] = []
            for await changeSet in stream { collected.append(changeSet) }
            return collected
        }
        let allSeen = await collect(all)
        #expect(allSeen.dropLast().map(\.generation) == committed.map(\.generation))
        #expect(allSeen.dropLast().map(\.isLocal) == committed.map(\.isLocal))
        #expect(allSeen.dropLast().map(\.entityNames) == committed.map(\.entities))
        #expect(allSeen.map(\.isRefresh) == committed.map { _ in false } + [true])
        let petsSeen = await collect(pets)
        #expect(petsSeen.dropLast().map(\.generation) == committed.filter { $0.entities.contains("Pet") }.map(\.generation))
        #expect(petsSeen.last?.isRefresh == true)
        let syncSeen = await collect(sync)
        #expect(syncSeen.dropLast().map(\.generation) == committed.filter { $0.author == "sync" }.map(\.generation))
        #expect(syncSeen.last?.isRefresh == true)
    }
}
