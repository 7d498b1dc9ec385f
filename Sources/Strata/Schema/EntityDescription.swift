
/// A persisted column of an entity's table, and the slot it fills in each
/// object's value array.
struct AttributeDescription: Sendable {
    enum Kind: Sendable, Equatable {
        /// A `@Field.Stored` attribute.
        case stored
        /// A `@Field.Coded` attribute (JSON text).
        case coded
        /// The foreign key of a to-one relationship (the related row ID).
        case foreignKey(relationship: String)
        /// The position of this object in an ordered to-many relationship of its owner.
        case order(relationship: String)
    }

    var name: String
    var kind: Kind
    var storedType: StoredType
    var isOptional: Bool
    var defaultValue: StoredValue
    var options: FieldOptions
    /// The index of this attribute in an object's value array.
    var slot: Int
    /// The column's name in the previous schema version, for migrations.
    var renamingIdentifier: String? = nil
}

/// Where a relationship's links live in the store.
enum RelationshipStorage: Sendable, Equatable {
    /// A to-one: a column of the owner's table holding the related row ID.
    case foreignKey(slot: Int)
    /// A to-many whose inverse is a to-one: the target's foreign-key column
    /// points back; an ordered one also keeps a position column there.
    case inverseForeignKey(targetSlot: Int, orderSlot: Int?)
    /// A many-to-many or an inverse-less to-many: rows of a link table.
    /// `ownerColumn` holds this side's row ID.
    case linkTable(table: String, ownerColumn: String, targetColumn: String, orderColumn: String?)
}

/// A relationship of an entity, resolved against the whole schema.
struct RelationshipDescription: Sendable {
    var name: String
    var entity: String
    var target: String
    var cardinality: RelationshipCardinality
    var inverse: String?
    var deleteRule: DeleteRule
    var storage: RelationshipStorage
    /// The relationship's name in the previous schema version, for migrations.
    var renamingIdentifier: String? = nil

    var isToOne: Bool { cardinality == .toOne }
}

/// Everything Strata knows about one entity, derived once per schema.
final class EntityDescription: Sendable {
    /// The entity's position in its schema, for per-entity tables in contexts.
    let index: Int
    let name: String
    /// The entity's name in the previous schema version, for migrations.
    let renamingIdentifier: String?
    /// The configuration of the store whose rows this description reads:
    /// `nil` in the default configuration's schema, which holds every entity.
    /// Each store has its own descriptions, so that objects of one entity in
    /// two stores are told apart (their IDs and identity-map keys differ).
    let configuration: String?
    let type: ManagedObject.Type
    let attributes: [AttributeDescription]
    let relationships: [String: RelationshipDescription]
    /// Field names in declaration order (attributes, relationships, virtuals).
    let fieldNames: [String]
    /// `_pk, "a", "b", ...`: the columns a materialized object reads.
    let selectList: String
    /// The statement that inserts one object.
    let insertSQL: String
    /// The statement that reads one row by its ID (`?`): made once, as a
    /// point read is too cheap to build its text on every call.
    let selectRowSQL: String
    /// The statement that reads the rows whose IDs a ``StoredValueList`` blob
    /// (`?`) lists, however many, in the list's order: the IDs bind as one
    /// parameter, and each is one look-up by row ID (`CROSS JOIN` keeps the
    /// list as the outer loop, where `IN` would first copy it into an index).
    let selectRowsSQL: String
    private let slots: [String: Int]

    init(
        index: Int, name: String, type: ManagedObject.Type, attributes: [AttributeDescription],
        relationships: [String: RelationshipDescription], fieldNames: [String],
        renamingIdentifier: String? = nil, configuration: String? = nil
    ) {
        self.configuration = configuration
        self.index = index
        self.name = name
        self.renamingIdentifier = renamingIdentifier
        let quotedTable = SQL.quote(name)
        self.quotedTable = quotedTable
        self.type = type
        self.attributes = attributes
        self.relationships = relationships
        self.fieldNames = fieldNames
        let selectList = (["_pk"] + attributes.map { SQL.quote($0.name) }).joined(separator: ", ")
        self.selectList = selectList
        var slots: [String: Int] = [:]
        for attribute in attributes {
            if case .stored = attribute.kind { slots[attribute.name] = attribute.slot }
            if case .coded = attribute.kind { slots[attribute.name] = attribute.slot }
            if case .foreignKey(let relationship) = attribute.kind {
                slots[relationship] = attribute.slot
            }
        }
        self.slots = slots
        self.defaultValues = ContiguousArray(attributes.map(\.defaultValue))
        self.insertSQL = "INSERT INTO \(quotedTable) (\(selectList)) VALUES "
            + "(\(SQL.placeholders(attributes.count + 1)))"
        self.selectRowSQL = "SELECT \(selectList) FROM \(quotedTable) WHERE _pk = ?"
        let qualifiedList = (["t._pk"] + attributes.map { "t.\(SQL.quote($0.name))" })
            .joined(separator: ", ")
        self.selectRowsSQL = "SELECT \(qualifiedList) FROM strata_values(?) AS v "
            + "CROSS JOIN \(quotedTable) AS t ON t._pk = v.value"
    }

    /// The value slot of a stored or coded field, or of a to-one relationship.
    func slot(of field: String) -> Int? { slots[field] }

    /// The table name, quoted.
    let quotedTable: String

    /// The default values of a new object, slot by slot.
    let defaultValues: ContiguousArray<StoredValue>

    /// The answers of ``changedFieldNames(from:to:)``, by the slots that changed.
    // Behind a `Locked`, not a `Mutex`: transactions of any thread reach it,
    // and the thread sanitizer does not see a `Mutex` on Linux.
    private let changedNames = Locked<[SlotSet: Set<String>]>([:])
}

extension EntityDescription {
    /// The names of the fields and relationships whose stored values differ
    /// between `old` and `new` (a slot's new value); order columns are not
    /// fields of their own.
    ///
    /// The sets are kept per combination of changed slots, so that a commit
    /// of many objects changed alike shares one set instead of hashing the
    /// names into a new one per object.
    func changedFieldNames(from old: ContiguousArray<StoredValue>, to new: (Int) -> StoredValue) -> Set<String> {
        var changed = SlotSet()
        for attribute in attributes where !old[attribute.slot].isIdentical(to: new(attribute.slot)) {
            changed.insert(attribute.slot)
        }
        if let known = changedNames.withLock({ $0[changed] }) { return known }
        var names: Set<String> = []
        for slot in changed {
            switch attributes[slot].kind {
            case .stored, .coded: names.insert(attributes[slot].name)
            case .foreignKey(let relationship): names.insert(relationship)
            case .order: break
            }
        }
        changedNames.withLock { cache in
            // Bounded: an entity of many fields changed every which way
            // would otherwise keep every combination.
            if cache.count < 256 { cache[changed] = names }
        }
        return names
    }
}
