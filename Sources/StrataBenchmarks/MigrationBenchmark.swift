import Foundation
import Strata

/// The migration benchmark's model: V1 → V2 renames `name` to `label` and adds `weight`.
final class MigrationBenchV1: ManagedObject {
    @Field.Stored("number", .indexed) var number: Int = 0
    @Field.Stored("name") var name: String = ""
}

final class MigrationBenchV2: ManagedObject {
    @Field.Stored("number", .indexed) var number: Int = 0
    @Field.Stored("label", renamingIdentifier: "name") var label: String = ""
    @Field.Stored("weight") var weight: Double = 1.5
}

/// Time and peak resident memory of an inferred migration of `count` rows.
///
/// The V1 rows are written with one raw `INSERT … SELECT`, so that filling the
/// store does not raise the process's peak; then `addStorageAndWait` migrates
/// it. The peak (`VmHWM` in `/proc/self/status`) is read before and after;
/// run each size in a process of its own, since the peak never goes down.
@MainActor
enum MigrationBenchmark {
    static let schemaV1 = Schema("V1", entities: [Entity<MigrationBenchV1>("Row")])
    static let schemaV2 = Schema("V2", entities: [Entity<MigrationBenchV2>("Row")])

    static func run(count: Int, in workspace: Workspace) throws {
        let url = workspace.newFile("migration")
        do {
            let stack = DataStack(schemaV1)
            try stack.addStorageAndWait(SQLiteStore(fileURL: url))
        }
        do {
            let raw = try RawDatabase(url)
            try raw.execute("""
                BEGIN;
                WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < \(count))
                INSERT INTO "Row" ("_pk", "number", "name") SELECT x, x, 'row ' || x FROM n;
                INSERT OR REPLACE INTO _strata_sequence (entity, last) VALUES ('Row', \(count));
                COMMIT;
                PRAGMA wal_checkpoint(TRUNCATE);
                """)
        }
        let before = peakResidentKilobytes()
        let history = SchemaHistory([schemaV1, schemaV2], chain: ["V1", "V2"])
        let stack = DataStack(schemaHistory: history)
        let start = ContinuousClock.now
        try stack.addStorageAndWait(SQLiteStore(fileURL: url))
        let elapsed = ContinuousClock.now - start
        let after = peakResidentKilobytes()
        let migrated = try stack.fetchCount(From<MigrationBenchV2>().where(\.$weight == 1.5))
        guard migrated == count else {
            throw BenchmarkError(description: "migrated \(migrated) rows of \(count)")
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
        print(
            "migration \(count.formatted()) rows (rename + add)   "
                + "\(elapsed.formatted(.units(allowed: [.seconds, .milliseconds], width: .narrow)))   "
                + "peak RSS before \(before / 1024) MB, after \(after / 1024) MB   "
                + "file \(size / 1_048_576) MB")
    }

    /// `VmHWM`, the process's peak resident set size so far, in kilobytes; 0 off Linux.
    static func peakResidentKilobytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        }
        return 0
    }
}
