import Foundation

/// The files behind ``InMemoryStore``s.
///
/// An in-memory store is an ordinary WAL database in a RAM file system, so
/// that its reader connection reads committed data while a transaction holds
/// the writer, exactly as for a file store. (SQLite's `memdb` VFS has no WAL:
/// it refuses readers while a writer holds its lock.)
///
/// Layout: `<ramDirectory>/strata-memory-<process UUID>/<store name>.sqlite`
/// (plus `-wal` and `-shm`). The process folder exists only while a store in
/// it is open, and holds `owner.lock`, `flock`ed for as long as the folder
/// exists: a folder whose lock can be taken belongs to a process that died
/// without cleaning up (a crash, `SIGKILL`), and is swept away whenever a
/// process creates its own folder.
enum MemoryStoreFiles {
    /// `/dev/shm` on Linux when it exists and is writable, else the temporary directory.
    static let ramDirectory: URL = {
        #if os(Linux)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: "/dev/shm", isDirectory: &isDirectory),
           isDirectory.boolValue, FileManager.default.isWritableFile(atPath: "/dev/shm") {
            return URL(fileURLWithPath: "/dev/shm", isDirectory: true)
        }
        #endif
        return FileManager.default.temporaryDirectory
    }()

    static let folderPrefix = "strata-memory-"
    private static let lockFileName = "owner.lock"

    /// This process's folder; it exists while a ``Lease`` is alive.
    static let folder: URL = ramDirectory.appendingPathComponent(
        folderPrefix + UUID().uuidString, isDirectory: true)

    /// The database file of the in-memory store `name`.
    static func databasePath(forStore name: String) -> String {
        folder.appendingPathComponent("\(name).sqlite").path
    }

    /// The files SQLite may create for the database at `path`.
    static func files(ofDatabase path: String) -> [String] {
        [path, path + "-wal", path + "-shm", path + "-journal"]
    }

    private struct State: Sendable {
        /// Open leases per store name.
        var leases: [String: Int] = [:]
        /// The descriptor of this process's `owner.lock`, while the folder exists.
        var lockDescriptor: Int32 = -1
    }

    private static let state = Locked(State())

    /// Keeps an in-memory store's files alive. The connections of the store
    /// hold it and drop it once closed; when the last lease of a store goes,
    /// its files are deleted, and with the last lease of all, the folder.
    final class Lease: Sendable {
        let name: String
        let path: String

        /// Takes a lease on the store `name`, creating the folder if needed.
        /// A store with no open lease starts empty.
        init(name: String) throws {
            self.name = name
            self.path = MemoryStoreFiles.databasePath(forStore: name)
            try MemoryStoreFiles.state.withLock { state in
                if state.lockDescriptor < 0 {
                    MemoryStoreFiles.sweepAbandonedFolders()
                    state.lockDescriptor = try MemoryStoreFiles.createFolder()
                }
                let count = state.leases[name, default: 0]
                if count == 0 { MemoryStoreFiles.remove(files(ofDatabase: path)) }
                state.leases[name] = count + 1
            }
        }

        deinit {
            let name = name
            let path = path
            MemoryStoreFiles.state.withLock { state in
                let count = state.leases[name, default: 1] - 1
                guard count == 0 else {
                    state.leases[name] = count
                    return
                }
                state.leases[name] = nil
                MemoryStoreFiles.remove(files(ofDatabase: path))
                if state.leases.isEmpty, state.lockDescriptor >= 0 {
                    // Remove the folder while still holding its lock, so that a
                    // sweeping process never sees it unlocked.
                    try? FileManager.default.removeItem(at: MemoryStoreFiles.folder)
                    close(state.lockDescriptor)
                    state.lockDescriptor = -1
                }
            }
        }
    }

    private static func remove(_ paths: [String]) {
        for path in paths { unlink(path) }
    }

    /// Creates this process's folder with its lock taken, and returns the
    /// lock's descriptor. The folder is set up under a hidden name and renamed
    /// into place, so that no other process sees it before it is locked.
    private static func createFolder() throws -> Int32 {
        let manager = FileManager.default
        let staging = ramDirectory.appendingPathComponent(".\(folder.lastPathComponent)", isDirectory: true)
        func fail(_ reason: String) -> StrataError {
            try? manager.removeItem(at: staging)
            return StrataError.storage(path: folder.path, reason: reason)
        }
        do {
            try manager.createDirectory(at: staging, withIntermediateDirectories: true)
        } catch {
            throw StrataError.storage(
                path: folder.path, reason: "cannot create the folder: \(error.localizedDescription)")
        }
        let descriptor = open(staging.appendingPathComponent(lockFileName).path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw fail("cannot create the lock file") }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw fail("cannot lock the folder")
        }
        guard rename(staging.path, folder.path) == 0 else {
            close(descriptor)
            throw fail("cannot create the folder")
        }
        return descriptor
    }

    /// Deletes the folders of processes that died with in-memory stores open.
    private static func sweepAbandonedFolders() {
        let manager = FileManager.default
        guard let names = try? manager.contentsOfDirectory(atPath: ramDirectory.path) else { return }
        for name in names where name.hasPrefix(folderPrefix) && name != folder.lastPathComponent {
            let candidate = ramDirectory.appendingPathComponent(name, isDirectory: true)
            let lockPath = candidate.appendingPathComponent(lockFileName).path
            let descriptor = open(lockPath, O_RDWR | O_CLOEXEC)
            guard descriptor >= 0 else { continue }
            defer { close(descriptor) }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { continue }  // its owner lives
            // The owner may have removed the folder and made a new one meanwhile:
            // only delete the folder whose lock this is.
            var held = stat()
            var current = stat()
            guard fstat(descriptor, &held) == 0, stat(lockPath, &current) == 0,
                  held.st_ino == current.st_ino, held.st_dev == current.st_dev
            else { continue }
            try? manager.removeItem(at: candidate)
        }
    }
}
