import CSQLite
import Foundation

/// Records every row a connection changes, as SQLite's session extension
/// does, so that the changes can be written down as a changeset and applied
/// again later — to the same database, from the state it was in before.
///
/// A commit over several stores keeps a store's changeset in another store
/// until the store has committed (see `CrossStoreCommit`). The extension is
/// looked up when first needed: a system SQLite built without it leaves
/// ``isAvailable`` false, and such commits are refused instead.
///
/// Not thread-safe: used by whoever holds the connection's writer.
final class ChangeRecorder {
    private let session: OpaquePointer

    /// Starts recording every change to every table of `connection`'s main database.
    init(on connection: Connection) throws {
        guard let functions = Self.functions else {
            throw DatabaseError(code: SQLITE_MISUSE, message: "SQLite was built without sessions", sql: nil)
        }
        var session: OpaquePointer?
        var code = functions.create(connection.handle, "main", &session)
        guard code == SQLITE_OK, let session else { throw connection.error(sql: nil) }
        code = functions.attach(session, nil)  // every table, including those created later
        guard code == SQLITE_OK else {
            functions.delete(session)
            throw DatabaseError(code: code, message: "cannot record the changes of \(connection.path)", sql: nil)
        }
        self.session = session
    }

    deinit { Self.functions?.delete(session) }

    /// Whether this process's SQLite has the session extension.
    static var isAvailable: Bool { functions != nil }

    /// The net change since recording began: rows inserted, deleted, and
    /// updated with their old and new values. Changes undone since (a
    /// rolled-back savepoint) are not in it.
    func changeset() throws -> Data {
        guard let functions = Self.functions else { return Data() }
        var size: Int32 = 0
        var bytes: UnsafeMutableRawPointer?
        let code = functions.changeset(session, &size, &bytes)
        defer { sqlite3_free(bytes) }
        guard code == SQLITE_OK else {
            throw DatabaseError(code: code, message: "cannot write the recorded changes down", sql: nil)
        }
        guard let bytes, size > 0 else { return Data() }
        return Data(bytes: bytes, count: Int(size))
    }

    /// Applies `changeset` on `connection`, inside its open transaction, all
    /// or nothing: any conflict (a row that is not as the changeset found it)
    /// aborts, leaving the database as it was.
    static func apply(_ changeset: Data, on connection: Connection) throws {
        guard let functions else {
            throw DatabaseError(code: SQLITE_MISUSE, message: "SQLite was built without sessions", sql: nil)
        }
        guard !changeset.isEmpty else { return }
        var bytes = changeset
        let count = Int32(bytes.count)
        let code = bytes.withUnsafeMutableBytes { buffer in
            functions.apply(connection.handle, count, buffer.baseAddress, nil, abortOnConflict, nil)
        }
        guard code == SQLITE_OK else {
            throw DatabaseError(
                code: code, message: "the recorded changes do not apply: \(connection.lastErrorMessage)", sql: nil)
        }
    }

    // MARK: The extension's functions

    private struct Functions {
        typealias Create = @convention(c) (
            OpaquePointer?, UnsafePointer<CChar>?, UnsafeMutablePointer<OpaquePointer?>?) -> Int32
        typealias Attach = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> Int32
        typealias Changeset = @convention(c) (
            OpaquePointer?, UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> Int32
        typealias Delete = @convention(c) (OpaquePointer?) -> Void
        typealias Filter = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?) -> Int32
        typealias Conflict = @convention(c) (UnsafeMutableRawPointer?, Int32, OpaquePointer?) -> Int32
        typealias Apply = @convention(c) (
            OpaquePointer?, Int32, UnsafeMutableRawPointer?, Filter?, Conflict?, UnsafeMutableRawPointer?) -> Int32

        let create: Create
        let attach: Attach
        let changeset: Changeset
        let delete: Delete
        let apply: Apply

        init?() {
            func look<Function>(_ name: String, as type: Function.Type) -> Function? {
                strata_sqlite_symbol(name).map { unsafeBitCast($0, to: type) }
            }
            guard let create = look("sqlite3session_create", as: Create.self),
                  let attach = look("sqlite3session_attach", as: Attach.self),
                  let changeset = look("sqlite3session_changeset", as: Changeset.self),
                  let delete = look("sqlite3session_delete", as: Delete.self),
                  let apply = look("sqlite3changeset_apply", as: Apply.self)
            else { return nil }
            (self.create, self.attach, self.changeset, self.delete, self.apply) =
                (create, attach, changeset, delete, apply)
        }
    }

    private static let functions = Functions()
}

/// `SQLITE_CHANGESET_ABORT` for every conflict.
private let abortOnConflict: @convention(c) (UnsafeMutableRawPointer?, Int32, OpaquePointer?) -> Int32 = { _, _, _ in
    2  // SQLITE_CHANGESET_ABORT
}
