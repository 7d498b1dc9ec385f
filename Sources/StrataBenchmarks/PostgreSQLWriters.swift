import Foundation
import Strata

/// The writers benchmark's model: one counter that every commit increments,
/// and a row per commit naming its writer.
final class WriterCounter: ManagedObject {
    @Field.Stored("value") var value: Int = 0
}

final class WriterEntry: ManagedObject {
    @Field.Stored("writer") var writer: Int = 0
    @Field.Stored("sequence") var sequence: Int = 0
}

let writersSchema = Schema(
    "V1", entities: [Entity<WriterCounter>("WriterCounter"), Entity<WriterEntry>("WriterEntry")])

/// The raw side's tables: Strata's, but the entries' row IDs come from an
/// identity column, as a hand-written schema would give them.
enum RawWritersSchema {
    static let createTables = """
        CREATE TABLE "WriterCounter" ("_pk" BIGINT PRIMARY KEY, "value" BIGINT);
        CREATE TABLE "WriterEntry" ("_pk" BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, "writer" BIGINT,
            "sequence" BIGINT);
        INSERT INTO "WriterCounter" VALUES (1, 0)
        """
    static let lockCounter = #"SELECT "value" FROM "WriterCounter" WHERE "_pk" = 1 FOR UPDATE"#
    static let setCounter = #"UPDATE "WriterCounter" SET "value" = $1 WHERE "_pk" = 1"#
    static let insertEntry = #"INSERT INTO "WriterEntry" ("writer", "sequence") VALUES ($1, $2)"#
}

/// Throughput of concurrent writers: `writers` processes, each making
/// ``commitsPerWriter`` small read-modify-write transactions on one store
/// (read the counter, write it plus one, insert an entry), against the
/// same through libpq; one writer alone, then three.
///
/// Per run, untimed: a new schema with the counter at 0 (for Strata, made
/// by a stack in this process), and the writer processes
/// (``PostgreSQLWriter``, `--postgresql-writer`) started, each with its
/// stack or connection open, its statements prepared, waiting on its
/// standard input. Timed: from the signal to go until the last writer has
/// exited, then the counter read. Checked after the run: the counter equals
/// the number of commits and there is an entry per commit (no lost update).
/// The CPU figure is this process's and its finished children's: the
/// writers, not the server.
@MainActor
enum PostgreSQLWriters {
    static let commitsPerWriter = 1_000

    static func run(in workspace: Workspace, settings: RunnerSettings) async throws {
        for writers in [1, 3] {
            let result = try await Runner(settings: settings).run(scenario(writers: writers, in: workspace))
            print(result.line)
            let commits = Double(writers * commitsPerWriter)
            func rate(_ timings: Timings) -> String {
                "\(Int(commits / timings.best.milliseconds * 1_000)) (med "
                    + "\(Int(commits / timings.medianMilliseconds * 1_000)))"
            }
            print(String(repeating: " ", count: 32)
                + "commits/s: strata \(rate(result.strata))   raw \(rate(result.raw))")
        }
    }

    private static func scenario(writers: Int, in workspace: Workspace) -> Scenario {
        let total = writers * commitsPerWriter
        func side(_ kind: PostgreSQLWriter.Kind) -> Side {
            Side {
                let schema = workspace.newSchema("writers")
                switch kind {
                case .strata:
                    let stack = try PostgreSQLFixtures.strataStack(schema: schema, writersSchema)
                    try stack.perform(synchronous: { tx in tx.create(Into<WriterCounter>()).value = 0 })
                case .raw:
                    let quoted = quotedIdentifier(schema)
                    try RawPostgreSQL(try PostgreSQLFixtures.connectionString()).execute(
                        "CREATE SCHEMA \(quoted); SET search_path TO \(quoted); \(RawWritersSchema.createTables)")
                }
                let connection = try RawPostgreSQL(try PostgreSQLFixtures.connectionString(), schema: schema)
                let processes = try (0..<writers).map { try WriterProcess(kind, schema: schema, writer: $0) }
                return Run(
                    body: {
                        for process in processes { try process.go() }
                        for process in processes { try process.waitForExit() }
                        return try connection.integer(#"SELECT "value" FROM "WriterCounter""#)
                    },
                    finish: {
                        let entries = try connection.integer(#"SELECT count(*) FROM "WriterEntry""#)
                        let counter = try connection.integer(#"SELECT "value" FROM "WriterCounter""#)
                        guard counter == total, entries == total else {
                            throw BenchmarkError(description:
                                "\(kind): counter \(counter) and \(entries) entries after \(total) commits")
                        }
                    })
            }
        }
        return Scenario(
            name: "pg \(writers) writer\(writers == 1 ? "" : "s") x \(commitsPerWriter) commits",
            strata: side(.strata), raw: side(.raw))
    }
}

/// A writer process, started and ready, waiting for the signal to go.
@MainActor
private final class WriterProcess {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()

    init(_ kind: PostgreSQLWriter.Kind, schema: String, writer: Int) throws {
        guard let executable = Bundle.main.executableURL else {
            throw BenchmarkError(description: "cannot find the benchmark executable")
        }
        process.executableURL = executable
        process.arguments = [
            PostgreSQLWriter.flag, kind.rawValue, schema, "\(writer)", "\(PostgreSQLWriters.commitsPerWriter)",
        ]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        // The writer says it is ready with one line; end of file means it failed.
        guard !output.fileHandleForReading.readData(ofLength: 1).isEmpty else {
            process.waitUntilExit()
            throw BenchmarkError(description: "a writer process failed with status \(process.terminationStatus)")
        }
    }

    func go() throws {
        try input.fileHandleForWriting.write(contentsOf: Data("g".utf8))
    }

    func waitForExit() throws {
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchmarkError(description: "a writer process failed with status \(process.terminationStatus)")
        }
    }
}
