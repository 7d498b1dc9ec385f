import Foundation
import Strata
import ThrowawayPostgreSQL

/// The first process: makes a fresh store, starts the three members, and
/// waits until their reports show one list.
@MainActor
enum Coordinator {
    /// Runs the whole sample on the server `given` names (or on
    /// ``PostgreSQLServer``'s), and returns the exit status.
    static func run(connectionString given: String?) async -> Int32 {
        do {
            let connectionString = try given ?? server()
            // The members read it from here (see Member.run).
            setenv("STRATA_POSTGRESQL_URL", connectionString, 1)
            let watchdog = Watchdog(seconds: 60, name: "cluster")
            // A schema of its own for each run: nothing an earlier run left is in the way.
            let schema = "cluster_\(UInt32.random(in: 0 ... .max))"
            let stack = try Cluster.openStack(
                connectionString, schema: schema, author: "coordinator")
            let reports = try stack.monitorList(From<Report>().orderBy(.ascending(\.$member)))
            say("cluster", "created the store (schema \(schema)); starting members A, B and C")
            var members: [pid_t] = []
            for name in Cluster.members {
                members.append(try launchMember(name, schema: schema))
                watchdog.watch(child: members.last!)
            }
            return try await converge(stack, reports, members)
        } catch {
            say("cluster", "failed: \(error)")
            return 1
        }
    }

    /// The connection string of `STRATA_POSTGRESQL_URL`, or of a throwaway
    /// server started now, which stops when this process exits.
    private static func server() throws -> String {
        let server = try PostgreSQLServer.shared()
        if let data = server.dataDirectory {
            let folder = data.deletingLastPathComponent().path
            say("cluster", "started a throwaway PostgreSQL server in \(folder)")
        }
        return server.connectionString
    }

    /// Starts this program again as member `name` of the store in `schema`,
    /// writing to the same terminal. With `posix_spawn` rather than
    /// Foundation's `Process`, the coordinator reaps its members itself with
    /// `waitpid`, as ThrowawayPostgreSQL does with the server's tools.
    private static func launchMember(_ name: String, schema: String) throws -> pid_t {
        let program =
            FileManager.default.fileExists(atPath: "/proc/self/exe")
            ? "/proc/self/exe" : CommandLine.arguments[0]
        let words = [CommandLine.arguments[0], "--member", name, schema]
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, program, nil, nil, argv, environ)
        guard code == 0 else { throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO) }
        return pid
    }

    /// Waits for the members to exit and for this process's monitor to show
    /// their three reports, then prints the list when every member showed the
    /// same one, which is also the store's.
    private static func converge(
        _ stack: DataStack, _ reports: ListMonitor<Report>, _ members: [pid_t]
    ) async throws -> Int32 {
        var statuses: [pid_t: Int32] = [:]  // as `waitpid` gives them: 0 is "exited with 0"
        await waitUntil {
            for pid in members where statuses[pid] == nil {
                var status: Int32 = 0
                if waitpid(pid, &status, WNOHANG) == pid { statuses[pid] = status }
            }
            let failed = statuses.values.contains { $0 != 0 }
            return failed
                || statuses.count == members.count && reports.numberOfObjects() == members.count
        }
        guard statuses.values.allSatisfy({ $0 == 0 }) else {
            say("cluster", "a member failed")
            return 1
        }
        let store = Cluster.line(try stack.fetchAll(Cluster.notes))
        for report in reports.objectsInAllSections() {
            say("cluster", "\(report.member) reported \(report.list)")
        }
        guard reports.objectsInAllSections().allSatisfy({ $0.list == store }) else {
            say("cluster", "the members did not converge; the store holds \(store)")
            return 1
        }
        say("cluster", "converged: all \(members.count) members show \(store), as the store holds")
        return 0
    }
}
