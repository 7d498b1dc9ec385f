extension InferredMigration {
    /// How many source rows a transform reads at a time.
    static let chunkSize = 1_000

    /// Creates the entity's new table and fills it by calling `transformer` on
    /// each row of the old table, read in chunks of ``chunkSize`` by row ID:
    ///
    /// ```sql
    /// SELECT "_pk", <old columns> FROM <old> WHERE "_pk" > ? ORDER BY "_pk" LIMIT 1000
    /// INSERT INTO "_strata_migrating_<name>" ("_pk", <new columns>) VALUES (?, ...)
    /// ```
    ///
    /// To-one and position columns are carried as inference carries them.
    /// In an inheritance tree only the old entity's own rows are read, and
    /// the new rows take the entity's name in the discriminator.
    func transformEntity(
        _ entity: EntityDescription, from old: EntityDescription,
        with transformer: CustomEntityMapping.Transformer, on connection: Connection
    ) throws {
        let oldColumns = old.fieldAttributes.map(\.name)
        let oldRows = old.tree == nil ? "" : " AND \(SQL.quote(EntityTree.discriminatorColumn)) = ?"
        let select = "SELECT \(([ "_pk" ] + oldColumns).map(SQL.quote).joined(separator: ", ")) "
            + "FROM \(old.quotedTable) WHERE \"_pk\" > ?\(oldRows) ORDER BY \"_pk\" LIMIT \(Self.chunkSize)"
        let discriminator = entity.tree == nil ? [] : [EntityTree.discriminatorColumn]
        let newColumns = discriminator + entity.fieldAttributes.map(\.name)
        let insert = "INSERT INTO \(SQL.quote(Self.temporaryPrefix + entity.tableName)) "
            + "(\(([ "_pk" ] + newColumns).map(SQL.quote).joined(separator: ", "))) "
            + "VALUES (\(Array(repeating: "?", count: newColumns.count + 1).joined(separator: ", ")))"
        let matches = attributeSources(entity, old)
        let sourceFields = old.fieldAttributes.filter(\.holdsValue).map(\.name)
        let destinationFields = entity.fieldAttributes.filter(\.holdsValue).map(\.name)

        var last = Int64.min
        while true {
            let rows = try connection.query(select, [.integer(last)] + (old.tree == nil ? [] : [.text(old.name)])) {
                statement in
                (statement.int64(at: 0),
                 (0..<oldColumns.count).map { statement.value(at: Int32($0 + 1)) })
            }
            guard let lastRow = rows.last else { break }
            for (rowID, values) in rows {
                let oldValues = Dictionary(uniqueKeysWithValues: zip(oldColumns, values))
                let sourceObject = SourceObject(
                    entity: old.name, rowID: rowID, fieldNames: sourceFields,
                    values: oldValues.filter { sourceFields.contains($0.key) })
                var created: DestinationObject?
                var unstorable: StrataError?
                do {
                    try transformer(sourceObject) {
                        if let created { return created }
                        let values: [String: StoredValue]
                        do throws(StrataError) {
                            values = try initialValues(entity, matches, oldValues)
                        } catch {
                            unstorable = error
                            values = [:]
                        }
                        let object = DestinationObject(
                            entity: entity.name, rowID: rowID, fieldNames: destinationFields, values: values)
                        created = object
                        return object
                    }
                } catch {
                    throw StrataError.migrationStepThrew(
                        sourceVersion: source.version, destinationVersion: destination.version,
                        entity: entity.name, error: error)
                }
                if let unstorable { throw unstorable }
                guard let created else { continue }
                var arguments: [StoredValue] = [.integer(rowID)] + (entity.tree == nil ? [] : [.text(entity.name)])
                for (attribute, previous) in zip(entity.fieldAttributes, matches) {
                    if attribute.holdsValue {
                        let value = created.values[attribute.name] ?? .null
                        if value == .null, !attribute.isOptional {
                            throw failure(
                                entity.name, attribute.name,
                                "the transformer left the required field NULL (row \(rowID))")
                        }
                        // Set through the subscript, which takes any value: SQLite
                        // would store NULL, and the field read back as its default.
                        if value.isNaN {
                            throw failure(
                                entity.name, attribute.name,
                                "the transformer set NaN, which cannot be stored (row \(rowID))")
                        }
                        arguments.append(value)
                    } else {
                        arguments.append(previous.flatMap { oldValues[$0.name] } ?? .null)
                    }
                }
                do {
                    try connection.run(insert, arguments)
                } catch let error as DatabaseError where error.primaryCode == 19 && entity.tree != nil {
                    throw sharedRowIDs(entity)
                }
            }
            last = lastRow.0
        }
        // A new to-one whose inverse kept its links elsewhere takes them, as inference does.
        let table = SQL.quote(Self.temporaryPrefix + entity.tableName)
        for (attribute, previous) in zip(entity.fieldAttributes, matches) where previous == nil {
            guard let keys = keysFromInverse(
                of: attribute, in: entity, old: old, row: "\(table).\"_pk\"")
            else { continue }
            let own = entity.discriminatorCondition(alias: nil, includingSubentities: false)
            try connection.run(
                "UPDATE \(table) SET \(SQL.quote(attribute.name)) = \(keys)"
                    + (own.map { " WHERE " + $0.sql } ?? ""),
                own?.arguments ?? [])
        }
    }

    /// A destination object's first values: the old value where inference
    /// carries the field with the same column type, else the default (a new
    /// one from a `dynamicInitialValue:`).
    ///
    /// - Throws: the ``StrataError/migrationFailed(sourceVersion:destinationVersion:entity:field:reason:)``
    ///   of a dynamic initial value that cannot be stored.
    private func initialValues(
        _ entity: EntityDescription, _ matches: [AttributeDescription?],
        _ oldValues: [String: StoredValue]
    ) throws(StrataError) -> [String: StoredValue] {
        var values: [String: StoredValue] = [:]
        for (attribute, previous) in zip(entity.fieldAttributes, matches) where attribute.holdsValue {
            var value = try attribute.initialValue.map { make throws(StrataError) in
                try initialValue(make, of: attribute, in: entity)
            } ?? attribute.defaultValue
            if let previous, previous.kind == attribute.kind,
               previous.storedType == attribute.storedType,
               let old = oldValues[previous.name], old != .null || attribute.isOptional
            {
                value = old
            }
            values[attribute.name] = value
        }
        return values
    }

    /// Clears the to-ones and deletes the links that point at objects a
    /// transformer dropped, in the tables being built. An end is checked when
    /// its table lost rows to a transformer: in an inheritance tree, the
    /// dropped objects of a subentity are also objects of its base entities,
    /// whose relationships reach them too.
    func removeReferencesToDroppedObjects(on connection: Connection) throws {
        guard !transformers.isEmpty else { return }
        func building(_ name: String) -> String { SQL.quote(Self.temporaryPrefix + name) }
        func tableOf(_ name: String) -> String { destination.entity(named: name)?.tableName ?? name }
        let transformedTables = Set(transformers.keys.map(tableOf))
        func mayHaveDropped(_ name: String) -> Bool { transformedTables.contains(tableOf(name)) }
        // Each relationship once, on the entity declaring it; the tables are the trees'.
        for entity in destination.entities {
            for attribute in entity.fieldAttributes {
                guard case .foreignKey(let name) = attribute.kind,
                      entity.relationships[name]?.entity == entity.name,
                      let target = entity.relationships[name]?.target,
                      mayHaveDropped(target)
                else { continue }
                let column = SQL.quote(attribute.name)
                var assignments = ["\(column) = NULL"]
                if let order = entity.fieldAttributes.first(where: { $0.kind == .order(relationship: name) }) {
                    assignments.append("\(SQL.quote(order.name)) = NULL")
                }
                try connection.execute(
                    "UPDATE \(building(entity.tableName)) SET \(assignments.joined(separator: ", ")) "
                        + "WHERE \(column) NOT IN (SELECT \"_pk\" FROM \(building(tableOf(target))))")
            }
            for relationship in entity.relationships.values where relationship.entity == entity.name {
                guard case let .linkTable(table, owner, target, _) = relationship.storage else {
                    continue
                }
                for (column, end) in [(owner, entity.name), (target, relationship.target)]
                where mayHaveDropped(end) {
                    try connection.execute(
                        "DELETE FROM \(building(table)) WHERE \(SQL.quote(column)) "
                            + "NOT IN (SELECT \"_pk\" FROM \(building(tableOf(end))))")
                }
            }
        }
    }
}

extension AttributeDescription {
    /// Whether the attribute is a stored or coded field, not a relationship column.
    var holdsValue: Bool { kind == .stored || kind == .coded }
}
