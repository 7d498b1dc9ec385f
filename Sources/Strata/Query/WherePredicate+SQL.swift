/// Compiles predicates and value paths to SQL over `"Entity" AS t0`.
///
/// Every value is a bound parameter; identifiers come from the schema and are
/// quoted. A path through to-one relationships is a correlated scalar
/// subquery, so a nil link reads as NULL exactly as in memory; to-many tests
/// are `EXISTS` and `count(*)` subqueries. `AND`/`OR` lists nest as balanced
/// trees, so thousands of terms stay far below SQLite's expression depth limit,
/// and a membership test of many values binds them as one list (see
/// `SQLCompiler+Lists`).
struct SQLCompiler {
    let schema: Schema
    private(set) var arguments: [StoredValue] = []
    private var aliasCount = 0
    /// The tests compiled so far, against ``maximumTerms``.
    var termCount = 0

    init(schema: Schema) {
        self.schema = schema
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
            preconditionFailure("Strata: no entity named \(name) in schema \(schema.version).")
        }
        return entity
    }

    private func relationship(_ name: String, of entity: EntityDescription) -> RelationshipDescription {
        guard let relationship = entity.relationships[name] else {
            preconditionFailure("Strata: \(entity.name) has no relationship '\(name)'.")
        }
        return relationship
    }

    // MARK: Values

    /// The SQL for the value at `path`, read from `alias` (a row of `entity`).
    mutating func value(_ path: ValuePath, in entity: EntityDescription, alias: String) -> String {
        guard let first = path.relationships.first else {
            guard let field = path.field else { return "\(alias)._pk" }
            guard entity.slot(of: field) != nil else {
                preconditionFailure("Strata: \(entity.name) has no stored field or to-one relationship '\(field)'.")
            }
            return "\(alias).\(SQL.quote(field))"
        }
        let link = relationship(first, of: entity)
        precondition(link.isToOne, "Strata: a path can only pass through to-one relationships; \(first) is to-many.")
        let target = self.entity(link.target)
        let inner = newAlias()
        let rest = ValuePath(relationships: Array(path.relationships.dropFirst()), field: path.field)
        let innerValue = value(rest, in: target, alias: inner)
        return "(SELECT \(innerValue) FROM \(target.quotedTable) AS \(inner) "
            + "WHERE \(inner)._pk = \(alias).\(SQL.quote(first)))"
    }

    // MARK: Predicates

    mutating func predicate(_ predicate: WherePredicate, in entity: EntityDescription, alias: String) throws -> String {
        switch predicate {
        case .constant(let value):
            return value ? "1" : "0"
        case let .compare(path, op, operand):
            try countTerm(entity)
            let lhs = value(path, in: entity, alias: alias)
            if operand.isNull {
                switch op {
                case .equal: return "\(lhs) IS NULL"
                case .notEqual: return "\(lhs) IS NOT NULL"
                default: return "0"  // an order comparison with NULL is never true
                }
            }
            let placeholder = bind(operand)
            return op == .notEqual ? "\(lhs) IS NOT \(placeholder)" : "\(lhs) \(op.rawValue) \(placeholder)"
        case let .isIn(path, values):
            try countTerm(entity)
            return membership(value(path, in: entity, alias: alias), values)
        case let .between(path, lower, upper):
            try countTerm(entity)
            let lhs = value(path, in: entity, alias: alias)
            return "\(lhs) BETWEEN \(bind(lower)) AND \(bind(upper))"
        case let .text(path, operation, pattern, options):
            try countTerm(entity)
            let lhs = value(path, in: entity, alias: alias)
            return "strata_text_match(\(operation.rawValue), \(lhs), \(bind(.text(pattern))), \(options.rawValue))"
        case .and(let terms):
            return try balanced(Self.merged(terms, conjunction: true), "AND", empty: "1", in: entity, alias: alias)
        case .or(let terms):
            return try balanced(Self.merged(terms, conjunction: false), "OR", empty: "0", in: entity, alias: alias)
        case .not(let inner):
            return "NOT coalesce((\(try self.predicate(inner, in: entity, alias: alias))), 0)"
        case let .members(owner, name, quantifier, inner):
            let (target, memberAlias, membership) = members(owner, name, in: entity, alias: alias)
            let condition = try self.predicate(inner, in: target, alias: memberAlias)
            let from = "SELECT 1 FROM \(target.quotedTable) AS \(memberAlias) WHERE \(membership)"
            switch quantifier {
            case .any: return "EXISTS (\(from) AND (\(condition)))"
            case .none: return "NOT EXISTS (\(from) AND (\(condition)))"
            case .all: return "NOT EXISTS (\(from) AND NOT coalesce((\(condition)), 0))"
            }
        case let .count(owner, name, op, number):
            try countTerm(entity)
            let (target, memberAlias, membership) = members(owner, name, in: entity, alias: alias)
            return "(SELECT count(*) FROM \(target.quotedTable) AS \(memberAlias) WHERE \(membership)) "
                + "\(op.rawValue) \(bind(.integer(Int64(number))))"
        case let .sql(sql, values):
            try countTerm(entity)
            arguments.append(contentsOf: values)
            return "(\(sql))"
        case .invalid(let error):
            throw error
        }
    }

    /// The target entity, an alias for its rows, and the condition that makes
    /// a row of it a member of the to-many relationship `name` of the owner.
    private mutating func members(
        _ owner: ValuePath, _ name: String, in entity: EntityDescription, alias: String
    ) -> (EntityDescription, String, String) {
        var ownerEntity = entity
        for link in owner.relationships + [owner.field].compactMap({ $0 }) {
            ownerEntity = self.entity(relationship(link, of: ownerEntity).target)
        }
        let ownerRowID = value(ValuePath(relationships: owner.relationships + [owner.field].compactMap { $0 }, field: nil),
                               in: entity, alias: alias)
        let link = relationship(name, of: ownerEntity)
        let target = self.entity(link.target)
        let memberAlias = newAlias()
        switch link.storage {
        case let .inverseForeignKey(targetSlot, _):
            let column = SQL.quote(target.attributes[targetSlot].name)
            return (target, memberAlias, "\(memberAlias).\(column) = \(ownerRowID)")
        case let .linkTable(table, ownerColumn, targetColumn, _):
            return (target, memberAlias,
                    "\(memberAlias)._pk IN (SELECT \(SQL.quote(targetColumn)) FROM \(SQL.quote(table)) "
                        + "WHERE \(SQL.quote(ownerColumn)) = \(ownerRowID))")
        case .foreignKey:
            preconditionFailure("Strata: '\(name)' is a to-one relationship; compare it with == instead.")
        }
    }

    private mutating func balanced(
        _ terms: [WherePredicate], _ op: String, empty: String, in entity: EntityDescription, alias: String
    ) throws -> String {
        guard !terms.isEmpty else { return empty }
        return balancedSQL(try terms.map { try predicate($0, in: entity, alias: alias) }, op)
    }

    private func balancedSQL(_ parts: [String], _ op: String) -> String {
        if parts.count == 1 { return parts[0] }
        let middle = parts.count / 2
        return "(\(balancedSQL(Array(parts[..<middle]), op)) \(op) \(balancedSQL(Array(parts[middle...]), op)))"
    }
}
