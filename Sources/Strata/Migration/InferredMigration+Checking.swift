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
