import Foundation

extension Field {
    /// A persisted field of a value kept in a form of its own: a `Codable`
    /// value as JSON text, or, with a `coder:`, any value as the bytes the
    /// coder makes (a ``FieldCoderType`` such as ``FieldCoders/Json`` or
    /// ``FieldCoders/NSCoding``, or a pair of closures), as CoreStore's
    /// `@Field.Coded` does.
    ///
    /// Without a coder the JSON is written with sorted keys, so equal values
    /// store equal text and assigning an equal value is not a change. With a
    /// coder the column is a `BLOB`, `NULL` where the coder gives no bytes.
    ///
    /// ```swift
    /// struct Address: Codable, Sendable { var city: String }
    /// @Field.Coded("address") var address: Address? = nil
    ///
    /// @Field.Coded("job", coder: (
    ///     encode: { Data($0.rawValue.utf8) },
    ///     decode: { $0.flatMap { Job(rawValue: String(decoding: $0, as: UTF8.self)) } ?? .unemployed }
    /// ))
    /// var job: Job = .unemployed
    /// ```
    ///
    /// A value that cannot be encoded is refused at the commit with
    /// ``StrataError/invalidValue(entity:field:reason:)``; a stored value
    /// that does not decode reads as the field's default, with a warning.
    @propertyWrapper
    public struct Coded<Value>: FieldWrapper, DeclaringFieldWrapper {
        /// The declaration, in a prototype's wrapper and a projected value;
        /// `nil` in the wrapper an ordinary object stores (see ``DeclaredField``).
        @usableFromInline let declaredField: DeclaredField<Value>?

        /// The field's name in the schema and column name in the store.
        public var name: String { projection.declaration.name }
        /// The field's name in the previous schema version, when it was renamed.
        public var renamingIdentifier: String? { projection.declaration.renamingIdentifier }
        /// The value a new object starts with.
        var defaultValue: Value { projection.defaultValue }
        /// How the field's values are stored.
        var coding: FieldCoding<Value> { projection.codedForm }

        /// The object whose field this is, in a projected value; `nil` in a
        /// key-path prototype's.
        var enclosingObject: ManagedObject? { declaredField?.object }

        @usableFromInline
        init(_ declaredField: DeclaredField<Value>) {
            self.declaredField = declaredField
        }

        /// A wrapper of an object, or of a prototype: the declaration is made
        /// (and `coding`, `defaultValue` and `accessors` read) only while
        /// Strata describes the class, so that making an object allocates
        /// nothing for it.
        init(
            _ name: String, _ renamingIdentifier: String?, _ coding: () -> FieldCoding<Value>,
            defaultValue: () -> Value, dynamicInitialValue: (@Sendable () -> Value)? = nil,
            accessors: () -> CodedAccessors<Value>? = { nil }
        ) {
            declaredField = DeclaredFields.isDescribing
                ? Self.declare(
                    defaultValue(), name, renamingIdentifier, coding(), dynamicInitialValue, accessors())
                : nil
        }

        /// Declares a field whose value `coder` turns into bytes and back,
        /// with a default value.
        ///
        /// ```swift
        /// @Field.Coded("info", coder: FieldCoders.Json.self) var info: Info = Info()
        /// ```
        public init<Coder: FieldCoderType>(
            wrappedValue: Value, _ name: String, renamingIdentifier: String? = nil, coder: Coder.Type
        ) where Coder.FieldStoredValue == Value {
            self.init(name, renamingIdentifier, { .coder(coder) }, defaultValue: { wrappedValue })
        }

        /// Declares a field whose value `coder` turns into bytes and back,
        /// and `dynamicInitialValue` makes anew for every object created;
        /// declare it without `= value`.
        ///
        /// ```swift
        /// @Field.Coded("palette", coder: FieldCoders.NSCoding.self, dynamicInitialValue: { Palette() })
        /// var palette: Palette
        /// ```
        public init<Coder: FieldCoderType>(
            _ name: String, renamingIdentifier: String? = nil, coder: Coder.Type,
            dynamicInitialValue: @escaping @Sendable () -> Value
        ) where Coder.FieldStoredValue == Value {
            self.init(
                name, renamingIdentifier, { .coder(coder) }, defaultValue: dynamicInitialValue,
                dynamicInitialValue: dynamicInitialValue)
        }

        /// Declares a field whose value two closures turn into bytes and
        /// back, with a default value. `decode` is given `nil` for `NULL`
        /// (what `encode` returning `nil` stores) and says what it reads as.
        ///
        /// ```swift
        /// @Field.Coded("job", coder: (
        ///     encode: { Data($0.rawValue.utf8) },
        ///     decode: { $0.flatMap { Job(rawValue: String(decoding: $0, as: UTF8.self)) } ?? .unemployed }
        /// ))
        /// var job: Job = .unemployed
        /// ```
        public init(
            wrappedValue: Value, _ name: String, renamingIdentifier: String? = nil,
            coder: (encode: @Sendable (Value) -> Data?, decode: @Sendable (Data?) -> Value)
        ) {
            self.init(
                name, renamingIdentifier, { .closures(encode: coder.encode, decode: coder.decode) },
                defaultValue: { wrappedValue })
        }

        /// Declares a field whose value two closures turn into bytes and
        /// back, and `dynamicInitialValue` makes anew for every object
        /// created; declare it without `= value`.
        public init(
            _ name: String, renamingIdentifier: String? = nil,
            coder: (encode: @Sendable (Value) -> Data?, decode: @Sendable (Data?) -> Value),
            dynamicInitialValue: @escaping @Sendable () -> Value
        ) {
            self.init(
                name, renamingIdentifier, { .closures(encode: coder.encode, decode: coder.decode) },
                defaultValue: dynamicInitialValue, dynamicInitialValue: dynamicInitialValue)
        }

        /// Unavailable: the value lives in the object, read through the
        /// `_enclosingInstance` subscript, so a field outside a class has none.
        @available(*, unavailable, message: "Fields live in ManagedObject subclasses only")
        public var wrappedValue: Value {
            get { fatalError() }
            set { fatalError() }
        }

        /// The field itself, so that `\.$name` can name it.
        public var projectedValue: Self { self }

        /// `object.$address`: the field, carrying the object it was read from.
        public static subscript<Object: ManagedObject>(
            _enclosingInstance object: Object,
            projected projectedKeyPath: KeyPath<Object, Self>,
            storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
        ) -> Self {
            projecting(object, at: storageKeyPath)
        }

        /// `object.address`: the value, decoded from and encoded to the
        /// object's column.
        public static subscript<Object: ManagedObject>(
            _enclosingInstance object: Object,
            wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
            storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
        ) -> Value {
            // The fast paths find the value slot through the context, as a
            // stored field does; the slow paths by name, and through the
            // custom accessors (which the fast paths leave to them).
            get {
                let field = Self.declared(in: object, at: storageKeyPath)
                if let stored = object.storedValue(forField: storageKeyPath),
                   let value = try? field.codedForm.decode(stored) {
                    return value
                }
                return object.readCodedField(field)
            }
            set {
                let field = Self.declared(in: object, at: storageKeyPath)
                if let stored = try? field.codedForm.encode(newValue),
                   object.assignStoredValue(stored, forField: storageKeyPath) {
                    return
                }
                object.writeCodedField(newValue, field)
            }
        }

        /// The declaration a prototype's wrapper keeps.
        private static func declare(
            _ defaultValue: Value, _ name: String, _ renamingIdentifier: String?,
            _ coding: FieldCoding<Value>, _ dynamicInitialValue: (@Sendable () -> Value)?,
            _ accessors: CodedAccessors<Value>?
        ) -> DeclaredField<Value> {
            var initialValue: InitialValue?
            if let make = dynamicInitialValue {
                initialValue = { try coding.encode(make()) }
            }
            let declaration = FieldDeclaration(
                name: name, renamingIdentifier: renamingIdentifier, initialValue: initialValue,
                failing: "its default value cannot be encoded"
            ) {
                .coded(
                    coding.storedType, isOptional: Value.self is any ExpressibleByNilLiteral.Type,
                    defaultValue: try coding.encode(defaultValue))
            }
            return DeclaredField(
                declaration, defaultValue: defaultValue, coding: coding, accessors: accessors)
        }
    }
}

extension Field.Coded where Value: Codable {
    /// Declares a field stored as JSON, with a default value;
    /// `renamingIdentifier` is its previous name, when a new schema version
    /// renames it.
    ///
    /// ```swift
    /// @Field.Coded("tags") var tags: [String] = []
    /// ```
    public init(wrappedValue: Value, _ name: String, renamingIdentifier: String? = nil) {
        self.init(name, renamingIdentifier, { .json }, defaultValue: { wrappedValue })
    }

    /// Declares a field stored as JSON whose value `dynamicInitialValue`
    /// makes anew for every object created (see the same argument of
    /// ``Field/Stored``); declare it without `= value`.
    ///
    /// ```swift
    /// @Field.Coded("session", dynamicInitialValue: { Session(started: Date()) })
    /// var session: Session
    /// ```
    public init(
        _ name: String, renamingIdentifier: String? = nil,
        dynamicInitialValue: @escaping @Sendable () -> Value
    ) {
        self.init(
            name, renamingIdentifier, { .json }, defaultValue: dynamicInitialValue,
            dynamicInitialValue: dynamicInitialValue)
    }

    /// Declares an optional field stored as JSON whose default is `nil`.
    ///
    /// ```swift
    /// @Field.Coded("address") var address: Address?
    /// ```
    public init<Wrapped: Codable>(_ name: String, renamingIdentifier: String? = nil)
    where Value == Wrapped? {
        self.init(name, renamingIdentifier, { .json }, defaultValue: { nil })
    }
}

extension Field.Coded where Value: ExpressibleByNilLiteral {
    /// Declares an optional field whose value `coder` turns into bytes and
    /// back; `nil` is `NULL`, and the default, unless given.
    ///
    /// ```swift
    /// @Field.Coded("color", coder: FieldCoders.NSCoding.self) var color: Palette? = nil
    /// ```
    public init<Coder: FieldCoderType, Wrapped>(
        wrappedValue: Value, _ name: String, renamingIdentifier: String? = nil, coder: Coder.Type
    ) where Value == Wrapped?, Coder.FieldStoredValue == Wrapped {
        self.init(name, renamingIdentifier, { .optionalCoder(coder) }, defaultValue: { wrappedValue })
    }

    /// Declares an optional field whose value `coder` turns into bytes and
    /// back, with the default `nil`.
    ///
    /// ```swift
    /// @Field.Coded("profile", coder: FieldCoders.Json.self) var profile: Profile?
    /// ```
    public init<Coder: FieldCoderType, Wrapped>(
        _ name: String, renamingIdentifier: String? = nil, coder: Coder.Type
    ) where Value == Wrapped?, Coder.FieldStoredValue == Wrapped {
        self.init(name, renamingIdentifier, { .optionalCoder(coder) }, defaultValue: { nil })
    }

    /// Declares an optional field whose value `coder` turns into bytes and
    /// back, and `dynamicInitialValue` makes anew for every object created.
    public init<Coder: FieldCoderType, Wrapped>(
        _ name: String, renamingIdentifier: String? = nil, coder: Coder.Type,
        dynamicInitialValue: @escaping @Sendable () -> Value
    ) where Value == Wrapped?, Coder.FieldStoredValue == Wrapped {
        self.init(
            name, renamingIdentifier, { .optionalCoder(coder) }, defaultValue: dynamicInitialValue,
            dynamicInitialValue: dynamicInitialValue)
    }

    /// Declares an optional field whose value two closures turn into bytes
    /// and back, with the default `nil`.
    public init(
        _ name: String, renamingIdentifier: String? = nil,
        coder: (encode: @Sendable (Value) -> Data?, decode: @Sendable (Data?) -> Value)
    ) {
        self.init(
            name, renamingIdentifier, { .closures(encode: coder.encode, decode: coder.decode) },
            defaultValue: { nil })
    }
}
