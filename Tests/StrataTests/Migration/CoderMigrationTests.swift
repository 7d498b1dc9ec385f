import Foundation
import Testing
@testable import Strata

// A `@Field.Coded` field kept as JSON text, then given a `coder:`: its column
// becomes a BLOB, and the migration keeps every value.

final class CodedNoteV1: ManagedObject {
    @Field.Stored("position") var position: Int = 0
    @Field.Coded("info") var info: CoderInfo? = nil
    @Field.Coded("lines") var lines: [String] = []
}

final class CodedNoteV2: ManagedObject {
    @Field.Stored("position") var position: Int = 0
    @Field.Coded("info", coder: FieldCoders.Json.self) var info: CoderInfo?
    @Field.Coded("lines", coder: FieldCoders.Json.self) var lines: [String] = []
}

private let codedNoteV1 = Schema("V1", entities: [Entity<CodedNoteV1>("Note")])
private let codedNoteV2 = Schema("V2", entities: [Entity<CodedNoteV2>("Note")])

@Suite("Coded fields given a coder")
struct CoderMigrationTests {
    /// Random JSON values (backslashes, quotes, non-ASCII, NULs among them),
    /// written as text by version 1, read back unchanged through
    /// `FieldCoders.Json` once the step has made the columns BLOBs.
    @Test(arguments: migratingKinds)
    @MainActor
    func jsonTextBecomesTheCodersBytes(_ kind: StoreKind) async throws {
        var random = SplitMix64.random()
        let directory = TemporaryDirectory()
        let texts = ["", "é", "a\\b", "\"q\"", "\\x41", "ß ı", "\u{0}", "/slash/"]
        var written: [(CoderInfo?, [String])] = []
        do {
            let stack = DataStack(codedNoteV1)
            try stack.addStorageAndWait(makeStorage(kind, in: directory))
            written = try stack.perform(synchronous: { tx in
                (0..<30).map { position in
                    let note = tx.create(Into<CodedNoteV1>())
                    note.position = position
                    note.info = Bool.random(using: &random) ? nil : CoderInfo(
                        label: texts.randomElement(using: &random)!,
                        scores: [texts.randomElement(using: &random)!: Int.random(in: -9...9, using: &random)])
                    note.lines = (0..<Int.random(in: 0...3, using: &random)).map { _ in
                        texts.randomElement(using: &random)!
                    }
                    return (note.info, note.lines)
                }
            })
            try stack.removeStorage()
        }
        try await settleStore(kind, in: directory)
        let stack = DataStack(schemaHistory: SchemaHistory([codedNoteV1, codedNoteV2], chain: ["V1", "V2"]))
        try await stack.addStorage(makeStorage(kind, in: directory))
        let notes = try stack.fetchAll(From<CodedNoteV2>().orderBy(.ascending(\.$position)))
        #expect(notes.map { $0.info } == written.map(\.0), "seed \(random.seed)")
        #expect(notes.map { $0.lines } == written.map(\.1), "seed \(random.seed)")
        let entity = try #require(codedNoteV2.entity(named: "Note"))
        #expect(entity.attributes.filter { $0.kind == .coded }.allSatisfy { $0.storedType == .blob })
    }
}
