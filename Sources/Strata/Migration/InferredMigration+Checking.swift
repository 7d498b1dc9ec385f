/// What inference refuses whatever the store holds: the checks the copy of
/// each column makes, run against the two schemas alone, so that a forecast
/// (``DataStack/requiredMigrations(for:)``) refuses a step adding the store
/// would refuse, as CoreStore's forecast fails when no mapping can be inferred.
/// Refusals that depend on the rows (an integer beyond ±2^53, duplicates
/// under a new `.unique`) are found only when the step runs.
extension InferredMigration {
    /// How an old column's values become the new column's.
    enum Conversion {
        case unchanged
        case integerToReal
        case integerToText
        /// A coded field's JSON text kept as its UTF-8 bytes: a field given
        /// a `coder:` (``FieldCoders/Json`` reads them).
        case textToBytes
    }

    /// How `attribute` of `entity` is carried from the old attribute `previous`.
    ///
    /// - Throws: ``StrataError/migrationFailed(sourceVersion:destinationVersion:entity:field:reason:)``
    ///   when a stored field becomes a coded one or the reverse, or its column
    ///   type changes other than `INTEGER` to `REAL` or `TEXT`, or a coded
    ///   field's `TEXT` to `BLOB`.
    func conversion(
        of attribute: AttributeDescription, from previous: AttributeDescription,
        in entity: EntityDescription
    ) throws(StrataError) -> Conversion {
        let isValue = attribute.kind == .stored || attribute.kind == .coded
        if isValue, previous.kind != attribute.kind {
            throw failure(
                entity.name, attribute.name,
                "a \(previous.kind == .coded ? "coded" : "stored") field cannot change into a "
                    + "\(attribute.kind == .coded ? "coded" : "stored") one by inference")
        }
        switch (previous.storedType, attribute.storedType) {
        case let (from, to) where from == to: return .unchanged
        case (.integer, .real): return .integerToReal
        case (.integer, .text): return .integerToText
        case (.text, .blob) where attribute.kind == .coded: return .textToBytes
        case let (from, to):
            throw failure(
                entity.name, attribute.name,
                "a \(from.rawValue) column cannot become \(to.rawValue) without loss; "
                    + "inference converts INTEGER to REAL or TEXT, and a coded field's TEXT to BLOB, only")
        }
    }

    /// Throws what running the step would throw for a column it cannot carry,
    /// without touching a store: every entity copied by inference (not by a
    /// custom transformer) is checked, field by field.
    ///
    /// - Throws: what ``conversion(of:from:in:)`` throws.
    func checkInferable() throws(StrataError) {
        for (entity, old) in zip(destination.entities, predecessors) {
            guard let old, transformers[entity.name] == nil else { continue }
            for (attribute, previous) in zip(entity.fieldAttributes, attributeSources(entity, old)) {
                if let previous { _ = try conversion(of: attribute, from: previous, in: entity) }
            }
        }
    }
}

/// The one refusal about relationships, which depends on the rows: a
/// to-many made to-one would start empty (which member to keep is a choice
/// inference cannot make, and Core Data's inferred mapping refuses the
/// change outright), so while it holds links the step fails instead of
/// dropping them; one that holds none migrates. A custom step that transforms
/// the entity is refused the same way: a transformer reads and writes fields,
/// not links, so it cannot choose the member either. Only links between two
/// objects the step keeps count: one to or from an object a transformer
/// dropped goes with that object, as in any custom step.
extension InferredMigration {
    /// Throws when a relationship goes from to-many to to-one, between the
    /// same entities' lines, while the store holds links of it between two
    /// objects the step carried. Runs once the entities' new tables are filled.
    ///
    /// - Throws: ``StrataError/migrationFailed(sourceVersion:destinationVersion:entity:field:reason:)``
    ///   naming the relationship and how many such links it holds.
    func refuseDroppingToManyLinks(on connection: Connection) throws {
        for (entity, old) in zip(destination.entities, predecessors) {
            guard let old else { continue }
            for relationship in entity.relationships.values.sorted(by: { $0.name < $1.name })
            where relationship.entity == entity.name && relationship.isToOne {
                guard let previous = RenameMatching.match(
                          [relationship], in: Array(old.relationships.values)).first ?? nil,
                      !previous.isToOne,
                      carriesLinks(from: previous.target, to: relationship.target),
                      let links = try keptLinkCount(of: previous, into: entity, on: connection),
                      links > 0
                else { continue }
                throw failure(
                    entity.name, relationship.name,
                    "a to-many made to-one would drop its \(links) links, since which member "
                        + "to keep is a choice the step cannot make (a custom transformer neither "
                        + "reads nor sets links); delete them before the step, in the old version "
                        + "or in a willMigrate hook, to let it start empty")
            }
        }
    }

    /// How many links the source relationship `relationship` holds between
    /// objects the step carried: rows of the new tables of `owner` (the
    /// entity continuing its owner) and of the entity continuing its target.
    ///
    /// ```sql
    /// SELECT count(*) FROM "_strata_link_Shelf_marks"
    ///     WHERE "source" IN (SELECT "_pk" FROM "_strata_migrating_Shelf")
    ///     AND "target" IN (SELECT "_pk" FROM "_strata_migrating_Mark")
    /// ```
    private func keptLinkCount(
        of relationship: RelationshipDescription, into owner: EntityDescription,
        on connection: Connection
    ) throws -> Int64? {
        guard let target = successorName(of: relationship.target)
            .flatMap(destination.entity(named:))
        else { return nil }
        func kept(_ entity: EntityDescription) -> String {
            "(SELECT \"_pk\" FROM \(SQL.quote(Self.temporaryPrefix + entity.tableName)))"
        }
        let sql: String
        switch relationship.storage {
        case .foreignKey:
            return nil
        case let .inverseForeignKey(targetSlot, _):
            guard let member = source.entity(named: relationship.target) else { return nil }
            let column = SQL.quote(member.attributes[targetSlot].name)
            sql = "SELECT count(*) FROM \(member.quotedTable) "
                + "WHERE \(column) IN \(kept(owner)) AND \"_pk\" IN \(kept(target))"
        case let .linkTable(table, ownerColumn, targetColumn, _):
            sql = "SELECT count(*) FROM \(SQL.quote(table)) "
                + "WHERE \(SQL.quote(ownerColumn)) IN \(kept(owner)) "
                + "AND \(SQL.quote(targetColumn)) IN \(kept(target))"
        }
        guard case .integer(let count)? = try connection.scalar(sql, []) else { return nil }
        return count
    }
}
