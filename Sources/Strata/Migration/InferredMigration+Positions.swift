/// Positions for the members of ordered relationships that the copy left
/// without one: those of a to-many that a step made ordered (`Set` →
/// `Array`), whose old storage had no position column.
///
/// A member without a position would sort by each engine's own rule for
/// `NULL` (first on SQLite, last on PostgreSQL), and the next member added
/// from the other side — which goes after the largest position, `0` when
/// there is none — would land first on PostgreSQL and last on SQLite. So
/// each owner's members are numbered from 0: those holding a position first,
/// in its order, then the others in row-ID order, as they were read before.
extension InferredMigration {
    /// Numbers the members of every ordered relationship of the destination
    /// that has a member without a position, in the tables being built.
    func numberUnplacedMembers(on connection: Connection) throws {
        func building(_ name: String) -> String { Self.temporaryPrefix + name }
        for entity in destination.entities {
            for relationship in entity.relationships.values.sorted(by: { $0.name < $1.name })
            where relationship.entity == entity.name {
                switch relationship.storage {
                case let .inverseForeignKey(targetSlot, orderSlot?):
                    guard let target = destination.entity(named: relationship.target) else { continue }
                    try number(
                        in: building(target.tableName), owner: target.attributes[targetSlot].name,
                        member: "_pk", position: target.attributes[orderSlot].name, on: connection)
                case let .linkTable(table, ownerColumn, targetColumn, orderColumn?):
                    try number(
                        in: building(table), owner: ownerColumn, member: targetColumn,
                        position: orderColumn, on: connection)
                default:
                    continue
                }
            }
        }
    }

    /// Renumbers the rows of `table` per `owner` when some have no
    /// `position`, through a work table keyed like the rows, so that the
    /// update finds each row's number by key rather than by a scan:
    ///
    /// ```sql
    /// INSERT INTO "_strata_migrating_positions" ("owner", "member", "position")
    ///     SELECT "owner", "member", row_number() OVER (PARTITION BY "owner" ORDER BY
    ///         CASE WHEN "position" IS NULL THEN 1 ELSE 0 END, "position", "member") - 1
    ///     FROM <table> WHERE "owner" IS NOT NULL
    /// UPDATE <table> SET "position" = (SELECT ... WHERE owner and member match)
    ///     WHERE "owner" IS NOT NULL
    /// ```
    private func number(
        in table: String, owner: String, member: String, position: String, on connection: Connection
    ) throws {
        let (table, owner, member, position) = (
            SQL.quote(table), SQL.quote(owner), SQL.quote(member), SQL.quote(position))
        let unplaced = try connection.scalar(
            "SELECT count(*) FROM (SELECT 1 FROM \(table) WHERE \(owner) IS NOT NULL "
                + "AND \(position) IS NULL LIMIT 1) AS unplaced")
        guard let unplaced, unplaced != .integer(0) else { return }
        let work = TableDefinition(
            name: Self.temporaryPrefix + "positions",
            columns: ["owner", "member", "position"].map { .init(name: $0, type: "INTEGER") },
            indexes: [], primaryKey: ["owner", "member"])
        for statement in work.createStatements(in: connection.dialect) {
            try connection.execute(statement)
        }
        let workTable = SQL.quote(work.name)
        try connection.execute(
            "INSERT INTO \(workTable) (\"owner\", \"member\", \"position\") "
                + "SELECT \(owner), \(member), row_number() OVER (PARTITION BY \(owner) ORDER BY "
                + "CASE WHEN \(position) IS NULL THEN 1 ELSE 0 END, \(position), \(member)) - 1 "
                + "FROM \(table) WHERE \(owner) IS NOT NULL")
        try connection.execute(
            "UPDATE \(table) SET \(position) = (SELECT w.\"position\" FROM \(workTable) AS w "
                + "WHERE w.\"owner\" = \(table).\(owner) AND w.\"member\" = \(table).\(member)) "
                + "WHERE \(owner) IS NOT NULL")
        try connection.execute("DROP TABLE \(workTable)")
    }
}
