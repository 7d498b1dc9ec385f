import Foundation

extension DataStack {
    /// Writes a consistent copy of the store, as of its last commit, to a new
    /// file at `url` (SQLite's `VACUUM INTO`). Transactions may run meanwhile.
    ///
    /// ```swift
    /// try stack.exportStore(to: backupFolder.appendingPathComponent("zoo-backup.sqlite"))
    /// ```
    ///
    /// - Throws: ``StrataError/storeNotAdded``, or ``StrataError/storage(path:reason:)``
    ///   when the copy cannot be written (for example, a file already exists at `url`).
    public func exportStore(to url: URL) throws {
        let store = try store()
        if FileManager.default.fileExists(atPath: url.path) {
            throw StrataError.storage(path: url.path, reason: "a file already exists there")
        }
        do {
            let connection = try Connection(
                path: store.configuration.openPath, readOnly: true, create: false,
                busyTimeout: store.configuration.busyTimeoutMilliseconds)
            defer { connection.close() }
            try connection.run("VACUUM INTO ?", [.text(url.path)])
        } catch {
            throw StrataError.storage(path: url.path, reason: "cannot export the store: \(error)")
        }
    }

    /// Deletes every object of every entity in one transaction, and returns how
    /// many were deleted. The change set lists them all, like any other commit.
    ///
    /// - Throws: the errors of ``perform(synchronous:author:)``.
    @discardableResult
    public func wipeAllData(
        author: String? = nil, isolation: isolated (any Actor)? = #isolation
    ) throws -> Int {
        try perform(synchronous: { tx in
            // Fetch everything before deleting anything: a cascade would otherwise
            // remove rows of later entities before they are fetched and counted.
            let objects = try tx.context.schema.entities.flatMap { entity in
                try tx.context.fetchObjects(
                    entity, sql: "SELECT \(entity.selectList) FROM \(entity.quotedTable)",
                    arguments: [])
            }
            for object in objects { try tx.context.delete(object) }
            return objects.count
        }, author: author, isolation: isolation)
    }
}
