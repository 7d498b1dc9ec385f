import CSQLite
import Foundation
import Strata

/// The bulk benchmarks' data: one template file per side, built once, and a
/// fresh copy of it before every round, so that every round of every side
/// starts from the same file and deletes or changes the same rows.
///
/// Both templates are written by `VACUUM INTO` (Strata's ``DataStack/exportStore(to:)``
/// on the Strata side), so both sides' tables and indexes are equally compact.
@MainActor
enum BulkFixtures {
    // MARK: Templates

    /// A Strata store and a raw database holding `rows` as ``BulkItem``s.
    static func itemTemplates(_ rows: BulkRows, in workspace: Workspace) throws -> (strata: URL, raw: URL) {
        let stack = try Fixtures.strataStack(at: workspace.newFile("strata-items-fill"), schema: bulkItemSchema)
        try stack.perform(synchronous: { tx in
            for (index, rank) in rows.ranks.enumerated() {
                let item = tx.create(Into<BulkItem>())
                item.name = BulkRows.name(index)
                item.rank = rank
                item.score = BulkRows.score(rank: rank)
                item.level = BulkRows.level(index)
            }
        })
        let strata = workspace.newFile("strata-items-template")
        try stack.exportStore(to: strata)

        let database = try rawDatabase(at: workspace.newFile("raw-items-fill"), schema: RawBulkSchema.items)
        try database.execute("BEGIN")
        let insert = try database.prepare(#"INSERT INTO "BulkItem" (name, rank, score, level) VALUES (?, ?, ?, ?)"#)
        for (index, rank) in rows.ranks.enumerated() {
            sqlite3_bind_text(insert.handle, 1, BulkRows.name(index), -1, strata_sqlite_transient())
            sqlite3_bind_int64(insert.handle, 2, Int64(rank))
            sqlite3_bind_double(insert.handle, 3, BulkRows.score(rank: rank))
            sqlite3_bind_int64(insert.handle, 4, Int64(BulkRows.level(index)))
            _ = try insert.step()
            try insert.reset()
        }
        try database.execute("COMMIT")
        let raw = workspace.newFile("raw-items-template")
        try database.execute("VACUUM INTO '\(raw.path)'")
        try checkSameTables(strata: strata, raw: raw, tables: ["BulkItem"])
        return (strata, raw)
    }

    /// A Strata store and a raw database with `parents` ``BulkParent``s
    /// (`rank` a permutation of their numbers) of `childrenEach` ``BulkChild``ren each.
    static func cascadeTemplates(
        parents: Int, childrenEach: Int, in workspace: Workspace
    ) throws -> (strata: URL, raw: URL) {
        let ranks = BulkRows(count: parents).ranks
        let stack = try Fixtures.strataStack(at: workspace.newFile("strata-cascade-fill"), schema: bulkCascadeSchema)
        try stack.perform(synchronous: { tx in
            for (index, rank) in ranks.enumerated() {
                let parent = tx.create(Into<BulkParent>())
                parent.name = "Parent \(index)"
                parent.rank = rank
                for position in 0..<childrenEach {
                    let child = tx.create(Into<BulkChild>())
                    child.name = "Child \(index)-\(position)"
                    child.position = position
                    child.parent = parent
                }
            }
        })
        let strata = workspace.newFile("strata-cascade-template")
        try stack.exportStore(to: strata)

        let database = try rawDatabase(at: workspace.newFile("raw-cascade-fill"), schema: RawBulkSchema.cascade)
        try database.execute("BEGIN")
        let insertParent = try database.prepare(#"INSERT INTO "BulkParent" (name, rank) VALUES (?, ?)"#)
        let insertChild = try database.prepare(
            #"INSERT INTO "BulkChild" (name, position, parent) VALUES (?, ?, ?)"#)
        for (index, rank) in ranks.enumerated() {
            sqlite3_bind_text(insertParent.handle, 1, "Parent \(index)", -1, strata_sqlite_transient())
            sqlite3_bind_int64(insertParent.handle, 2, Int64(rank))
            _ = try insertParent.step()
            try insertParent.reset()
            let parent = sqlite3_last_insert_rowid(database.handle)
            for position in 0..<childrenEach {
                sqlite3_bind_text(insertChild.handle, 1, "Child \(index)-\(position)", -1, strata_sqlite_transient())
                sqlite3_bind_int64(insertChild.handle, 2, Int64(position))
                sqlite3_bind_int64(insertChild.handle, 3, parent)
                _ = try insertChild.step()
                try insertChild.reset()
            }
        }
        try database.execute("COMMIT")
        let raw = workspace.newFile("raw-cascade-template")
        try database.execute("VACUUM INTO '\(raw.path)'")
        try checkSameTables(strata: strata, raw: raw, tables: ["BulkParent", "BulkChild"])
        return (strata, raw)
    }

    // MARK: Copies for one round

    /// A stack on a fresh copy of `template`, its reader and writer
    /// connections opened and warmed by one count of `Object` each (the raw
    /// side's copy gets the same count), so that the timed transaction does
    /// not pay for opening them.
    static func strataCopy<Object: ManagedObject>(
        of template: URL, schema: Schema, counting _: Object.Type, in workspace: Workspace
    ) throws -> (stack: DataStack, url: URL) {
        let url = workspace.newFile("strata-round")
        try FileManager.default.copyItem(at: template, to: url)
        let stack = try Fixtures.strataStack(at: url, schema: schema)
        _ = try stack.fetchCount(From<Object>())
        try stack.perform(synchronous: { tx in _ = try tx.fetchCount(From<Object>()) })
        return (stack, url)
    }

    /// A connection to a fresh copy of `template`, in WAL mode with
    /// synchronous NORMAL like Strata's store, after one count of `table`.
    static func rawCopy(
        of template: URL, counting table: String, in workspace: Workspace
    ) throws -> (database: RawDatabase, url: URL) {
        let url = workspace.newFile("raw-round")
        try FileManager.default.copyItem(at: template, to: url)
        let database = try RawDatabase(url)
        try database.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL")
        _ = try count(database, "SELECT count(*) FROM \"\(table)\"")
        return (database, url)
    }

    /// Removes a round's copy and its WAL files (still open is fine: the
    /// space comes back when the connections close), so that a run of many
    /// rounds does not fill the disk.
    static func removeCopy(at url: URL) {
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: url.path + suffix)
        }
    }

    /// The integer the query `sql` returns.
    static func count(_ database: RawDatabase, _ sql: String, _ arguments: [RawArgument] = []) throws -> Int {
        let statement = try database.prepare(sql)
        try statement.bind(arguments)
        guard try statement.step() else { return 0 }
        return Int(sqlite3_column_int64(statement.handle, 0))
    }

    // MARK: Helpers

    private static func rawDatabase(at url: URL, schema: String) throws -> RawDatabase {
        let database = try RawDatabase(url)
        try database.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; \(schema)")
        return database
    }

    /// Throws unless both files define `tables` and their indexes with the same SQL.
    private static func checkSameTables(strata: URL, raw: URL, tables: [String]) throws {
        func definitions(_ url: URL) throws -> [String] {
            let database = try RawDatabase(url)
            let names = tables.map { "'\($0)'" }.joined(separator: ", ")
            let select = try database.prepare(
                "SELECT sql FROM sqlite_master WHERE tbl_name IN (\(names)) AND sql IS NOT NULL ORDER BY name")
            var found: [String] = []
            while try select.step() {
                found.append(String(cString: sqlite3_column_text(select.handle, 0)))
            }
            return found
        }
        let (mine, theirs) = (try definitions(strata), try definitions(raw))
        guard mine == theirs else {
            throw BenchmarkError(description: "the raw tables differ from Strata's: \(theirs) != \(mine)")
        }
    }
}

/// Row IDs as a JSON array, for `IN (SELECT value FROM json_each(?))`, as a
/// raw SQLite program would write them.
func jsonList(_ rowIDs: [Int64]) -> String {
    var bytes: [UInt8] = [UInt8(ascii: "[")]
    bytes.reserveCapacity(rowIDs.count * 8 + 2)
    var digits = [UInt8](repeating: 0, count: 20)
    for rowID in rowIDs {
        if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
        if rowID < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = rowID.magnitude
        var end = digits.count
        repeat {
            end -= 1
            digits[end] = UInt8(ascii: "0") + UInt8(magnitude % 10)
            magnitude /= 10
        } while magnitude > 0
        bytes.append(contentsOf: digits[end...])
    }
    bytes.append(UInt8(ascii: "]"))
    return String(decoding: bytes, as: UTF8.self)
}
