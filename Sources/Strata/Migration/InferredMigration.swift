/// One migration step: rebuilds every table of `destination` from the tables
/// of `source`, inside the caller's transaction. Inferred, or following a
/// ``CustomSchemaMappingProvider`` (see `InferredMigration+Transform.swift`).
///
/// Per entity of the destination: create the new table under a temporary
/// name, `INSERT INTO new (...) SELECT ... FROM old` mapping columns by name
/// (or previous name), keeping `_pk`; the same for link tables; then drop the
/// old tables, rename the new ones and create the indexes.
///
/// In an inheritance tree each entity copies its own rows into the tree's
/// table, with its name in the discriminator: the rows of its predecessor,
/// all of them when that was an entity of its own table, those whose
/// discriminator names it when it was in a tree. So an entity that gains a
/// subentity keeps its rows (and their IDs), and a field moved up to a base
/// entity keeps the values its subentity's rows held.
struct InferredMigration {
    let source: Schema
    let destination: Schema
    /// The old entity each destination entity continues, parallel to `destination.entities`.
    let predecessors: [EntityDescription?]
    /// The transformers of a custom step, by destination entity name.
    let transformers: [String: CustomEntityMapping.Transformer]

    /// An inferred step: entities continue the old ones by name or `renamingIdentifier`.
    init(source: Schema, destination: Schema) {
        self.source = source
        self.destination = destination
        self.predecessors = RenameMatching.match(destination.entities, in: source.entities)
        self.transformers = [:]
    }

    /// A step following `provider`; the entities it does not list are inferred.
    ///
    /// - Throws: ``StrataError/migrationFailed(sourceVersion:destinationVersion:entity:field:reason:)``
    ///   when the provider names an entity a version lacks, or one twice.
    init(source: Schema, destination: Schema, provider: CustomSchemaMappingProvider) throws {
        self.source = source
        self.destination = destination
        (self.predecessors, self.transformers) = try provider.plan(
            source: source, destination: destination)
    }

    /// The prefix of a table being built; no schema name can start with `_`.
    static let temporaryPrefix = "_strata_migrating_"

    /// Runs the step; `progress` gets the number of units done: one per
    /// destination entity, and a last one for link tables and clean-up.
    func run(on connection: Connection, progress: (Int) -> Void = { _ in }) throws {
        let pairs = zip(destination.entities, predecessors).map { ($0, $1) }
        // Every table first: a subentity fills its root's, which may be listed after it.
        for entity in destination.entities where entity.ownsTable {
            var table = entity.table
            table.name = Self.temporaryPrefix + entity.name
            table.indexes = []
            for statement in table.createStatements(in: connection.dialect) { try connection.execute(statement) }
        }
        for (index, (entity, old)) in pairs.enumerated() {
            if let old, let transformer = transformers[entity.name] {
                try transformEntity(entity, from: old, with: transformer, on: connection)
            } else {
                try copyEntity(entity, from: old, on: connection)
            }
            progress(index + 1)
        }
        // Once the tables are filled: a link to an object a transformer dropped goes with it.
        try refuseDroppingToManyLinks(on: connection)
        let sourceByName = Dictionary(
            uniqueKeysWithValues: pairs.compactMap { entity, old in old.map { (entity.name, $0) } })
        for table in destination.linkTables {
            try copyLinkTable(table, sources: sourceByName, on: connection)
        }
        try removeReferencesToDroppedObjects(on: connection)
        try numberUnplacedMembers(on: connection)
        for table in source.tables {
            try connection.execute("DROP TABLE \(SQL.quote(table.name))")
        }
        for table in destination.tables {
            try connection.execute(
                "ALTER TABLE \(SQL.quote(Self.temporaryPrefix + table.name)) "
                    + "RENAME TO \(SQL.quote(table.name))")
        }
        for table in destination.tables {
            try createIndexes(of: table, on: connection)
        }
        try carrySequence(sourceByName, on: connection)
    }

    func failure(_ entity: String?, _ field: String?, _ reason: String) -> StrataError {
        .migrationFailed(
            sourceVersion: source.version, destinationVersion: destination.version,
            entity: entity, field: field, reason: reason)
    }

    /// Copies the old entity's rows into the entity's new table (its tree's).
    private func copyEntity(
        _ entity: EntityDescription, from old: EntityDescription?, on connection: Connection
    ) throws {
        guard let old else { return }
        var columns = [SQL.quote("_pk")]
        var values = [SQL.quote("_pk")]
        var arguments: [StoredValue] = []
        if entity.tree != nil {
            columns.append(SQL.quote(EntityTree.discriminatorColumn))
            values.append("?")
            arguments.append(.text(entity.name))
        }
        let matches = attributeSources(entity, old)
        for (attribute, previous) in zip(entity.fieldAttributes, matches) {
            columns.append(SQL.quote(attribute.name))
            values.append(try expression(
                for: attribute, from: previous, entity: entity, old: old, arguments: &arguments,
                on: connection))
        }
        let rows = sourceRows(of: old)
        do {
            try connection.run(
                "INSERT INTO \(SQL.quote(Self.temporaryPrefix + entity.tableName)) "
                    + "(\(columns.joined(separator: ", "))) "
                    + "SELECT \(values.joined(separator: ", ")) FROM \(old.quotedTable)\(rows.sql)",
                arguments + rows.arguments)
        } catch let error as DatabaseError where error.primaryCode == 19 && entity.tree != nil {  // SQLITE_CONSTRAINT
            throw sharedRowIDs(entity)
        }
        let added = zip(entity.fieldAttributes, matches).filter { $0.1 == nil }.map(\.0)
        try fillInitialValues(entity, added: added, on: connection)
        let required = zip(entity.fieldAttributes, matches)
            .filter { $0.1 != nil && $0.0.holdsValue && !$0.0.isOptional }.map(\.0)
        for attribute in required where attribute.initialValue != nil {
            try fillInitialValues(entity, added: [attribute], whereNull: true, on: connection)
        }
    }

    /// Gives every copied row of `entity` its own value of each added field
    /// declared with `dynamicInitialValue:`, as a new object gets one (the
    /// copy wrote the placeholder default; the indexes come later). With
    /// `whereNull`, only the rows the copy left `NULL` get one: those of a
    /// required field whose old column held `NULL`
    /// (see ``expression(for:from:entity:old:arguments:on:)``).
    private func fillInitialValues(
        _ entity: EntityDescription, added: [AttributeDescription], whereNull: Bool = false,
        on connection: Connection
    ) throws {
        let dynamic = added.filter { $0.initialValue != nil }
        guard !dynamic.isEmpty else { return }
        let table = SQL.quote(Self.temporaryPrefix + entity.tableName)
        // In a tree, the entity's own rows: its subentities fill theirs.
        var conditions = entity.tree == nil ? [] : ["\(SQL.quote(EntityTree.discriminatorColumn)) = ?"]
        let arguments = entity.tree == nil ? [] : [StoredValue.text(entity.name)]
        if whereNull { conditions += dynamic.map { "\(SQL.quote($0.name)) IS NULL" } }
        let own = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        let rowIDs = try connection.query("SELECT _pk FROM \(table)\(own)", arguments) {
            $0.int64(at: 0)
        }
        let update = "UPDATE \(table) SET "
            + dynamic.map { "\(SQL.quote($0.name)) = ?" }.joined(separator: ", ") + " WHERE _pk = ?"
        for rowID in rowIDs {
            var arguments: [StoredValue] = []
            for attribute in dynamic {
                arguments.append(try initialValue(attribute.initialValue!, of: attribute, in: entity))
            }
            try connection.run(update, arguments + [.integer(rowID)])
        }
    }

    /// One value of a `dynamicInitialValue:`, or the migration's failure
    /// when it cannot be stored.
    func initialValue(
        _ make: InitialValue, of attribute: AttributeDescription, in entity: EntityDescription
    ) throws(StrataError) -> StoredValue {
        do {
            return try make()
        } catch {
            throw failure(entity.name, attribute.name, "its dynamic initial value cannot be stored: \(error)")
        }
    }

    /// The condition that keeps the old entity's own rows of its table: in a
    /// tree, those whose discriminator names it; otherwise every row.
    func sourceRows(of old: EntityDescription) -> (sql: String, arguments: [StoredValue]) {
        guard old.tree != nil else { return ("", []) }
        return (" WHERE \(SQL.quote(EntityTree.discriminatorColumn)) = ?", [.text(old.name)])
    }

    /// Two entities brought into one tree whose rows hold the same row ID.
    func sharedRowIDs(_ entity: EntityDescription) -> StrataError {
        failure(
            entity.name, nil,
            "its rows and those of another entity now in \(entity.tableName)'s inheritance tree "
                + "share row IDs, which a tree's one table cannot hold")
    }

    /// The old attribute each new one is carried from, matching values with
    /// values, to-ones with to-ones and positions with positions. A to-one whose
    /// target is not the old target's successor starts empty.
    func attributeSources(
        _ entity: EntityDescription, _ old: EntityDescription
    ) -> [AttributeDescription?] {
        func group(_ attribute: AttributeDescription) -> Int {
            switch attribute.kind {
            case .stored, .coded: return 0
            case .foreignKey: return 1
            case .order: return 2
            case .discriminator: return 3
            }
        }
        // The entities' own fields (all its attributes outside a tree).
        let attributes = entity.fieldAttributes
        var result = [AttributeDescription?](repeating: nil, count: attributes.count)
        for kind in 0..<3 {
            let indices = attributes.indices.filter { group(attributes[$0]) == kind }
            let matched = RenameMatching.match(
                indices.map { attributes[$0] }, in: old.fieldAttributes.filter { group($0) == kind })
            for (index, previous) in zip(indices, matched) { result[index] = previous }
        }
        for (index, attribute) in attributes.enumerated() {
            guard case .foreignKey(let name) = attribute.kind,
                  case .foreignKey(let oldName)? = result[index]?.kind,
                  let target = entity.relationships[name]?.target,
                  let oldTarget = old.relationships[oldName]?.target
            else { continue }
            if !carriesLinks(from: oldTarget, to: target) { result[index] = nil }
        }
        return result
    }

    /// Whether links to objects of the source entity `oldTarget` are still
    /// links of a relationship to the destination entity `target`: its
    /// successor is `target` or a subentity of it (a target widened to a
    /// base entity), so every object linked before is one of `target`'s.
    func carriesLinks(from oldTarget: String, to target: String) -> Bool {
        guard let successor = successorName(of: oldTarget).flatMap(destination.entity(named:)),
              let target = destination.entity(named: target)
        else { return false }
        return target.includes(successor)
    }

    /// The destination entity the source entity `name` becomes, if any.
    func successorName(of name: String) -> String? {
        zip(destination.entities, predecessors).first { $0.1?.name == name }?.0.name
    }

    /// The SQL that reads the new column's value from the old row, binding
    /// defaults into `arguments`.
    private func expression(
        for attribute: AttributeDescription, from previous: AttributeDescription?,
        entity: EntityDescription, old: EntityDescription, arguments: inout [StoredValue],
        on connection: Connection
    ) throws -> String {
        let isValue = attribute.kind == .stored || attribute.kind == .coded
        guard let previous else {
            // A new to-one may take its keys from where its inverse kept them.
            guard isValue else { return keysFromInverse(of: attribute, in: entity, old: old) ?? "NULL" }
            arguments.append(attribute.defaultValue)
            return "?"
        }
        let column = SQL.quote(previous.name)
        var value: String
        switch try conversion(of: attribute, from: previous, in: entity) {
        case .unchanged:
            value = column
        case .integerToReal:
            // Every integer within ±2^53 is exactly a Double; beyond, some are not.
            let limit: Int64 = 1 << 53
            // SQLite's column may hold reals too; PostgreSQL's holds integers only.
            let integers = connection.dialect == .sqlite ? "typeof(\(column)) = 'integer' AND " : ""
            let lossy = try connection.scalar(
                "SELECT count(*) FROM \(old.quotedTable) WHERE \(integers)\(column) NOT BETWEEN ? AND ?",
                [.integer(-limit), .integer(limit)])
            if let lossy, lossy != .integer(0) {
                throw failure(
                    entity.name, attribute.name,
                    "\(lossy) stored integers lie beyond ±2^53 and would not be exact as Doubles")
            }
            value = "CAST(\(column) AS \(connection.dialect.castType("REAL")))"
        case .integerToText:
            value = "CAST(\(column) AS \(connection.dialect.castType("TEXT")))"
        case .textToBytes:
            value = connection.dialect.utf8Bytes(of: column)
        }
        // A field with a dynamic initial value keeps its NULLs here, for
        // `fillInitialValues` to give each row a value of its own.
        if isValue, !attribute.isOptional, attribute.initialValue == nil {
            arguments.append(attribute.defaultValue)
            value = "coalesce(\(value), ?)"
        }
        return value
    }

    /// Creates a link table under its temporary name and copies the links of
    /// the relationship it stores when both its entities survive.
    private func copyLinkTable(
        _ table: TableDefinition, sources: [String: EntityDescription], on connection: Connection
    ) throws {
        var temporary = table
        temporary.name = Self.temporaryPrefix + table.name
        temporary.indexes = []
        for statement in temporary.createStatements(in: connection.dialect) { try connection.execute(statement) }
        var oldTable: String?
        var mapping: [String: String] = [:]
        for entity in destination.entities {
            for relationship in entity.relationships.values where relationship.entity == entity.name {
                guard case let .linkTable(name, owner, target, order) = relationship.storage,
                      name == table.name,
                      let old = sources[entity.name],
                      let previous = RenameMatching.match(
                          [relationship], in: Array(old.relationships.values)).first ?? nil,
                      case let .linkTable(oldName, oldOwner, oldTarget, oldOrder) = previous.storage,
                      carriesLinks(from: previous.target, to: relationship.target),
                      oldTable == nil || oldTable == oldName
                else { continue }
                oldTable = oldName
                mapping[owner] = oldOwner
                mapping[target] = oldTarget
                if let order, let oldOrder { mapping[order] = oldOrder }
            }
        }
        guard let oldTable, mapping["source"] != nil, mapping["target"] != nil else {
            // No old link table: the relationship may have been a to-one.
            return try copyLinksFromForeignKeys(table, sources: sources, on: connection)
        }
        let columns = table.columns.map(\.name)
        let values = columns.map { mapping[$0].map(SQL.quote) ?? "NULL" }
        try connection.execute(
            "INSERT INTO \(SQL.quote(temporary.name)) "
                + "(\(columns.map(SQL.quote).joined(separator: ", "))) "
                + "SELECT \(values.joined(separator: ", ")) FROM \(SQL.quote(oldTable))")
    }

    private func createIndexes(of table: TableDefinition, on connection: Connection) throws {
        for (index, statement) in zip(table.indexes, table.createStatements(in: connection.dialect).dropFirst()) {
            do {
                try connection.execute(statement)
            } catch let error as DatabaseError where error.primaryCode == 19 {  // SQLITE_CONSTRAINT
                // In a tree's table, the entity whose fields the index covers, as a commit names it.
                let entity = destination.entity(declaring: index.columns, inTable: table.name)
                    ?? table.name
                guard index.columns.count > 1 else {
                    throw failure(
                        entity, index.columns.first, "two objects hold the same value, which .unique forbids")
                }
                throw failure(
                    entity, nil,
                    "two objects hold the same values of (\(index.columns.joined(separator: ", "))), "
                        + "which its unique constraint forbids")
            }
        }
    }

    /// Moves each table's last handed-out row ID to its new name, so that IDs
    /// are still never reused. Sequences are kept per table (an inheritance
    /// tree's under its root's name): a table that gathers several old ones
    /// takes the largest.
    private func carrySequence(
        _ sources: [String: EntityDescription], on connection: Connection
    ) throws {
        let rows = try connection.query("SELECT entity, last FROM _strata_sequence") {
            ($0.value(at: 0), $0.value(at: 1))
        }
        var last: [String: Int64] = [:]
        for case let (.text(entity), .integer(value)) in rows { last[entity] = value }
        try connection.execute("DELETE FROM _strata_sequence")
        var carried: [String: Int64] = [:]
        for (name, old) in sources {
            guard let table = destination.entity(named: name)?.tableName,
                  let value = last[old.tableName]
            else { continue }
            carried[table] = max(carried[table] ?? value, value)
        }
        for (table, value) in carried.sorted(by: { $0.key < $1.key }) {
            try connection.run(
                "INSERT INTO _strata_sequence (entity, last) VALUES (?, ?)", [.text(table), .integer(value)])
        }
    }
}
