
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
        /// The name of the row's concrete entity, in the table of an
        /// inheritance tree (`_entity`, slot 0; see `EntityTree`).
        case discriminator
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
    /// Makes each new object's value (`dynamicInitialValue:`); `defaultValue`
    /// is then only a placeholder.
    var initialValue: InitialValue? = nil
}

/// An index over several fields of an entity, from `Entity(indexes:)` or,
/// when unique, `Entity(uniqueConstraints:)`; its fields are column names.
struct CompoundIndex: Sendable, Hashable {
    var fields: [String]
    var isUnique: Bool

    /// The index's name in `table`: two underscores after the table's name,
    /// where a field's own index has one (a field name starts with a letter).
    func name(in table: String) -> String {
        "\(table)__\(fields.joined(separator: "__"))_\(isUnique ? "unique" : "index")"
    }
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
    /// How many members a to-many relationship may hold, checked at commit.
    var counts = MemberCounts()
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
    /// The to-many relationships with a `minCount` or `maxCount`, by name:
    /// what a commit counts (usually none, so the commit skips the entity).
    let boundedRelationships: [RelationshipDescription]
    /// Field names in declaration order (attributes, relationships, virtuals).
    let fieldNames: [String]
    /// `_pk, "a", "b", ...`: the columns a materialized object reads.
    let selectList: String
    /// The same columns of the row at alias `t0` (`t0._pk, t0."a", ...`),
    /// for a statement that reads another table beside it.
    let qualifiedSelectList: String
    /// The statement that inserts one object: its values, then its row ID.
    let insertSQL: String
    /// How many objects ``insertRowsSQL`` inserts: up to 64, and no more
    /// parameters than the 999 an SQLite build may allow at the least.
    let rowsPerInsert: Int
    /// The statement that inserts ``rowsPerInsert`` objects at once, each
    /// row as in ``insertSQL``. One statement for many rows is a third less
    /// of SQLite's work a row than one statement a row (its start and end,
    /// and the look-up of each new row ID, which in one statement continues
    /// from the row before), and on a server a round trip for many rows.
    let insertRowsSQL: String
    /// The statement that reads one row by its ID (`?`): made once, as a
    /// point read is too cheap to build its text on every call.
    let selectRowSQL: String
    /// The statement that reads the rows whose IDs a ``StoredValueList`` blob
    /// (`?`) lists, however many, in the list's order: the IDs bind as one
    /// parameter, and each is one look-up by row ID (`CROSS JOIN` keeps the
    /// list as the outer loop, where `IN` would first copy it into an index).
    let selectRowsSQL: String
    private let slots: [String: Int]

    /// The entity's place in an inheritance tree; `nil` for an entity with
    /// neither a parent entity nor subentities, for which nothing below differs
    /// from an entity of its own table.
    let tree: EntityTree?
    /// The index of the entity whose table holds this entity's rows: the
    /// root of its tree, or itself. Identity maps, row IDs and bulk changes
    /// are kept per table, since an ID names one row of the whole tree.
    let tableIndex: Int
    /// The name of the table holding the entity's rows (its tree's root's).
    let tableName: String
    /// Whether the entity's table holds rows of other entities too (it is in
    /// an inheritance tree): each row read then materializes as the entity
    /// its discriminator names, and a read by row ID checks it.
    let sharesTable: Bool
    /// Whether the entity is abstract: creating one of its objects traps.
    let isAbstract: Bool
    /// The indexes and unique constraints over several fields of the
    /// entity's table (in a tree, those of every entity of the tree).
    let compoundIndexes: [CompoundIndex]
    /// The slots of the columns a unique index covers: `.unique` fields and
    /// the fields of unique constraints.
    let uniqueSlots: SlotSet
    /// The attributes that are fields of this entity, its own and inherited
    /// ones (not the discriminator, nor other entities' columns of its tree).
    let fieldAttributes: [AttributeDescription]

    init(
        index: Int, name: String, type: ManagedObject.Type, attributes: [AttributeDescription],
        relationships: [String: RelationshipDescription], fieldNames: [String],
        renamingIdentifier: String? = nil, tree: EntityTree? = nil, isAbstract: Bool = false,
        configuration: String? = nil, compoundIndexes: [CompoundIndex] = []
    ) {
        self.configuration = configuration
        self.compoundIndexes = compoundIndexes
        let uniqueColumns = Set(compoundIndexes.filter(\.isUnique).flatMap(\.fields))
        var uniqueSlots = SlotSet()
        for attribute in attributes where attribute.options.contains(.unique) || uniqueColumns.contains(attribute.name) {
            uniqueSlots.insert(attribute.slot)
        }
        self.uniqueSlots = uniqueSlots
        self.index = index
        self.name = name
        self.renamingIdentifier = renamingIdentifier
        self.tree = tree
        self.tableIndex = tree?.rootIndex ?? index
        self.tableName = tree?.rootName ?? name
        self.sharesTable = tree != nil
        self.isAbstract = isAbstract
        let fieldAttributes = tree.map { tree in attributes.filter { tree.isMember($0.slot) } } ?? attributes
        self.fieldAttributes = fieldAttributes
        let quotedTable = SQL.quote(tableName)
        self.quotedTable = quotedTable
        self.type = type
        self.attributes = attributes
        self.relationships = relationships
        self.boundedRelationships = relationships.values.filter { $0.counts.isBounded }
            .sorted { $0.name < $1.name }
        self.fieldNames = fieldNames
        let columns = attributes.map { SQL.quote($0.name) }
        let selectList = (["_pk"] + columns).joined(separator: ", ")
        self.selectList = selectList
        var slots: [String: Int] = [:]
        for attribute in fieldAttributes {
            if case .stored = attribute.kind { slots[attribute.name] = attribute.slot }
            if case .coded = attribute.kind { slots[attribute.name] = attribute.slot }
            if case .foreignKey(let relationship) = attribute.kind {
                slots[relationship] = attribute.slot
            }
        }
        self.slots = slots
        let wrapperFields = DeclaredFields.wrapperFields(of: type)
        self.wrapperSlots = Self.wrapperSlots(of: wrapperFields, slots: slots)
        self.wrapperDeclarations = WrapperDeclarations(wrapperFields)
        // In a tree, another entity's columns hold NULL (not their defaults,
        // which could collide in a unique index), and the discriminator the name.
        self.defaultValues = ContiguousArray(attributes.map { attribute in
            guard let tree else { return attribute.defaultValue }
            if attribute.kind == .discriminator { return .text(name) }
            return tree.isMember(attribute.slot) ? attribute.defaultValue : .null
        })
        self.initialValues = attributes.compactMap { attribute in
            guard let make = attribute.initialValue, tree?.isMember(attribute.slot) ?? true else { return nil }
            return (attribute.slot, make)
        }
        let insertInto = "INSERT INTO \(quotedTable) ("
            + (columns + ["_pk"]).joined(separator: ", ") + ") VALUES "
        let row = "(\(SQL.placeholders(attributes.count + 1)))"
        self.insertSQL = insertInto + row
        self.rowsPerInsert = max(1, min(64, 999 / (attributes.count + 1)))
        self.insertRowsSQL = insertInto
            + Array(repeating: row, count: rowsPerInsert).joined(separator: ", ")
        self.selectRowSQL = "SELECT \(selectList) FROM \(quotedTable) WHERE _pk = ?"
        let qualifiedSelectList = (["t0._pk"] + columns.map { "t0.\($0)" }).joined(separator: ", ")
        self.qualifiedSelectList = qualifiedSelectList
        self.selectRowsSQL = "SELECT \(qualifiedSelectList) FROM strata_values(?) AS v "
            + "CROSS JOIN \(quotedTable) AS t0 ON t0._pk = v.value"
    }

    /// The value slot of a stored or coded field, or of a to-one relationship.
    func slot(of field: String) -> Int? { slots[field] }

    /// By the offset of a stored field's wrapper in an object of the
    /// entity's class, in words, the field's value slot; -1 at any other
    /// offset, and for a field with custom accessors (which its accessors'
    /// slow path runs).
    private let wrapperSlots: [Int32]

    /// The value slot of the stored field whose wrapper lies `offset` bytes
    /// into an object of the entity (``ManagedObject/wrapperOffset(_:)``);
    /// `nil` at any other offset and for a field with custom accessors.
    @inline(__always)
    func slot(ofWrapperAt offset: Int) -> Int? {
        wrapperSlots.withUnsafeBufferPointer { table in
            guard let word = WrapperWords.word(at: offset, within: table.count), table[word] >= 0
            else { return nil }
            return Int(table[word])
        }
    }

    /// The declarations of the fields of the entity's class (its
    /// superclasses' included) by their wrappers' offsets.
    private let wrapperDeclarations: WrapperDeclarations

    /// The declaration of the field whose wrapper lies `offset` bytes into
    /// an object of the entity's class; `nil` at any other offset.
    func declaration(ofWrapperAt offset: Int) -> (any AnyDeclaredField)? {
        wrapperDeclarations[offset]
    }

    /// ``wrapperSlots`` of an entity whose class's fields are `wrapperFields`
    /// (``DeclaredFields/wrapperFields(of:)``) and whose fields have `slots`.
    private static func wrapperSlots(
        of wrapperFields: [Int: any AnyDeclaredField], slots: [String: Int]
    ) -> [Int32] {
        WrapperWords.table(of: wrapperFields, empty: -1) { field in
            guard case .stored = field.declaration.kind, !field.hasCustomAccessors,
                  let slot = slots[field.declaration.name]
            else { return nil }
            return Int32(slot)
        }
    }

    /// The table name, quoted.
    let quotedTable: String

    /// The default values of a new object, slot by slot.
    let defaultValues: ContiguousArray<StoredValue>

    /// A copy of ``defaultValues`` in a buffer of its own, for a new object:
    /// its first assignment then writes in place, where a shared buffer would
    /// be copied element by element through the generic array copy (7% of
    /// inserting 100,000 objects) after a retain and release of the shared one.
    func newObjectValues() -> ContiguousArray<StoredValue> {
        var values = ContiguousArray<StoredValue>()
        values.reserveCapacity(defaultValues.count)
        for value in defaultValues { values.append(value) }
        return values
    }

    /// The slots whose value each new object takes from its field's
    /// `dynamicInitialValue:`, replacing the default.
    let initialValues: [(slot: Int, make: InitialValue)]

    /// The answers of ``changedFieldNames(from:to:)``, by the slots that changed.
    // Behind a `Locked`, not a `Mutex`: transactions of any thread reach it,
    // and the thread sanitizer does not see a `Mutex` on Linux.
    private let changedNames = Locked<[SlotSet: Set<String>]>([:])
}

extension EntityDescription {
    /// Whether a field or to-one relationship holds another value in `new`
    /// than in `old`; an ordered relationship's positions are its owner's
    /// change, not the member's.
    func hasChangedFields(from old: ContiguousArray<StoredValue>, to new: ContiguousArray<StoredValue>) -> Bool {
        attributes.contains { attribute in
            switch attribute.kind {
            case .stored, .coded, .foreignKey: return !old[attribute.slot].isIdentical(to: new[attribute.slot])
            case .order, .discriminator: return false
            }
        }
    }

    /// The names of the fields and relationships whose stored values differ
    /// between `old` and `new` (a slot's new value); order columns are not
    /// fields of their own.
    ///
    /// The sets are kept per combination of changed slots, so that a commit
    /// of many objects changed alike shares one set instead of hashing the
    /// names into a new one per object.
    func changedFieldNames(from old: ContiguousArray<StoredValue>, to new: (Int) -> StoredValue) -> Set<String> {
        var changed = SlotSet()
        // By index: `for attribute in attributes` copies each description,
        // retaining and releasing its strings (half of this function's time,
        // run once per updated object of a commit).
        for index in attributes.indices {
            let slot = attributes[index].slot
            if !old[slot].isIdentical(to: new(slot)) { changed.insert(slot) }
        }
        if let known = changedNames.withLock({ $0[changed] }) { return known }
        var names: Set<String> = []
        for slot in changed {
            switch attributes[slot].kind {
            case .stored, .coded: names.insert(attributes[slot].name)
            case .foreignKey(let relationship): names.insert(relationship)
            case .order, .discriminator: break
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

/// Where an entity sits in an inheritance tree: a root entity and every
/// entity whose class descends from it, stored in the root's one table with a
/// discriminator column naming each row's entity (`Docs/Storage.md`,
/// "Inheritance").
struct EntityTree: Sendable {
    /// The discriminator column: the name of the row's concrete entity.
    static let discriminatorColumn = "_entity"
    /// The discriminator's slot in every entity of a tree.
    static let discriminatorSlot = 0

    /// The root entity's index in the schema.
    let rootIndex: Int
    /// The root entity's name: the tree's table.
    let rootName: String
    /// The nearest ancestor entity, if any.
    let parentName: String?
    /// This entity and its subentities at every level, by schema index, in schema order.
    let family: [Int]
    /// Their names, in the same order.
    let familyNames: [String]
    /// Per slot of the tree's row, whether it is a field of this entity.
    let members: [Bool]

    /// Whether slot `slot` is one of the entity's fields.
    func isMember(_ slot: Int) -> Bool { slot < members.count && members[slot] }

    /// The discriminator values a read of the entity keeps; `nil` when the
    /// family is the whole tree (the root), which needs no filter.
    var filter: [String]? { parentName == nil ? nil : familyNames }
}

extension EntityDescription {
    /// Whether `other` is this entity or one of its subentities: an object
    /// of `other` is an object of this entity.
    @inline(__always)
    func includes(_ other: EntityDescription) -> Bool {
        other === self || (tree?.family.contains(other.index) ?? false)
    }

    /// The names of this entity and its subentities: the change-set keys an
    /// observer of the entity reads.
    var familyNames: [String] { tree?.familyNames ?? [name] }

    /// The condition that keeps the rows of this entity and its subentities
    /// (or, without `includingSubentities`, of this entity alone) in its
    /// tree's table read as `alias`, with its bound values; `nil` when every
    /// row of the table is one (an entity outside a tree, or a root with its
    /// subentities).
    ///
    /// ```sql
    /// t0."_entity" = ?            -- a leaf
    /// t0."_entity" IN (?, ?)      -- an entity with one subentity
    /// ```
    func discriminatorCondition(
        alias: String?, includingSubentities: Bool = true
    ) -> (sql: String, arguments: [StoredValue])? {
        guard tree != nil, let names = includingSubentities ? tree?.filter : [name] else { return nil }
        let column = (alias.map { "\($0)." } ?? "") + SQL.quote(EntityTree.discriminatorColumn)
        let arguments = names.map(StoredValue.text)
        if names.count == 1 { return ("\(column) = ?", arguments) }
        return ("\(column) IN (\(SQL.placeholders(names.count)))", arguments)
    }
}
