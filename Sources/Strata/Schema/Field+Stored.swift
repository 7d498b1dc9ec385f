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
    public struct Stored<Value: FieldStorable>: FieldWrapper, DeclaringFieldWrapper {
        /// The declaration, in a prototype's wrapper and a projected value;
        /// `nil` in the wrapper an ordinary object stores (see ``DeclaredField``).
        @usableFromInline let declaredField: DeclaredField<Value>?

        /// The field's name in the schema and column name in the store.
        public var name: String { projection.declaration.name }
        /// The field's options.
        public var options: FieldOptions { projection.options }
        /// The field's name in the previous schema version, when it was renamed;
        /// read by migrations only, and not part of the fingerprint.
        public var renamingIdentifier: String? { projection.declaration.renamingIdentifier }
        /// The value a new object starts with.
        var defaultValue: Value { projection.defaultValue }

        /// The object whose field this is, in a projected value; `nil` in a
        /// key-path prototype's.
        var enclosingObject: ManagedObject? { declaredField?.object }

        /// Declares a field with a default value. `renamingIdentifier` is the
        /// field's previous name, when a new schema version renames it:
        ///
        /// ```swift
        /// @Field.Stored("fullName", renamingIdentifier: "name") var fullName: String = ""
        /// ```
        // Always inlined: every object creation runs it once per field, and
        // inlined, the arguments an ordinary object drops cost nothing.
        @inlinable @inline(__always)
        public init(
            wrappedValue: Value, _ name: String, _ options: FieldOptions = [],
            renamingIdentifier: String? = nil
        ) {
            declaredField = DeclaredFields.isDescribing
                ? Self.declare(wrappedValue, name, options, renamingIdentifier) : nil
        }

        @usableFromInline
        init(_ declaredField: DeclaredField<Value>) {
            self.declaredField = declaredField
        }

        /// Declares an optional field whose default is `nil`.
        @inlinable @inline(__always)
        public init<Wrapped>(
            _ name: String, _ options: FieldOptions = [], renamingIdentifier: String? = nil
        ) where Value == Wrapped? {
            self.init(wrappedValue: nil, name, options, renamingIdentifier: renamingIdentifier)
        }

        /// Declares a field whose value `dynamicInitialValue` makes anew for
        /// every object created, where `= value` is worked out once for the
        /// whole class. Declare it without `= value`:
        ///
        /// ```swift
        /// @Field.Stored("identifier", .unique, dynamicInitialValue: { UUID() })
        /// var identifier: UUID
        /// @Field.Stored("createdDate", dynamicInitialValue: { Date() })
        /// var createdDate: Date
        /// ```
        ///
        /// The closure runs in the transaction's `create` (imports included),
        /// and once per existing row when a migration adds the field. A value
        /// that cannot be stored fails the transaction's commit with
        /// ``StrataError/invalidValue(entity:field:reason:)``, or the migration
        /// with ``StrataError/migrationFailed(sourceVersion:destinationVersion:entity:field:reason:)``.
        @inlinable @inline(__always)
        public init(
            _ name: String, _ options: FieldOptions = [], renamingIdentifier: String? = nil,
            dynamicInitialValue: @escaping @Sendable () -> Value
        ) {
            declaredField = DeclaredFields.isDescribing
                ? Self.declare(
                    dynamicInitialValue(), name, options, renamingIdentifier,
                    initialValue: { try dynamicInitialValue().storableValue() })
                : nil
        }

        /// The declaration a prototype's wrapper keeps.
        @usableFromInline
        static func declare(
            _ defaultValue: Value, _ name: String, _ options: FieldOptions, _ renamingIdentifier: String?,
            initialValue: (@Sendable () throws -> StoredValue)? = nil, accessors: StoredAccessors<Value>? = nil
        ) -> DeclaredField<Value> {
            let declaration = FieldDeclaration(
                name: name, renamingIdentifier: renamingIdentifier, initialValue: initialValue,
                failing: "its default value cannot be stored"
            ) {
                .stored(
                    Value.storedType, isOptional: Value.isOptional,
                    defaultValue: try defaultValue.storableValue(), options: options)
            }
            return DeclaredField(declaration, defaultValue: defaultValue, accessors: accessors)
        }

        /// Unavailable: the value lives in the object, read through the
        /// `_enclosingInstance` subscript, so a field outside a class has none.
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
        // Inlinable, finding the wrapper by its offset as the value's accessors
        // do: no accessor of a stored field then passes a key path on, and an
        // optimized build checks no access to the wrapper at run time.
        @inlinable
        public static subscript<Object: ManagedObject>(
            _enclosingInstance object: Object,
            projected projectedKeyPath: KeyPath<Object, Self>,
            storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
        ) -> Self {
            projecting(object, wrapperAt: object.wrapperOffset(&object[keyPath: storageKeyPath]))
        }

        /// `object.age`: the value, read from and written to the object's
        /// context (not the wrapper, which holds none).
        // Inlinable, so that each field's accessors are specialized for its type
        // in the model's module. The fast path finds the value slot by the
        // wrapper's offset in the object, a constant once optimized, and never
        // copies the wrapper; no path passes a key path on, so an optimized
        // build makes none. Always inlined: a call would take the key paths.
        @inlinable
        public static subscript<Object: ManagedObject>(
            _enclosingInstance object: Object,
            wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
            storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
        ) -> Value {
            @inline(__always) get {
                let offset = object.wrapperOffset(&object[keyPath: storageKeyPath])
                if let stored = object.storedValue(ofWrapperAt: offset),
                   let value = try? Value(storedValue: stored) {
                    return value
                }
                return object.readStoredField(Self.declared(in: object, wrapperAt: offset))
            }
            @inline(__always) set {
                let offset = object.wrapperOffset(&object[keyPath: storageKeyPath])
                if let stored = try? newValue.storedValue(), object.assignStoredValue(stored, ofWrapperAt: offset) {
                    return
                }
                object.writeStoredField(newValue, Self.declared(in: object, wrapperAt: offset))
            }
        }
    }
}
