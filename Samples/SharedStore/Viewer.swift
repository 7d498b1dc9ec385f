import Foundation
import Strata

/// The first process: creates the store, starts the writer, and redraws the
/// list from its monitor's callbacks alone; then answers the writer's request.
@MainActor
final class Viewer: ListObserver {
    typealias ListEntityType = Todo

    private let stack: DataStack
    private let monitor: ListMonitor<Todo>
    private var redraws = 0
    /// Redraws caused by the writer's commits, and by this process's own.
    private var foreignRedraws = 0
    private var localRedraws = 0
    /// The to-do the writer asked the viewer to tick, once the list shows it.
    private var request: ObjectID<Todo>?

    init(stack: DataStack) throws {
        self.stack = stack
        monitor = try stack.monitorList(SharedList.query)
        monitor.addObserver(self)
    }

    func listMonitorDidChange(_ monitor: ListMonitor<Todo>) {
        redraws += 1
        // Set while observers hear of a merge: who committed, and whether it was here.
        guard let changeSet = stack.mergingChangeSet else { return draw("redraw \(redraws)") }
        if changeSet.isLocal { localRedraws += 1 } else { foreignRedraws += 1 }
        let origin = changeSet.isLocal ? "this process" : "another process"
        // Both processes read the same clock, so this is the commit-to-screen delay.
        let delay = Int(Date().timeIntervalSince(changeSet.date) * 1_000)
        draw(
            "redraw \(redraws): generation \(changeSet.generation) by "
                + "\(changeSet.author ?? "nobody") (\(origin)), \(describe(changeSet)), "
                + "\(delay) ms after the commit")
        // The writer's last commit asks for an answer: note which to-do to tick.
        let asked = monitor.objectsInAllSections().first { $0.title == SharedList.request }
        if request == nil, let asked, !asked.done { request = asked.objectID }
    }

    /// Sent instead when the stack met a change the log does not describe.
    func listMonitorDidRefetch(_ monitor: ListMonitor<Todo>) {
        redraws += 1
        draw("redraw \(redraws): the whole list was fetched again")
    }

    /// Prints `heading`, then the list as the monitor holds it now.
    func draw(_ heading: String) {
        let rows = monitor.objectsInAllSections().map { todo in
            "viewer │     P\(todo.priority) [\(todo.done ? "x" : " ")] \(todo.title)"
        }
        say((["viewer │ " + heading] + rows).joined(separator: "\n"))
    }

    private func describe(_ changeSet: ChangeSet) -> String {
        let counts = [
            ("inserted", changeSet.insertedRowIDs(entity: "Todo").count),
            ("updated", changeSet.updatedRowIDs(entity: "Todo").count),
            ("deleted", changeSet.deletedRowIDs(entity: "Todo").count),
        ]
        return counts.filter { $0.1 > 0 }.map { "\($0.1) \($0.0)" }.joined(separator: ", ")
    }
}

extension Viewer {
    /// Runs the whole sample in a fresh temporary folder, and returns the exit status.
    static func run() async -> Int32 {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("SharedStore-\(UUID().uuidString)", isDirectory: true)
        let watchdog = Watchdog(limit: .seconds(20)) { step in
            try? FileManager.default.removeItem(at: folder)
            say("viewer │ timed out after 20 s waiting for \(step); killed the writer")
        }
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let storeURL = folder.appendingPathComponent("todos.sqlite")
            let stack = try SharedList.openStack(at: storeURL, author: "viewer")
            try await stack.perform { tx in
                for (title, priority) in [("pay rent", 1), ("water the plants", 2)] {
                    let todo = tx.create(Into<Todo>())
                    todo.title = title
                    todo.priority = priority
                }
            }
            let viewer = try Viewer(stack: stack)
            viewer.draw("created \(storeURL.path); the list before the writer starts:")

            let writer = Process()
            writer.executableURL =
                Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
            writer.arguments = ["--writer", storeURL.path]
            try writer.run()
            defer { if writer.isRunning { writer.terminate() } }
            watchdog.watch(child: writer.processIdentifier)
            return try await viewer.follow(writer, watchdog: watchdog)
        } catch {
            say("viewer │ failed: \(error)")
            return 1
        }
    }

    /// While the monitor's callbacks redraw the writer's commits: answers its
    /// request, waits for it to exit, and sums up. Returns the exit status.
    private func follow(_ writer: Process, watchdog: Watchdog) async throws -> Int32 {
        watchdog.waiting(for: "the writer's request")
        await waitUntil { request != nil || !writer.isRunning }
        guard let request else {
            say("viewer │ the writer exited (status \(writer.terminationStatus)) before asking")
            return 1
        }
        // The reverse direction: a commit here that the writer's monitor must see.
        try await stack.perform { tx in tx.edit(request)?.done = true }
        say("viewer │ committed: ticked '\(SharedList.request)', as the writer asked")

        watchdog.waiting(for: "the writer to exit")
        await waitUntil { !writer.isRunning }
        guard writer.terminationReason == .exit, writer.terminationStatus == 0 else {
            say("viewer │ the writer failed (status \(writer.terminationStatus))")
            return 1
        }
        return try summarize()
    }

    /// Prints the final list and what the commit log holds; fails when a
    /// commit of the writer's did not redraw the list exactly once.
    private func summarize() throws -> Int32 {
        let history = try stack.history(after: 0)
        var authors: [String: Int] = [:]
        for record in history { authors[record.author ?? "nobody", default: 0] += 1 }
        let writerCommits = authors["writer"] ?? 0
        draw(
            "final list, at generation \(stack.mergedGeneration) "
                + "(the store's: \(try stack.currentGeneration())):")
        let counts = authors.sorted { $0.key < $1.key }.map { "\($0.value) by \($0.key)" }
        say(
            "viewer │ the commit log holds \(history.count) records: "
                + counts.joined(separator: ", "))
        say(
            "viewer │ redraws: \(foreignRedraws) from the writer's \(writerCommits) commits "
                + "(another process), \(localRedraws) from this process's")
        return foreignRedraws == writerCommits && writerCommits > 0 ? 0 : 1
    }
}
