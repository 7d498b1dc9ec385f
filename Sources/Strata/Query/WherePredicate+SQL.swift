/// Compiles predicates and value paths to SQL over `"Entity" AS t0`.
///
/// Every value is a bound parameter; identifiers come from the schema and are
/// quoted. A path through to-one relationships is a correlated scalar
/// subquery, so a nil link reads as NULL exactly as in memory; to-many tests
/// are `EXISTS` and `count(*)` subqueries. `AND`/`OR` lists nest as balanced
/// trees (their deepest term first when the predicate nests deeply), and a
/// membership test of many values binds them as one list (see
/// `SQLCompiler+Lists`), so that every predicate Strata compiles stays within
/// SQLite's parser stack and expression depth.
struct SQLCompiler {
    let schema: Schema
    /// The SQL of the store the statement runs on (it differs for long lists only).
    let dialect: SQLDialect
    private(set) var arguments: [StoredValue] = []
    private var aliasCount = 0
    /// The tests compiled so far, against ``maximumTerms``.
    var termCount = 0
    /// Whether lists put their costliest term first (see ``list(_:_:empty:in:alias:)``).
    var deepestFirst = false

    init(schema: Schema, dialect: SQLDialect) {
        self.schema = schema
        self.dialect = dialect
    }

    /// The main table's alias.
    static let rootAlias = "t0"

    mutating func bind(_ value: StoredValue) -> String {
        arguments.append(value)
        return "?"
    }

    private mutating func newAlias() -> String {
        aliasCount += 1
        return "t\(aliasCount)"
    }

    private func entity(_ name: String) -> EntityDescription {
        guard let entity = schema.entity(named: name) else {
            misuse("Strata: no entity named \(name) in schema \(schema.version).")
        }
        return entity
    }

    private func relationship(_ name: String, of entity: EntityDescription)
        -> RelationshipDescription
    {
        guard let relationship = entity.relationships[name] else {
            misuse("Strata: \(entity.name) has no relationship '\(name)'.")
        }
        return relationship
    }

    // MARK: Values

    /// The SQL for the value at `path`, read from `alias` (a row of `entity`):
    /// a nest of one scalar subquery per link, built from the inside out.
    mutating func value(_ path: ValuePath, in entity: EntityDescription, alias: String) -> String {
        var links: [(table: String, alias: String, outer: String, column: String)] = []
        var current = entity
        var currentAlias = alias
        for name in path.relationships {
            let link = relationship(name, of: current)
            checkUsage(
                link.isToOne,
                "Strata: a path can only pass through to-one relationships; \(name) is to-many.")
            current = self.entity(link.target)
            let inner = newAlias()
            links.append((current.quotedTable, inner, currentAlias, SQL.quote(name)))
            currentAlias = inner
        }
        var sql = "\(currentAlias)._pk"
        if let field = path.field {
            guard current.slot(of: field) != nil else {
                misuse(
                    "Strata: \(current.name) has no stored field or to-one relationship '\(field)'."
                )
            }
            sql = "\(currentAlias).\(SQL.quote(field))"
        }
        for link in links.reversed() {
            sql =
                "(SELECT \(sql) FROM \(link.table) AS \(link.alias) WHERE \(link.alias)._pk = \(link.outer).\(link.column))"
        }
        return sql
    }

    // MARK: Predicates

    /// The SQL of `predicate`, its values appended to ``arguments``.
    ///
    /// Lists keep the order they were written in unless that would overflow
    /// the parser; then the predicate compiles again, each list's costliest
    /// term first.
    ///
    /// - Throws: the error of an invalid predicate, and `StrataError.invalidValue`
    ///   when the predicate has more than ``maximumTerms`` tests or its SQL
    ///   would overflow SQLite's parser stack (see ``parserBudget``).
    mutating func predicate(
        _ predicate: WherePredicate, in entity: EntityDescription, alias: String
    ) throws -> String {
        let (aliases, terms) = (aliasCount, termCount)
        var fragment = try self.fragment(predicate, in: entity, alias: alias)
        if fragment.cost > Self.parserBudget {
            (aliasCount, termCount, deepestFirst) = (aliases, terms, true)
            defer { deepestFirst = false }
            fragment = try self.fragment(predicate, in: entity, alias: alias)
        }
        try checkCost(fragment, entity)
        arguments.append(contentsOf: fragment.arguments)
        return fragment.sql
    }

    /// The SQL of one predicate with its own arguments and parser cost.
    mutating func fragment(_ predicate: WherePredicate, in entity: EntityDescription, alias: String)
        throws -> SQLFragment
    {
        switch predicate {
        case .constant(let value):
            return SQLFragment(value ? "TRUE" : "FALSE")
        case let .compare(path, op, operand):
            let (lhs, cost) = try self.lhs(path, in: entity, alias: alias)
            try countTerm(entity)
            try checkText([operand], comparedWith: path, in: entity)
            if operand.isNull {
                switch op {
                case .equal: return SQLFragment("\(lhs) IS NULL", cost: cost + 1)
                case .notEqual: return SQLFragment("\(lhs) IS NOT NULL", cost: cost + 1)
                default: return SQLFragment("FALSE")  // an order comparison with NULL is never true
                }
            }
            if path.isDecimal, op != .equal, op != .notEqual {
                // Decimal text compares by number (equal numbers have one text).
                return SQLFragment(
                    "strata_decimal(\(lhs)) \(op.rawValue) strata_decimal(?)", [operand], cost: cost + 4)
            }
            let sql = op == .notEqual ? "\(lhs) IS DISTINCT FROM ?" : "\(lhs) \(op.rawValue) ?"
            return SQLFragment(sql, [operand], cost: cost + 2)
        case let .isIn(path, values):
            let (lhs, cost) = try self.lhs(path, in: entity, alias: alias)
            try countTerm(entity)
            try checkText(values.nonNullValues, comparedWith: path, in: entity)
            return membership(lhs, values, lhsCost: cost)
        case let .between(path, lower, upper):
            let (lhs, cost) = try self.lhs(path, in: entity, alias: alias)
            try countTerm(entity)
            try checkText([lower, upper], comparedWith: path, in: entity)
            if path.isDecimal {
                return SQLFragment(
                    "strata_decimal(\(lhs)) BETWEEN strata_decimal(?) AND strata_decimal(?)", [lower, upper],
                    cost: cost + 6)
            }
            return SQLFragment("\(lhs) BETWEEN ? AND ?", [lower, upper], cost: cost + 3)
        case let .text(path, operation, pattern, options):
            let (lhs, cost) = try self.lhs(path, in: entity, alias: alias)
            try countTerm(entity)
            try checkText([.text(pattern)], comparedWith: path, in: entity)
            return SQLFragment(
                "strata_text_match(\(operation.rawValue), \(lhs), ?, \(options.rawValue))",
                [.text(pattern)],
                cost: cost + 6)
        case .and(let terms):
            return try list(
                Self.merged(Array(terms.terms), conjunction: true), "AND", empty: "TRUE", in: entity,
                alias: alias)
        case .or(let terms):
            return try list(
                Self.merged(Array(terms.terms), conjunction: false), "OR", empty: "FALSE", in: entity,
                alias: alias)
        case .not(let inner):
            let inner = try fragment(inner, in: entity, alias: alias)
            return SQLFragment(
                "NOT coalesce(\(inner.sql), FALSE)", inner.arguments, cost: inner.cost + 4)
        case let .members(owner, name, quantifier, inner):
            let (target, memberAlias, membership) = try members(
                owner, name, in: entity, alias: alias)
            let condition = try fragment(inner, in: target, alias: memberAlias)
            // The condition comes first: nested in `WHERE (`, it costs SQLite's parser least.
            let from = "SELECT 1 FROM \(target.quotedTable) AS \(memberAlias) WHERE "
            switch quantifier {
            case .any, .none:
                let exists = "EXISTS (\(from)(\(condition.sql)) AND \(membership.sql))"
                return SQLFragment(
                    quantifier == .any ? exists : "NOT \(exists)", condition.arguments,
                    cost: max(condition.cost + 10, membership.cost))
            case .all:
                return SQLFragment(
                    "NOT EXISTS (\(from)NOT coalesce(\(condition.sql), FALSE) AND \(membership.sql))",
                    condition.arguments, cost: max(condition.cost + 14, membership.cost))
            }
        case let .count(owner, name, op, number):
            let size = try relatedCount(owner, name, in: entity, alias: alias)
            try countTerm(entity)
            return SQLFragment(
                "\(size.sql) \(op.rawValue) ?", [.integer(Int64(number))], cost: size.cost + 1)
        case let .sql(sql, values):
            try countTerm(entity)
            try checkText(values, comparedWith: nil, in: entity)
            // SQLite's parser may nest as deep as the text's parentheses, each in the costliest way.
            let parentheses = sql.utf8.reduce(0) { $0 + ($1 == UInt8(ascii: "(") ? 1 : 0) }
            return SQLFragment("(\(sql))", values, cost: 4 + 3 * parentheses)
        case .invalid(let error):
            throw error
        }
    }

    /// Refuses text holding NUL on a store whose text cannot hold it
    /// (``SQLDialect/textHoldsNUL``): the server would fail the statement,
    /// and on PostgreSQL the transaction with it. No stored value holds NUL
    /// there, but a typed error, not an answer, keeps a query from meaning
    /// one thing on SQLite and another on PostgreSQL.
    /// (`values` are not even listed on SQLite.)
    private func checkText(
        _ values: @autoclosure () -> [StoredValue], comparedWith path: ValuePath?,
        in entity: EntityDescription
    ) throws {
        guard !dialect.textHoldsNUL, values().contains(where: \.isTextHoldingNUL) else { return }
        throw StrataError.textHoldingNUL(entity: entity.name, field: path?.description ?? "Where")
    }

    /// The SQL of the value at `path` and what it costs SQLite's parser:
    /// about 5 for each link's subquery.
    private mutating func lhs(_ path: ValuePath, in entity: EntityDescription, alias: String) throws
        -> (String, Int)
    {
        let cost = path.relationships.isEmpty ? 0 : 3 + 5 * path.relationships.count
        // Checked before the SQL is built, which a path of a million links would make slow.
        try checkCost(SQLFragment("", cost: cost), entity)
        return (value(path, in: entity, alias: alias), cost)
    }

    /// `(SELECT count(*) FROM "Target" AS tN WHERE <membership>)`: how many
    /// objects the to-many relationship `name` of the owner at `owner` holds,
    /// for the row at `alias`. A `Where` compares it; a `Select` returns it.
    mutating func relatedCount(
        _ owner: ValuePath, _ name: String, in entity: EntityDescription, alias: String
    ) throws -> SQLFragment {
        let (target, memberAlias, membership) = try members(owner, name, in: entity, alias: alias)
        return SQLFragment(
            "(SELECT count(*) FROM \(target.quotedTable) AS \(memberAlias) WHERE \(membership.sql))",
            cost: membership.cost)
    }

    /// The target entity, an alias for its rows, and the condition that makes
    /// a row of it a member of the to-many relationship `name` of the owner.
    private mutating func members(
        _ owner: ValuePath, _ name: String, in entity: EntityDescription, alias: String
    ) throws -> (EntityDescription, String, SQLFragment) {
        var ownerEntity = entity
        let ownerLinks = owner.relationships + [owner.field].compactMap { $0 }
        for link in ownerLinks {
            ownerEntity = self.entity(relationship(link, of: ownerEntity).target)
        }
        let (ownerRowID, ownerCost) = try lhs(
            ValuePath(relationships: ownerLinks, field: nil), in: entity, alias: alias)
        let link = relationship(name, of: ownerEntity)
        let target = self.entity(link.target)
        let memberAlias = newAlias()
        switch link.storage {
        case let .inverseForeignKey(targetSlot, _):
            let column = SQL.quote(target.attributes[targetSlot].name)
            return (
                target, memberAlias,
                SQLFragment("\(memberAlias).\(column) = \(ownerRowID)", cost: ownerCost + 9)
            )
        case let .linkTable(table, ownerColumn, targetColumn, _):
            return (
                target, memberAlias,
                SQLFragment(
                    "\(memberAlias)._pk IN (SELECT \(SQL.quote(targetColumn)) FROM \(SQL.quote(table)) "
                        + "WHERE \(SQL.quote(ownerColumn)) = \(ownerRowID))", cost: ownerCost + 17)
            )
        case .foreignKey:
            misuse(
                "Strata: '\(name)' is a to-one relationship; compare it with == instead.")
        }
    }
}
