import Foundation
import Strata
import StrataPostgreSQL

/// Where the follow benchmark's store lives, and how its child processes
/// are told: an SQLite file's path, or `postgresql:<schema>` on the
/// benchmark's PostgreSQL server (``PostgreSQLFixtures/connectionString()``,
/// which the children find in `STRATA_POSTGRESQL_URL`).
enum FollowStore {
    case file(URL)
    case postgreSQL(schema: String)

    private static let postgreSQLPrefix = "postgresql:"

    init(argument: String) {
        if argument.hasPrefix(Self.postgreSQLPrefix) {
            self = .postgreSQL(schema: String(argument.dropFirst(Self.postgreSQLPrefix.count)))
        } else {
            self = .file(URL(fileURLWithPath: argument))
        }
    }

    /// What the child processes receive.
    var argument: String {
        switch self {
        case .file(let url): return url.path
        case .postgreSQL(let schema): return Self.postgreSQLPrefix + schema
        }
    }

    /// The store for a stack.
    @MainActor
    func storage() throws -> any StorageInterface {
        switch self {
        case .file(let url): return SQLiteStore(fileURL: url)
        case .postgreSQL(let schema):
            return PostgreSQLStore(connectionString: try PostgreSQLFixtures.connectionString(), schema: schema)
        }
    }

    /// The flag of the raw follower process for this kind of store.
    var rawFollowerFlag: String {
        switch self {
        case .file: return RawFollower.flag
        case .postgreSQL: return RawPostgreSQLFollower.flag
        }
    }

    /// How the result line names the raw follower.
    var rawName: String {
        switch self {
        case .file: return "raw sqlite"
        case .postgreSQL: return "raw LISTEN"
        }
    }
}
