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
        /// The field's name in the schema and column name in the store.
        public let name: String
        /// The field's options.
        public let options: FieldOptions
        @usableFromInline let defaultValue: Value

        /// Declares a field with a default value.
        public init(wrappedValue: Value, _ name: String, _ options: FieldOptions = []) {
            self.name = name
            self.options = options
            self.defaultValue = wrappedValue
        }

        /// Declares an optional field whose default is `nil`.
        public init<Wrapped>(_ name: String, _ options: FieldOptions = [])
        where Value == Wrapped? {
            self.init(wrappedValue: nil, name, options)
        }

        @available(*, unavailable, message: "Fields live in ManagedObject subclasses only")
        public var wrappedValue: Value {
            get { fatalError() }
            set { fatalError() }
        }

        /// The field itself, so that `\.$name` can name it in queries.
        public var projectedValue: Self { self }

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
                        defaultValue: try defaultValue.storedValue(), options: options))
            } catch {
                return FieldDeclaration(
                    name: name, kind: .virtual,
                    problem: "its default value cannot be stored: \(error)")
            }
        }
    }
}
