import Foundation
@testable import StrataPostgreSQL
import ThrowawayPostgreSQL

extension PostgreSQLServer {
    /// A session on the tests' server in a new schema of its own
    /// (`strata_test_…`), which is its search path.
    static func sessionInNewSchema() throws -> (session: PostgreSQLSession, schema: String) {
        let schema = "strata_test_\(UUID().uuidString.prefix(8).lowercased())"
        let session = try PostgreSQLSession(connectionString: try shared().connectionString)
        try session.execute("CREATE SCHEMA \(schema); SET search_path TO \(schema)")
        return (session, schema)
    }
}
