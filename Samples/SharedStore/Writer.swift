import Foundation
import Strata

/// The second process: commits changes to the shared list one at a time,
/// then waits until its own monitor shows the viewer's answer.
@MainActor
final class Writer: ListObserver {
    typealias ListEntityType = Todo

    private let stack: DataStack
    private let monitor: ListMonitor<Todo>
    /// Whether the viewer has ticked the request, as this process's list shows it.
    private var isAnswered = false

    init(stack: DataStack) throws {
        self.stack = stack
        monitor = try stack.monitorList(SharedList.query)
        monitor.addObserver(self)
    }

    func listMonitorDidChange(_ monitor: ListMonitor<Todo>) {
        // This process's own commits redraw its list too; only the viewer's are news.
        guard let changeSet = stack.mergingChangeSet, !changeSet.isLocal else { return }
        let done = monitor.objectsInAllSections().filter(\.done).map(\.title)
        say(
            "writer │ saw generation \(changeSet.generation) by \(changeSet.author ?? "nobody") "
                + "(another process); done now: \(done.joined(separator: ", "))")
        isAnswered = monitor.objectsInAllSections().contains {
            $0.title == SharedList.request && $0.done
        }
    }

    /// One commit of the writer's script: what it does, and the change itself.
    struct Step: Sendable {
        typealias Change = @Sendable (AsynchronousDataTransaction) throws -> Void
        let what: String
        let change: Change

        init(_ what: String, change: @escaping Change) {
            self.what = what
            self.change = change
        }
    }

    static let steps = [
        Step("added 'buy milk' and 'call the plumber'") { tx in
            add("buy milk", priority: 2, in: tx)
            add("call the plumber", priority: 1, in: tx)
        },
        Step("moved 'buy milk' to priority 1") { tx in try find("buy milk", tx)?.priority = 1 },
        Step("ticked 'water the plants'") { tx in try find("water the plants", tx)?.done = true },
        Step("deleted 'call the plumber'") { tx in tx.delete(try find("call the plumber", tx)) },
        Step("asked the viewer to '\(SharedList.request)'") { tx in
            add(SharedList.request, priority: 0, in: tx)
        },
    ]

    /// Opens the store at `storeURL`, plays the script, waits for the
    /// viewer's answer, and returns the exit status.
    static func run(storeURL: URL) async -> Int32 {
        // Shorter than the viewer's limit, so the viewer hears why the writer stopped.
        let watchdog = Watchdog(limit: .seconds(12)) { step in
            say("writer │ gave up after 12 s waiting for \(step)")
        }
        do {
            let stack = try SharedList.openStack(at: storeURL, author: "writer")
            let writer = try Writer(stack: stack)
            say("writer │ opened the same store with a stack of its own (process \(getpid()))")
            watchdog.waiting(for: "its own commits")
            for step in steps {
                // A pause between commits, so that each shows as a redraw a person can follow.
                try await Task.sleep(for: .milliseconds(250))
                // Returns once the commit is merged here: the viewer has not written
                // since, so the merged generation is this commit's.
                try await stack.perform(step.change)
                say("writer │ committed generation \(stack.mergedGeneration): \(step.what)")
            }
            watchdog.waiting(for: "the viewer's answer")
            await waitUntil { writer.isAnswered }
            say("writer │ got the viewer's answer; exiting")
            return 0
        } catch {
            say("writer │ failed: \(error)")
            return 1
        }
    }

    /// Inserts a to-do in `tx`.
    private nonisolated static func add(
        _ title: String, priority: Int, in tx: AsynchronousDataTransaction
    ) {
        let todo = tx.create(Into<Todo>())
        todo.title = title
        todo.priority = priority
    }

    /// The to-do titled `title`, as `tx` sees it.
    private nonisolated static func find(
        _ title: String, _ tx: AsynchronousDataTransaction
    ) throws -> Todo? {
        try tx.fetchOne(From<Todo>().where(\.$title == title))
    }
}
