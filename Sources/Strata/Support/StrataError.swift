import Foundation

/// Every failure Strata reports, one case per thing a caller can act on.
///
/// Every public throwing API is `throws(StrataError)`, so in a `catch` the
/// error already is one: switch over its cases, no cast needed. Closures you
/// pass in (a transaction body, an import hook, `fetchOrCreate`'s
/// `configure`) may throw anything; such an error comes back as
/// ``userError(_:)``, and a `StrataError` they throw comes back as itself.
///
/// ```swift
/// do {
///     try stack.addStorageAndWait(SQLiteStore(fileName: "zoo.sqlite"))
/// } catch {
///     switch error {
///     case .schemaMismatch(let path, let stored, let current):
///         print("\(path) holds \(stored), this build expects \(current)")
///     default:
///         print(error.debugDescription)
///     }
/// }
/// ```
public enum StrataError: Error, Sendable {
    /// A file-system or store problem at `path` (cannot create the folder,
    /// cannot open, cannot copy).
    case storage(path: String, reason: String)
    /// The file at `path` is not an SQLite database, or is truncated or corrupt.
    case notADatabase(path: String, reason: String)
    /// A write was attempted on a store opened read-only.
    case readOnlyStore(path: String)
    /// The stack has no storage yet: call `addStorageAndWait(_:)` first.
    case storeNotAdded
    /// No store of the stack holds `entity` in `configuration` (`nil`: the
    /// default configuration), or in any of the configurations a query names
    /// (the first of them is given). Add a store of that configuration.
    case storeNotFound(entity: String, configuration: String?)
    /// A transaction changed objects in several stores that cannot commit
    /// together atomically, and was rolled back whole: several file stores
    /// when the system SQLite lacks the session extension (use one built with
    /// `SQLITE_ENABLE_SESSION`, as Debian's and Ubuntu's are), or a server
    /// store (PostgreSQL) and another store not in memory. Commit each
    /// store's changes in a transaction of its own.
    case crossStoreTransaction(configurations: [String?])
    /// The store holds a schema other than the stack's and no migration is possible.
    case schemaMismatch(path: String, storeVersion: String, schemaVersion: String)
    /// The schema itself is wrong: `entity` and `field` name the culprit
    /// (also a name too long for the store's engine: on PostgreSQL, past 63 bytes).
    case invalidSchema(entity: String?, field: String?, reason: String)
    /// A ``SchemaHistory`` or its ``MigrationChain`` is wrong: a loop, a version
    /// listed twice or with two successors, a version not in the history, or no
    /// single current version. Thrown when the store is added.
    case invalidMigrationChain(reason: String)
    /// A migration step from `sourceVersion` to `destinationVersion` cannot carry
    /// the data over (a lossy type change, duplicates under a new `.unique`).
    /// The store is left as it was, at its old version.
    case migrationFailed(
        sourceVersion: String, destinationVersion: String, entity: String?, field: String?,
        reason: String)
    /// A ``CustomSchemaMappingProvider`` transformer (for `entity`) or a
    /// ``MigrationStage`` hook (`entity` `nil`) threw `error` during the step
    /// `sourceVersion` → `destinationVersion`. The migration rolled back: the
    /// store is left as it was, at its old version.
    case migrationStepThrew(
        sourceVersion: String, destinationVersion: String, entity: String?, error: any Error)
    /// The store needs more than one migration step (`versions` lists the path)
    /// and was opened with ``LocalStorageOptions/preventProgressiveMigration``.
    case progressiveMigrationPrevented(path: String, versions: [String])
    /// A value cannot be stored (NaN, an unsigned integer past `Int64.max`, a
    /// value that does not decode, text holding NUL on PostgreSQL), or
    /// compared with in a query; or a commit would leave a to-many
    /// relationship (`field`) holding a number of objects outside its
    /// `minCount` and `maxCount`.
    case invalidValue(entity: String, field: String, reason: String)
    /// A commit would store a second object with the same `.unique` value
    /// (or the same values of a unique constraint's `fields`). `entity` is
    /// the entity that declares the fields: in an inheritance tree, the
    /// base entity for an inherited field, whichever subentity clashed.
    case uniqueConstraintViolation(entity: String, fields: [String])
    /// A `.deny` delete rule refused to delete an object that, when the
    /// transaction committed, was still linked through `relationship` to
    /// objects not deleted: `relatedCount` of them (links, for a to-many),
    /// counted over every deleted object of `entity` (Docs/Transactions.md, Rule 8).
    case deleteDenied(entity: String, relationship: String, relatedCount: Int)
    /// `perform(synchronous:)` was called from inside a transaction of the same
    /// stack, or a transaction needed the writer on the thread where another
    /// one of the stack (an unsafe one, say) holds it: either would wait on itself.
    case nestedTransaction
    /// SQLite reported an error that no other case describes.
    case sqlite(code: Int32, message: String, sql: String?)
    /// PostgreSQL reported an error that no other case describes; `sqlState`
    /// is its five-character code (`42P01`: a table is missing, …).
    case postgreSQL(sqlState: String, message: String, sql: String?)
    /// The database server of the store at `path` could not be reached, or
    /// the connection to it was lost (a restart, a failover, the network). A
    /// transaction that was running is rolled back by the server: nothing of
    /// it was committed, unless the connection broke during its COMMIT, when
    /// the commit log tells (a commit that happened reaches the stack's
    /// monitors like any other). Connections open again on next use: retry.
    case serverUnavailable(path: String, reason: String)
    /// The transaction called `cancel()`.
    case userCancelled
    /// An error thrown by the caller's own code, unchanged: a transaction's
    /// closure, an import hook, `fetchOrCreate`'s `configure`, or a custom
    /// ``FieldStorable`` conversion read or written through a migration object.
    case userError(any Error)
}

extension StrataError: CustomDebugStringConvertible, LocalizedError {
    public var debugDescription: String {
        switch self {
        case let .storage(path, reason):
            return "Storage error at \(path): \(reason)"
        case let .notADatabase(path, reason):
            return "The file at \(path) is not a usable SQLite database: \(reason)"
        case let .readOnlyStore(path):
            return "The store at \(path) was opened read-only; it cannot be written."
        case .storeNotAdded:
            return "The DataStack has no storage; call addStorageAndWait(_:) or addStorage(_:) first."
        case let .crossStoreTransaction(configurations):
            return "A transaction changed objects in several stores ("
                + configurations.map { $0 ?? "(default)" }.joined(separator: ", ")
                + ") that cannot commit together atomically (this SQLite lacks the session extension, "
                + "or one store is on a server), and was rolled back; commit each store's changes in a "
                + "transaction of its own."
        case let .storeNotFound(entity, configuration):
            return "No store of the DataStack holds \(entity) in configuration "
                + "\(configuration ?? "(default)"); add a store of that configuration."
        case let .schemaMismatch(path, storeVersion, schemaVersion) where storeVersion == schemaVersion:
            // The usual cause: a shipped schema edited in place (Migrations.md, Rule 1).
            return "The store at \(path) holds another shape of schema \(storeVersion) than the "
                + "stack's (their fingerprints differ): a schema was changed without a new version. "
                + "Add a new version and a migration, or open the store with "
                + ".recreateStoreOnModelMismatch to discard its data."
        case let .schemaMismatch(path, storeVersion, schemaVersion):
            return "The store at \(path) holds schema \(storeVersion), but the stack uses "
                + "\(schemaVersion). Add a migration, or open the store with "
                + ".recreateStoreOnModelMismatch to discard its data."
        case let .invalidSchema(entity, field, reason):
            let place = [entity, field].compactMap { $0 }.joined(separator: ".")
            return "Invalid schema\(place.isEmpty ? "" : " at \(place)"): \(reason)"
        case let .invalidMigrationChain(reason):
            return "Invalid migration chain: \(reason)"
        case let .migrationFailed(source, destination, entity, field, reason):
            let place = [entity, field].compactMap { $0 }.joined(separator: ".")
            return "Cannot migrate from \(source) to \(destination)"
                + (place.isEmpty ? "" : " at \(place)") + ": \(reason). The store was left "
                + "unchanged, at \(source)."
        case let .migrationStepThrew(source, destination, entity, error):
            let culprit = entity.map { "the transformer of \($0)" } ?? "a migration hook"
            return "Migrating \(source) → \(destination) stopped: \(culprit) threw \(error). "
                + "The store was left at \(source)."
        case let .progressiveMigrationPrevented(path, versions):
            return "The store at \(path) needs \(versions.count - 1) migration steps "
                + "(\(versions.joined(separator: " → "))), and .preventProgressiveMigration "
                + "allows at most one."
        case let .invalidValue(entity, field, reason):
            return "Invalid value for \(entity).\(field): \(reason)"
        case let .uniqueConstraintViolation(entity, fields):
            return "Another \(entity) already has the same \(fields.joined(separator: ", "))."
        case let .deleteDenied(entity, relationship, count):
            return "Cannot delete the \(entity): its '\(relationship)' relationship still holds "
                + "\(count) object(s) and its delete rule is .deny."
        case .nestedTransaction:
            return "A transaction was started inside a transaction of the same stack on this thread "
                + "(perform(synchronous:) inside perform, or a transaction beside an unsafe one that "
                + "holds the writer), and would wait for itself; use the transaction you are in, "
                + "or commit or roll back the unsafe one first."
        case let .sqlite(code, message, sql):
            return "SQLite error \(code): \(message)" + (sql.map { " (while running: \($0))" } ?? "")
        case let .postgreSQL(sqlState, message, sql):
            return "PostgreSQL error \(sqlState): \(message)"
                + (sql.map { " (while running: \($0))" } ?? "")
        case let .serverUnavailable(path, reason):
            return "The database server of \(path) is unavailable: \(reason). Retry once it is back."
        case .userCancelled:
            return "The transaction was cancelled."
        case let .userError(error):
            return "The transaction threw: \(error)"
        }
    }

    public var errorDescription: String? { debugDescription }
}

extension StrataError {
    /// Wraps any error as a `StrataError`: Strata's own pass through, SQLite
    /// errors keep their code, anything else is the caller's and becomes `.userError`.
    static func wrapping(_ error: any Error) -> StrataError {
        switch error {
        case let error as StrataError: return error
        case let error as DatabaseError:
            guard let sqlState = error.sqlState else {
                return .sqlite(code: error.code, message: error.message, sql: error.sql)
            }
            if error.isConnectionFailure {
                return .serverUnavailable(path: "a server store", reason: error.message)
            }
            return .postgreSQL(sqlState: sqlState, message: error.message, sql: error.sql)
        default: return .userError(error)
        }
    }

    /// Runs `body` and reports what it throws as a `StrataError` (``wrapping(_:)``):
    /// the one conversion at the boundary of every public `throws(StrataError)`
    /// API, whose internals throw SQLite's `DatabaseError` and callers' errors too.
    @usableFromInline
    static func catching<Result>(_ body: () throws -> Result) throws(StrataError) -> Result {
        do {
            return try body()
        } catch {
            throw wrapping(error)
        }
    }

    /// The async form of ``catching(_:)``: `body` runs on the caller's actor.
    static func catching<Result>(
        isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Result
    ) async throws(StrataError) -> Result {
        do {
            return try await body()
        } catch {
            throw wrapping(error)
        }
    }

    /// ``invalidValue(entity:field:reason:)`` for text holding U+0000 (NUL),
    /// written to or compared with a field of a store whose text cannot hold
    /// it (``SQLDialect/textHoldsNUL``).
    static func textHoldingNUL(entity: String, field: String) -> StrataError {
        .invalidValue(
            entity: entity, field: field,
            reason: "the text holds NUL (U+0000), which PostgreSQL text cannot hold")
    }

    /// The same error with the entity and field names filled in.
    func located(entity: String, field: String) -> StrataError {
        if case let .invalidValue(_, _, reason) = self {
            return .invalidValue(entity: entity, field: field, reason: reason)
        }
        return self
    }
}
