import Foundation
import Strata

/// The writers benchmark's writer process:
/// `StrataBenchmarks --postgresql-writer <strata|raw> <schema> <writer> <commits>`.
///
/// Opens its stack (or connection, its statements prepared), writes one
/// line to say it is ready, waits for a byte on its standard input, then
/// makes `commits` transactions, each reading the counter, writing it plus
/// one and inserting an entry, and exits.
///
/// - Strata: `stack.perform(synchronous:)` editing the counter by its ID
///   (which takes the store's write lock before reading it) and creating a
///   ``WriterEntry``.
/// - Raw: `BEGIN`, `SELECT … FOR UPDATE` of the counter row, `UPDATE` it,
///   `INSERT` the entry, `COMMIT`: the three statements prepared, their
///   parameters in binary.
@MainActor
enum PostgreSQLWriter {
    static let flag = "--postgresql-writer"

    enum Kind: String {
        case strata, raw
    }

    static func run(_ arguments: [String]) throws {
        guard arguments.count == 4, let kind = Kind(rawValue: arguments[0]), let writer = Int(arguments[2]),
              let commits = Int(arguments[3])
        else {
            throw BenchmarkError(description: "usage: \(flag) <strata|raw> <schema> <writer> <commits>")
        }
        let schema = arguments[1]
        switch kind {
        case .strata:
            let stack = try PostgreSQLFixtures.strataStack(schema: schema, writersSchema)
            stack.defaultAuthor = "writer-\(writer)"
            guard let counter = try stack.fetchObjectIDs(From<WriterCounter>()).first else {
                throw BenchmarkError(description: "the writers store has no counter")
            }
            try waitForSignal()
            // Nothing here observes: the writer's throughput is its commits', as raw's is.
            for sequence in 0..<commits {
                try stack.perform(synchronous: { tx in
                    guard let object = tx.edit(counter) else {
                        throw BenchmarkError(description: "the counter is gone")
                    }
                    object.value += 1
                    let entry = tx.create(Into<WriterEntry>())
                    entry.writer = writer
                    entry.sequence = sequence
                }, waitForAllObservers: false)
            }
        case .raw:
            let connection = try RawPostgreSQL(try PostgreSQLFixtures.connectionString(), schema: schema)
            let lock = try connection.prepare(RawWritersSchema.lockCounter)
            let set = try connection.prepare(RawWritersSchema.setCounter, types: [RawPostgreSQLType.int8])
            let insert = try connection.prepare(
                RawWritersSchema.insertEntry, types: [RawPostgreSQLType.int8, RawPostgreSQLType.int8])
            let parameters = RawParameters(capacity: 2)
            try waitForSignal()
            for sequence in 0..<commits {
                try connection.execute("BEGIN")
                let value = try lock.run().int64(0, 0)
                parameters.removeAll()
                parameters.append(value + 1)
                _ = try set.run(parameters)
                parameters.removeAll()
                parameters.append(Int64(writer))
                parameters.append(Int64(sequence))
                _ = try insert.run(parameters)
                try connection.execute("COMMIT")
            }
        }
    }

    /// Says it is ready (a line on standard output), then waits for a byte on standard input.
    private static func waitForSignal() throws {
        print("ready")
        fflush(nil)
        guard !FileHandle.standardInput.readData(ofLength: 1).isEmpty else {
            throw BenchmarkError(description: "writer: no signal to go")
        }
    }
}
