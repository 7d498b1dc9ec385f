import Foundation
@testable import Strata
import Testing

@Suite("Commit log: the record's binary form")
struct CommitRecordCodingTests {
    /// Random changes: runs of consecutive IDs, scattered IDs, negative and
    /// huge IDs, field sets shared by several rows.
    static func randomChanges(_ random: inout SplitMix64) -> [String: LoggedChanges] {
        func rowIDs(_ random: inout SplitMix64) -> [Int64] {
            var ids: Set<Int64> = []
            for _ in 0..<Int(random.next() % 6) {
                let start = random.next() % 5 == 0
                    ? Int64(bitPattern: random.next()) : Int64(random.next() % 10_000)
                let length = Int64(random.next() % (random.next() % 3 == 0 ? 500 : 4))
                for offset in 0...length { ids.insert(start &+ offset) }
            }
            return Array(ids).shuffled(using: &random)
        }
        var entities: [String: LoggedChanges] = [:]
        let fieldNames = ["name", "age", "owner", "é", "a b", ""]
        for index in 0..<Int(random.next() % 4) {
            var changes = LoggedChanges(
                inserted: rowIDs(&random), deleted: rowIDs(&random), cleared: random.next() % 8 == 0)
            let fieldSets = (0..<3).map { _ in Set(fieldNames.filter { _ in random.next() % 2 == 0 }) }
            for rowID in rowIDs(&random) {
                changes.updated[rowID] = fieldSets[Int(random.next() % 3)]
            }
            entities["Entity\(index)"] = changes
        }
        return entities
    }

    static func normalized(_ entities: [String: LoggedChanges]) -> [String: LoggedChanges] {
        entities.mapValues {
            LoggedChanges(
                inserted: $0.inserted.sorted(), updated: $0.updated, deleted: $0.deleted.sorted(), cleared: $0.cleared)
        }
    }

    @Test(arguments: 0..<20)
    func encodingThenDecodingGivesTheSameChanges(round: Int) throws {
        var random = SplitMix64(seed: 0xC0DE + UInt64(round))
        for _ in 0..<50 {
            let changes = Self.randomChanges(&random)
            let bytes = CommitRecordCoding.encode(changes)
            let decoded = bytes.withUnsafeBytes { CommitRecordCoding.decode($0) }
            #expect(decoded.map(Self.normalized) == Self.normalized(changes), "seed \(random.seed)")
        }
    }

    @Test
    func onlyARecordThatClearsAnEntityIsWrittenInTheNewerFormat() {
        let plain = CommitRecordCoding.encode(["Person": LoggedChanges(deleted: [1, 2])])
        #expect(plain.first == CommitRecordCoding.formatVersion)
        let clearing = CommitRecordCoding.encode(["Person": LoggedChanges(cleared: true), "Pet": LoggedChanges(deleted: [3])])
        #expect(clearing.first == CommitRecordCoding.formatVersionWithFlags)
        let decoded = clearing.withUnsafeBytes { CommitRecordCoding.decode($0) }
        #expect(decoded?["Person"]?.cleared == true)
        #expect(decoded?["Pet"] == LoggedChanges(deleted: [3]))
    }

    @Test
    func aCommitOfManyNewRowsIsAFewBytes() {
        let inserted = LoggedChanges(inserted: Array(1...100_000))
        let bytes = CommitRecordCoding.encode(["Person": inserted])
        #expect(bytes.count < 20, "\(bytes.count) bytes")
        var updates = LoggedChanges()
        for rowID in Int64(1)...10 { updates.updated[rowID * 7] = ["name", "age"] }
        let typical = CommitRecordCoding.encode(["Person": updates])
        #expect(typical.count < 50, "\(typical.count) bytes for 10 updates")
    }

    @Test(arguments: 0..<4)
    func damagedBytesAreRefusedWithoutACrash(round: Int) {
        var random = SplitMix64(seed: 0xBAD + UInt64(round))
        for _ in 0..<200 {
            var bytes = CommitRecordCoding.encode(Self.randomChanges(&random))
            switch random.next() % 3 {
            case 0 where !bytes.isEmpty: bytes.removeLast(Int(random.next() % UInt64(bytes.count)) + 1)
            case 1 where !bytes.isEmpty: bytes[Int(random.next() % UInt64(bytes.count))] ^= UInt8(random.next() % 255 + 1)
            default: bytes.append(contentsOf: (0..<Int(random.next() % 9 + 1)).map { _ in UInt8(random.next() % 256) })
            }
            // Either refused, or read as some changes: never a trap or a huge allocation.
            _ = bytes.withUnsafeBytes { CommitRecordCoding.decode($0) }
        }
        let hugeCount: [UInt8] = [1, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F]
        #expect(hugeCount.withUnsafeBytes { CommitRecordCoding.decode($0) } == nil)
        let newerFormat: [UInt8] = [3, 0]
        #expect(newerFormat.withUnsafeBytes { CommitRecordCoding.decode($0) } == nil)
    }
}
