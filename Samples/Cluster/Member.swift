import Foundation
import Strata

/// One of the three processes on the shared store, as an app server would be:
/// commits its notes, prints its live list at every change, and reports the
/// list once it holds every member's notes.
@MainActor
final class Member: ListObserver {
    typealias ListEntityType = Note

    private let name: String
    private let stack: DataStack
    private let monitor: ListMonitor<Note>

    init(name: String, stack: DataStack) throws {
        self.name = name
        self.stack = stack
        monitor = try stack.monitorList(Cluster.notes)
        monitor.addObserver(self)
    }

    func listMonitorDidChange(_ monitor: ListMonitor<Note>) {
        // Set while observers hear of a merge: whose commit this is.
        let author = stack.mergingChangeSet?.author ?? "another writer"
        say(name, "\(Cluster.line(monitor.objectsInAllSections())) after \(author)'s commit")
    }

    /// Sent instead when the stack met a change the commit log does not describe.
    func listMonitorDidRefetch(_ monitor: ListMonitor<Note>) {
        say(name, "\(Cluster.line(monitor.objectsInAllSections())) fetched again")
    }

    /// Opens the store, commits this member's notes, waits until the list
    /// holds everyone's, reports it, and returns the exit status.
    static func run(name: String, schema: String) async -> Int32 {
        _ = Watchdog(seconds: 45, name: name)
        do {
            // From the environment, not the command line, which `ps` shows to everyone.
            let connectionString =
                ProcessInfo.processInfo.environment["STRATA_POSTGRESQL_URL"] ?? ""
            let stack = try Cluster.openStack(connectionString, schema: schema, author: name)
            let member = try Member(name: name, stack: stack)
            say(name, "opened the store with a stack of its own (process \(getpid()))")
            try await member.commitNotes()
            let everyNote = Cluster.members.count * Cluster.notesPerMember
            await waitUntil { member.monitor.numberOfObjects() == everyNote }
            try await member.report()
            return 0
        } catch {
            say(name, "failed: \(error)")
            return 1
        }
    }

    /// Commits "A1", "A2", … one at a time, with pauses of a length of this
    /// member's own, so that the members' commits interleave.
    private func commitNotes() async throws {
        let pause = 150 + 70 * (Cluster.members.firstIndex(of: name) ?? 0)
        for number in 1...Cluster.notesPerMember {
            try await Task.sleep(for: .milliseconds(pause))
            let text = "\(name)\(number)"
            try await stack.perform { tx in tx.create(Into<Note>()).text = text }
        }
    }

    /// Commits the list this process shows as its report to the coordinator.
    private func report() async throws {
        let list = Cluster.line(monitor.objectsInAllSections())
        let name = name
        try await stack.perform { tx in
            let report = tx.create(Into<Report>())
            report.member = name
            report.list = list
        }
        say(name, "holds every note; reported \(list)")
    }
}
