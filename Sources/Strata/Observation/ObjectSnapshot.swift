/// A value copy of an object's stored values: `Sendable`, so it crosses
/// threads where the object cannot.
///
/// Read fields through their `$` names, as in queries. A snapshot is a
/// value, as CoreStore's is: setting a field on a `var` copy changes that
/// copy only, never the object or the store.
///
/// ```swift
/// let snapshot = ObjectSnapshot(person)
/// Task.detached {
///     print(snapshot.$name, snapshot.$age, snapshot.objectID)
/// }
/// ```
///
/// Relationships read as CoreStore's do, as publishers of the related objects
/// as they were when the snapshot was made (on the main actor, through the
/// stack the snapshot came from): `snapshot.$owner` is an
/// `ObjectPublisher<Person>?`, `snapshot.$pets` a `Set<ObjectPublisher<Pet>>`.
///
/// Two snapshots are equal when they copy the same object with the same
/// values (bit for bit, so `-0.0` differs from `0.0`) and the same related
/// objects.
@dynamicMemberLookup
public struct ObjectSnapshot<Object: ManagedObject>: Sendable, Hashable, CustomStringConvertible {
    /// The object's ID.
    ///
    /// ```swift
    /// let person = try stack.fetchExisting(snapshot.objectID)
    /// ```
    public let objectID: ObjectID<Object>
    let entity: EntityDescription
    private(set) var values: ContiguousArray<StoredValue>
    /// The related objects of the to-many relationships (whose links are not
    /// among ``values``, as a to-one's foreign key is), by relationship name,
    /// as they were when the snapshot was made; empty for an entity without
    /// to-many relationships.
    let linked: [String: [AnyObjectID]]
    /// The store the snapshot was read from, through whose stack its
    /// relationships are published.
    let origin: SnapshotOrigin

    init(
        entity: EntityDescription, rowID: Int64, values: ContiguousArray<StoredValue>,
        linked: [String: [AnyObjectID]] = [:], origin: SnapshotOrigin = SnapshotOrigin(nil)
    ) {
        self.objectID = ObjectID(entityName: entity.name, rowID: rowID, configuration: entity.configuration)
        self.entity = entity
        self.values = values
        self.linked = linked
        self.origin = origin
    }

    /// A copy of `object`'s current values. Any context's object will do (a
    /// transaction's object gives its pending values); an object made with
    /// `init()` traps, having no entity.
    ///
    /// ```swift
    /// let snapshot = ObjectSnapshot(person)
    /// ```
    public init(_ object: Object) {
        guard let entity = object.entity else {
            misuse(
                "Strata: this \(Object.self) was created with \(Object.self)() and has no values to copy. "
                    + "Create objects inside a transaction with create(Into<\(Object.self)>()).")
        }
        guard let context = object.context else {
            self.init(entity: entity, rowID: object.rowID, values: object.values)
            return
        }
        self.init(
            entity: entity, rowID: object.rowID, values: object.values,
            linked: context.linkedIDs(ofRow: object.rowID, entity),
            origin: SnapshotOrigin(context.store))
    }

    /// The entity's name.
    ///
    /// ```swift
    /// snapshot.entityName   // "Person"
    /// ```
    public var entityName: String { entity.name }

    /// The names of the values the snapshot holds: stored and coded fields,
    /// and to-one relationships (whose value is the related row ID).
    ///
    /// ```swift
    /// for name in snapshot.fieldNames { print(name, snapshot.storedValue(forField: name)!) }
    /// ```
    public var fieldNames: [String] {
        entity.fieldAttributes.compactMap { attribute in
            switch attribute.kind {
            case .stored, .coded: return attribute.name
            case .foreignKey(let relationship): return relationship
            case .order, .discriminator: return nil
            }
        }
    }

    /// The value of a stored field, read through its key path; set on a
    /// `var` copy, it changes that copy only.
    ///
    /// ```swift
    /// let name: String = snapshot.$name
    /// var draft = snapshot
    /// draft.$name = "Ann"   // snapshot.$name is unchanged
    /// ```
    public subscript<Value>(dynamicMember keyPath: KeyPath<Object, Field.Stored<Value>>) -> Value {
        get {
            let name = FieldPath.name(keyPath)
            guard let stored = storedValue(forField: name) else {
                misuse("Strata: \(entity.name) has no stored field named '\(name)'.")
            }
            do {
                return try Value(storedValue: stored)
            } catch {
                StrataLog.warning(
                    .objects,
                    "\(entity.name).\(name) holds \(stored), which is not a \(Value.self); "
                        + "reading the field's default instead")
                return DeclaredFields.field(at: keyPath, of: Value.self).defaultValue
            }
        }
        set {
            set(FieldPath.name(keyPath)) { try newValue.storedValue() }
        }
    }

    /// The value of a coded field, decoded from its stored form; set on a
    /// `var` copy, it changes that copy only.
    ///
    /// ```swift
    /// let address: Address? = snapshot.$address
    /// ```
    public subscript<Value>(dynamicMember keyPath: KeyPath<Object, Field.Coded<Value>>) -> Value {
        get {
            let name = FieldPath.name(keyPath)
            guard let stored = storedValue(forField: name) else {
                misuse("Strata: \(entity.name) has no coded field named '\(name)'.")
            }
            let field = DeclaredFields.field(at: keyPath, of: Value.self)
            do {
                return try field.codedForm.decode(stored)
            } catch {
                StrataLog.warning(
                    .objects,
                    "\(entity.name).\(name) holds a value that does not decode as \(Value.self); "
                        + "reading the field's default instead")
                return field.defaultValue
            }
        }
        set {
            let coding = DeclaredFields.field(at: keyPath, of: Value.self).codedForm
            set(FieldPath.name(keyPath)) { try coding.encode(newValue) }
        }
    }

    /// Sets the named field of this copy to what `make` stores; a value that
    /// cannot be stored leaves the field as it was, with a warning (a setter
    /// cannot throw).
    private mutating func set(_ name: String, to make: () throws -> StoredValue) {
        guard let slot = entity.slot(of: name) else {
            misuse("Strata: \(entity.name) has no field named '\(name)'.")
        }
        do {
            values[slot] = try make()
        } catch {
            StrataLog.warning(
                .objects,
                "\(entity.name).\(name) cannot hold the value set on this snapshot "
                    + "(\(StrataError.wrapping(error))); the snapshot keeps its value")
        }
    }

    /// The value stored for a field or to-one relationship, by name, or `nil`
    /// when the entity has no such value.
    ///
    /// ```swift
    /// snapshot.storedValue(forField: "age")   // .integer(31)
    /// ```
    public func storedValue(forField name: String) -> StoredValue? {
        entity.slot(of: name).map { values[$0] }
    }

    /// Every value the snapshot holds, by field name (the names of
    /// ``fieldNames``), as CoreStore's `dictionaryForValues()`: stored and
    /// coded fields as stored, to-one relationships as the related row ID or
    /// `.null`.
    ///
    /// ```swift
    /// let values = snapshot.dictionaryForValues()   // ["name": .text("Ann"), "age": .integer(31), ...]
    /// ```
    public func dictionaryForValues() -> [String: StoredValue] {
        Dictionary(uniqueKeysWithValues: fieldNames.compactMap { name in
            storedValue(forField: name).map { (name, $0) }
        })
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.objectID == rhs.objectID && lhs.values.isIdentical(to: rhs.values)
            && lhs.linked == rhs.linked
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(objectID)
        hasher.combine(values.count)
        for value in values { hasher.combine(value) }
        hasher.combine(linked)
    }

    public var description: String {
        let fields = fieldNames.compactMap { name in
            storedValue(forField: name).map { "\(name): \($0)" }
        }
        return "ObjectSnapshot(\(objectID)) { \(fields.joined(separator: ", ")) }"
    }
}
