import Foundation
import Synchronization

/// A PostgreSQL server for Strata's tests, samples and benchmarks: the one
/// the environment names, or a throwaway one of this process's own.
///
/// - `STRATA_POSTGRESQL_URL` set: that server (a libpq connection string or
///   `postgresql://` URL); the tests create schemas in it named `strata_test_…`.
/// - `STRATA_POSTGRESQL=off`: the PostgreSQL suites are turned off, and
///   Swift Testing lists each as skipped with that reason.
/// - Otherwise: a throwaway server, started on first use with `initdb` into a
///   temporary folder, listening only on a private Unix socket, run by an
///   unprivileged user when the tests run as root, and stopped (its folder
///   removed) when the test process exits. Exit-test children and processes
///   the tests spawn inherit `STRATA_POSTGRESQL_URL` and share it.
///
/// Without a server binary the suites fail, naming the package to install.
public final class PostgreSQLServer: Sendable {
    /// The connection string of the server's `strata` database.
    public let connectionString: String
    /// The folder of a server this process started, `nil` for one it was given.
    public let dataDirectory: URL?
    private let binaries: URL?
    private let owner: String?

    /// Whether the PostgreSQL suites run (`STRATA_POSTGRESQL` is not `off`).
    public static let isEnabled = ProcessInfo.processInfo.environment["STRATA_POSTGRESQL"] != "off"

    /// The server every PostgreSQL suite shares, started on first use.
    public static func shared() throws -> PostgreSQLServer {
        try sharedServer.get()
    }

    private static let sharedServer: Result<PostgreSQLServer, PostgreSQLServerError> = {
        do {
            if let given = ProcessInfo.processInfo.environment["STRATA_POSTGRESQL_URL"] {
                return .success(PostgreSQLServer(given: given))
            }
            let server = try PostgreSQLServer.start()
            setenv("STRATA_POSTGRESQL_URL", server.connectionString, 1)
            stopAtExit.withLock { $0 = server }
            atexit { PostgreSQLServer.stopAtExit.withLock { $0?.stop(); $0 = nil } }
            return .success(server)
        } catch let error as PostgreSQLServerError {
            return .failure(error)
        } catch {
            return .failure(PostgreSQLServerError(message: "\(error)"))
        }
    }()

    private static let stopAtExit = Mutex<PostgreSQLServer?>(nil)

    private init(given: String) {
        connectionString = given
        dataDirectory = nil
        binaries = nil
        owner = nil
    }

    private init(connectionString: String, dataDirectory: URL, binaries: URL, owner: String?) {
        self.connectionString = connectionString
        self.dataDirectory = dataDirectory
        self.binaries = binaries
        self.owner = owner
    }

    /// Starts a private server of this process's own (the fault tests restart
    /// theirs), with `fsync` off: the tests stop processes, never the machine.
    public static func start() throws -> PostgreSQLServer {
        let binaries = try findBinaries()
        let folder = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("strata-postgresql-\(UUID().uuidString.prefix(8))")
        let data = folder.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let owner = getuid() == 0 ? unprivilegedUser() : nil
        if let owner { try run("/bin/chown", ["-R", owner, folder.path]) }
        let server = PostgreSQLServer(
            connectionString: "host=\(folder.path) port=5432 dbname=strata user=strata",
            dataDirectory: data, binaries: binaries, owner: owner)
        try server.tool("initdb", [
            "-D", data.path, "-U", "strata", "--auth=trust", "-E", "UTF8", "--locale=C",
            "--no-sync",
        ])
        try server.startServer(socketFolder: folder)
        try server.tool("createdb", ["-h", folder.path, "-p", "5432", "-U", "strata", "strata"])
        server.watchParent(folder: folder)
        return server
    }

    /// Stops the server immediately (as a crash would) and starts it again on
    /// the same data: connections drop, committed data stays.
    public func restart() throws {
        guard let dataDirectory else { return }
        try tool("pg_ctl", ["-D", dataDirectory.path, "-m", "immediate", "-w", "stop"])
        try startServer(socketFolder: dataDirectory.deletingLastPathComponent())
    }

    /// Stops the server and removes its folder.
    public func stop() {
        guard let dataDirectory else { return }
        try? tool("pg_ctl", ["-D", dataDirectory.path, "-m", "immediate", "-w", "stop"])
        try? FileManager.default.removeItem(at: dataDirectory.deletingLastPathComponent())
    }

    private func startServer(socketFolder: URL) throws {
        guard let dataDirectory else { return }
        let options = [
            "-c listen_addresses=''", "-k \(socketFolder.path)", "-p 5432", "-c fsync=off",
            "-c full_page_writes=off", "-c max_connections=1000",
        ].joined(separator: " ")
        try tool("pg_ctl", [
            "-D", dataDirectory.path, "-o", options, "-l",
            socketFolder.appendingPathComponent("server.log").path, "-w", "-t", "60", "start",
        ])
    }

    /// A shell that waits for this process to end and then stops the server:
    /// a test process that crashes never runs its exit handler.
    private func watchParent(folder: URL) {
        guard let dataDirectory, let binaries else { return }
        let stop = asOwner(binaries.appendingPathComponent("pg_ctl").path,
                           ["-D", dataDirectory.path, "-m", "immediate", "-w", "stop"])
        let quoted = stop.map { "'\($0)'" }.joined(separator: " ")
        // `kill -0` succeeds on a zombie: a test process that has exited but
        // is not yet reaped counts as ended too (state Z in /proc).
        let pid = getpid()
        let script = "while kill -0 \(pid) 2>/dev/null && "
            + "[ \"$(sed 's/.*) //' /proc/\(pid)/stat 2>/dev/null | cut -c1)\" != Z ]; do sleep 1; done; "
            + "\(quoted) >/dev/null 2>&1; rm -rf '\(folder.path)'"
        _ = try? Self.spawn("/usr/bin/setsid", ["/bin/sh", "-c", script], output: "/dev/null")
    }

    private func tool(_ name: String, _ arguments: [String]) throws {
        guard let binaries else { return }
        let command = asOwner(binaries.appendingPathComponent(name).path, arguments)
        try Self.run(command[0], Array(command.dropFirst()))
    }

    /// The command line that runs `program` as the server's owner.
    private func asOwner(_ program: String, _ arguments: [String]) -> [String] {
        guard let owner else { return [program] + arguments }
        return ["/usr/sbin/runuser", "-u", owner, "--", program] + arguments
    }

    /// Runs `program` and waits for it. Its output goes to a file, not a pipe:
    /// the server `pg_ctl` starts inherits the descriptors and would hold a
    /// pipe open for as long as it runs. `posix_spawn` and `waitpid` rather
    /// than Foundation's `Process`, whose exit monitoring left `runuser` a
    /// zombie here and waited forever.
    private static func run(_ program: String, _ arguments: [String]) throws {
        let log = NSTemporaryDirectory() + "strata-postgresql-\(UUID().uuidString.prefix(8)).out"
        defer { unlink(log) }
        let pid = try spawn(program, arguments, output: log)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exited = status & 0x7f == 0
        let code = (status >> 8) & 0xff
        guard exited && code == 0 else {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw PostgreSQLServerError(
                message: "\(program) \(arguments.joined(separator: " ")) failed "
                    + "(status \(status)): \(text)")
        }
    }

    /// Starts `program` with its output appended to the file at `output`, and
    /// no other descriptor of this process: the server and the watching shell
    /// outlive the test that starts them, and a pipe end they inherited (a
    /// compiler's output another test reads to its end, an exit test's back
    /// channel, `Process`'s exit monitor) would stay open as long as they run.
    private static func spawn(_ program: String, _ arguments: [String], output: String) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        closeEveryOtherDescriptor(&actions)
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, program, &actions, nil, argv, environ)
        guard code == 0 else {
            throw PostgreSQLServerError(message: "cannot start \(program): error \(code)")
        }
        return pid
    }

    /// Adds to `actions` the closing of every descriptor above 2. glibc 2.34's
    /// `posix_spawn_file_actions_addclosefrom_np` does it as the child starts
    /// (Swift's Glibc module does not declare it, so it is looked up); without
    /// it, the descriptors open now are named one by one, which misses one
    /// another thread opens before the spawn.
    private static func closeEveryOtherDescriptor(_ actions: inout posix_spawn_file_actions_t) {
        typealias CloseFrom = @convention(c) (
            UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32
        ) -> Int32
        if let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") {
            _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
            return
        }
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for descriptor in open.compactMap({ Int32($0) }) where descriptor > 2 {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
    }

    /// The folder of `initdb` and `pg_ctl`: `pg_config --bindir`, or Debian's
    /// `/usr/lib/postgresql/<version>/bin`, newest first.
    private static func findBinaries() throws -> URL {
        let manager = FileManager.default
        let root = "/usr/lib/postgresql"
        let versions = ((try? manager.contentsOfDirectory(atPath: root)) ?? [])
            .sorted { (Int($0) ?? 0) > (Int($1) ?? 0) }
        for version in versions {
            let folder = URL(fileURLWithPath: "\(root)/\(version)/bin")
            if manager.isExecutableFile(atPath: folder.appendingPathComponent("initdb").path) {
                return folder
            }
        }
        for folder in ["/usr/local/pgsql/bin", "/usr/local/bin", "/usr/bin"] {
            if manager.isExecutableFile(atPath: folder + "/initdb") {
                return URL(fileURLWithPath: folder)
            }
        }
        throw PostgreSQLServerError(message: """
            no PostgreSQL server binaries (initdb) found: install the package `postgresql` \
            (Debian/Ubuntu: apt-get install -y postgresql libpq-dev), or set \
            STRATA_POSTGRESQL_URL to an existing server, or STRATA_POSTGRESQL=off to turn the \
            PostgreSQL suites off
            """)
    }

    /// `postgres` where the package created it, else `nobody`.
    private static func unprivilegedUser() -> String {
        getpwnam("postgres") != nil ? "postgres" : "nobody"
    }
}

/// Why the tests have no PostgreSQL server.
public struct PostgreSQLServerError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
