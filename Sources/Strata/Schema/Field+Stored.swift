extension Field {
    /// A persisted attribute of any ``FieldStorable`` type.
    ///
    /// The string names the column; `= value` is the default for new objects.
    /// `\.$name` refers to the field in queries:
    ///
    /// ```swift
    /// @Field.Stored("age", .indexed) var age: Int = 0
    /// let adults = try stack.fetchAll(From<Person>().where(\.$age >= 18))
    /// ```
    @propertyWrapper
    public struct Stored<Value: FieldStorable>: FieldWrapper {
        @usableFromInline let names: FieldNames
        /// The field's name in the schema and column name in the store.
        public var name: String { names.name }
        /// The field's options. A projected value (`object.$age`) reads them
        /// from its object's entity, and a detached object's from nowhere: `[]`.
        public var options: FieldOptions {
            switch extra {
            case .options(let rawValue):
                return FieldOptions(rawValue: Int(rawValue))
            case .object(let object):
                return object.entity?.attributes.first { $0.name == name }?.options ?? []
            }
        }
        /// The field's name in the previous schema version, when it was renamed;
        /// read by migrations only, and not part of the fingerprint.
        public var renamingIdentifier: String? { names.previous }
        @usableFromInline let defaultValue: Value
        /// The declared options in the wrapper an object stores; the object
        /// whose field this is in a projected value (`object.$age`).
        @usableFromInline let extra: StoredFieldExtra

        /// The object whose field this is, in a projected value; `nil` in the
        /// wrapper an object stores and in key-path prototypes.
        var enclosingObject: ManagedObject? {
            if case .object(let object) = extra { return object }
            return nil
        }

        /// Declares a field with a default value. `renamingIdentifier` is the
        /// field's previous name, when a new schema version renames it:
        ///
        /// ```swift
        /// @Field.Stored("fullName", renamingIdentifier: "name") var fullName: String = ""
        /// ```
        @inlinable
        public init(
            wrappedValue: Value, _ name: String, _ options: FieldOptions = [],
            renamingIdentifier: String? = nil
        ) {
            self.names = FieldNames(name, previous: renamingIdentifier)
            self.defaultValue = wrappedValue
            // Every option Strata defines fits in a byte; bits past them mean nothing.
            self.extra = .options(UInt8(truncatingIfNeeded: options.rawValue))
        }

        private init(_ field: Self, enclosingObject: ManagedObject) {
            self.names = field.names
            self.defaultValue = field.defaultValue
            self.extra = .object(enclosingObject)
        }

        /// Declares an optional field whose default is `nil`.
        public init<Wrapped>(
            _ name: String, _ options: FieldOptions = [], renamingIdentifier: String? = nil
        ) where Value == Wrapped? {
            self.init(wrappedValue: nil, name, options, renamingIdentifier: renamingIdentifier)
        }

        @available(*, unavailable, message: "Fields live in ManagedObject subclasses only")
        public var wrappedValue: Value {
            get { fatalError() }
            set { fatalError() }
        }

        /// The field itself, so that `\.$name` can name it in queries.
        public var projectedValue: Self { self }

        /// `object.$age`: the field, carrying the object it was read from, so
        /// that ``observe(_:)`` knows whose field to follow. The type stays
        /// `Field.Stored<Value>`, so `\.$age` key paths still name the field.
        public static subscript<Object: ManagedObject>(
            _enclosingInstance object: Object,
            projected projectedKeyPath: KeyPath<Object, Self>,
            storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
        ) -> Self {
            Self(object[keyPath: storageKeyPath], enclosingObject: object)
        }

        // Inlinable, so that each field's accessors are specialized for its type
        // in the model's module; the fast path finds the value slot by the key
        // path's identity and never copies the wrapper.
        @inlinable
        public static subscript<Object: ManagedObject>(
            _enclosingInstance object: Object,
            wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
            storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
        ) -> Value {
            get {
                if let stored = object.storedValue(forField: storageKeyPath),
                   let value = try? Value(storedValue: stored) {
                    return value
                }
                let field = object[keyPath: storageKeyPath]
                return object.readStored(field.name, default: field.defaultValue)
            }
            set {
                if let stored = try? newValue.storedValue(),
                   object.assignStoredValue(stored, forField: storageKeyPath) {
                    return
                }
                object.writeStored(newValue, field: object[keyPath: storageKeyPath].name)
            }
        }

        func declaration() -> FieldDeclaration {
            do {
                return FieldDeclaration(
                    name: name,
                    kind: .stored(
                        Value.storedType, isOptional: Value.isOptional,
                        defaultValue: try defaultValue.storedValue(), options: options),
                    renamingIdentifier: renamingIdentifier)
            } catch {
                return FieldDeclaration(
                    name: name, kind: .virtual,
                    problem: "its default value cannot be stored: \(error)")
            }
        }
    }
}

/// What a `Field.Stored` holds beside its names and default: the declared
/// options in the wrapper an object stores, or, in a projected value
/// (`object.$age`), the object it was read from (held strongly: a projected
/// value is short-lived, and a weak reference would give every object it is
/// read from a side table). One word either way, since the options fit in
/// bits a reference never uses; every fetched object stores one per field,
/// and nothing is built when it is made.
@usableFromInline
enum StoredFieldExtra {
    case options(UInt8)
    case object(ManagedObject)
}
