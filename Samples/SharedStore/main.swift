import Foundation
import Strata
import Synchronization

// SharedStore: two processes share one SQLite store, and each one's live list
// follows the other's commits. Run it with `swift run SharedStore`.
//
// The program (the "viewer") creates a fresh store in a temporary folder and
// starts itself again as a second process, `SharedStore --writer <store>` (the
// "writer"), with a DataStack of its own. The writer inserts, updates and
// deletes to-dos; the viewer's ListMonitor redraws the list after each of
// those commits, which its stack reads from the store's commit log, and names
// their author. Then the reverse: the viewer answers the writer's last to-do
// with a commit of its own, which the writer's monitor sees before it exits.
// Lines starting `writer │` come from the second process. The whole run is
// bounded: after 20 s the viewer stops the writer and exits with status 1.

/// A to-do on the shared list, shown by priority (lowest first), then by title.
final class Todo: ManagedObject {
    @Field.Stored("title") var title: String = ""
    @Field.Stored("priority") var priority: Int = 2
    @Field.Stored("done") var done: Bool = false
}

/// What both processes open and watch.
enum SharedList {
    static let schema = Schema("V1", entities: [Entity<Todo>("Todo")])
    static let query = From<Todo>().orderBy(.ascending(\.$priority), .ascending(\.$title))
    /// The title of the writer's last to-do, which the viewer answers by ticking it.
    static let request = "review the list"

    /// A stack on the store at `url` whose commits are logged as `author`'s.
    @MainActor
    static func openStack(at url: URL, author: String) throws -> DataStack {
        let stack = DataStack(schema)
        stack.defaultAuthor = author
        try stack.addStorageAndWait(SQLiteStore(fileURL: url))
        return stack
    }
}

/// Prints `text` at once: both processes write to one terminal or pipe, and
/// piped output is block-buffered, which would shuffle their lines.
func say(_ text: String) {
    print(text)
    fflush(nil)  // all streams: `stdout` itself is not concurrency-safe to name
}

/// Waits until `condition` holds, sleeping between looks rather than
/// blocking: the stack polls the store for other writers' commits on the
/// main actor, so the main actor must stay free meanwhile. The `Watchdog`
/// bounds the wait.
@MainActor
func waitUntil(_ condition: () -> Bool) async {
    while !condition() {
        try? await Task.sleep(for: .milliseconds(10))
    }
}

/// Ends the process when it is still running after a time limit, stopping
/// the child process it was told about. It runs on a Dispatch queue, not on
/// the main actor, so it fires even when the main actor itself is stuck.
final class Watchdog: Sendable {
    private let state = Mutex<(step: String, child: pid_t?)>(("starting", nil))

    /// Calls `timedOut` with the step being waited for, then exits with status 1.
    init(limit: Duration, timedOut: @escaping @Sendable (String) -> Void) {
        let seconds = Double(limit.components.seconds)
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [self] in
            let (step, child) = state.withLock { $0 }
            if let child { kill(child, SIGKILL) }
            timedOut(step)
            exit(1)
        }
    }

    /// Names what the process waits for now, for the time-out message.
    func waiting(for step: String) { state.withLock { $0.step = step } }

    /// The child process to stop on a time-out.
    func watch(child: pid_t) { state.withLock { $0.child = child } }
}

let arguments = CommandLine.arguments
if let flag = arguments.firstIndex(of: "--writer"), flag + 1 < arguments.count {
    exit(await Writer.run(storeURL: URL(fileURLWithPath: arguments[flag + 1])))
} else {
    exit(await Viewer.run())
}
