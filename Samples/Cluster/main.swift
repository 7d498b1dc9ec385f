import Foundation
import Strata
import StrataPostgreSQL
import Synchronization
import ThrowawayPostgreSQL

// Cluster: three processes share one PostgreSQL store, as three app servers
// would, and each one's live list follows every commit. Run it with
// `swift run Cluster` (a throwaway server is started and stopped for you), or
// `swift run Cluster '<libpq connection string>'` to use a server of yours;
// `STRATA_POSTGRESQL_URL` works too.
//
// The program (the "coordinator") creates a fresh store, a PostgreSQL schema,
// and starts itself three more times as `Cluster --member <name> <schema>`: the
// members A, B and C. Each opens a DataStack of its own on the store, commits
// three notes, and prints its ListMonitor's list whenever it changes, naming
// who committed. Once its list holds all nine notes, a member reports the list
// it shows by committing it as a `Report`; the coordinator's own monitor of
// reports sees the three arrive, checks they are equal, and exits. Lines start
// with the process they come from. The run is bounded: after 60 s the
// coordinator stops the members and exits with status 1. On a server of yours
// the schema (`cluster_<number>`, printed) stays; `DROP SCHEMA … CASCADE` it.

/// A note a member commits, listed by its text ("A1", "B2", …).
final class Note: ManagedObject {
    @Field.Stored("text") var text: String = ""
}

/// The list a member showed once it held every note: its last word.
final class Report: ManagedObject {
    @Field.Stored("member") var member: String = ""
    @Field.Stored("list") var list: String = ""
}

/// What every process opens and watches.
enum Cluster {
    static let schema = Schema("V1", entities: [Entity<Note>("Note"), Entity<Report>("Report")])
    static let members = ["A", "B", "C"]
    static let notesPerMember = 3
    static let notes = From<Note>().orderBy(.ascending(\.$text))

    /// A stack on the store in `schema` of the server `connectionString`
    /// names, whose commits are logged as `author`'s.
    @MainActor
    static func openStack(_ connectionString: String, schema: String, author: String) throws
        -> DataStack
    {
        let stack = DataStack(Cluster.schema)
        stack.defaultAuthor = author
        try stack.addStorageAndWait(
            PostgreSQLStore(connectionString: connectionString, schema: schema))
        return stack
    }

    /// A list of notes as one line: `[A1 A2 B1]`.
    static func line(_ notes: [Note]) -> String {
        "[" + notes.map(\.text).joined(separator: " ") + "]"
    }
}

/// Prints `text` as a line of `speaker`'s, at once: four processes write to
/// one terminal or pipe, and piped output is block-buffered, which would
/// shuffle their lines.
func say(_ speaker: String, _ text: String) {
    print(speaker.padding(toLength: 7, withPad: " ", startingAt: 0) + " │ " + text)
    fflush(nil)  // all streams: `stdout` itself is not concurrency-safe to name
}

/// Waits until `condition` holds, sleeping between looks rather than
/// blocking: the stack follows the store on the main actor, so the main
/// actor must stay free meanwhile.
@MainActor
func waitUntil(_ condition: () -> Bool) async {
    while !condition() {
        try? await Task.sleep(for: .milliseconds(10))
    }
}

/// Ends the process with status 1 when it is still running after `seconds`,
/// first stopping the child processes it was told about. It runs on a
/// Dispatch queue, so it fires even when the main actor is stuck.
final class Watchdog: Sendable {
    private let children = Mutex<[pid_t]>([])

    init(seconds: Int, name: String) {
        DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(seconds)) { [self] in
            for child in children.withLock({ $0 }) { kill(child, SIGKILL) }
            say(name, "timed out after \(seconds) s")
            exit(1)
        }
    }

    func watch(child: pid_t) { children.withLock { $0.append(child) } }
}

let arguments = CommandLine.arguments
if arguments.count == 4, arguments[1] == "--member" {
    exit(await Member.run(name: arguments[2], schema: arguments[3]))
} else {
    exit(await Coordinator.run(connectionString: arguments.count > 1 ? arguments[1] : nil))
}
