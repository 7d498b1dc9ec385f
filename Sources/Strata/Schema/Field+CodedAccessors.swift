import Foundation

extension Field.Coded {
    /// What a coded field's `customGetter` and `customSetter` are given
    /// beside the object, as CoreStore's `FieldProxy`: the field's value as
    /// decoded from the store, which neither closure is called for.
    ///
    /// ```swift
    /// @Field.Coded(
    ///     "tags",
    ///     customGetter: { (object: Post, field) in field.primitiveValue.sorted() },
    ///     customSetter: { (object: Post, field, newValue) in
    ///         field.primitiveValue = Array(Set(newValue))
    ///     })
    /// var tags: [String] = []
    /// ```
    public struct Proxy {
        let object: ManagedObject
        let field: DeclaredField<Value>

        /// The field's value in this object, decoded (and, when set,
        /// encoded) by the field's coder. Setting it is a change to save, as
        /// setting a field without custom accessors is: it traps on an
        /// object of the main context, and a value the coder cannot encode
        /// fails the commit with ``StrataError/invalidValue(entity:field:reason:)``.
        public var primitiveValue: Value {
            get { object.readCoded(field) }
            nonmutating set { object.writeCoded(newValue, field) }
        }
    }

    /// Declares a field whose value `coder` turns into bytes and back, with
    /// a default value, whose reads through the object run `customGetter`
    /// and whose writes run `customSetter`, as CoreStore's
    /// `@Field.Coded(..., customGetter:, customSetter:)` does. Give either or
    /// both; the closure names the class it is given, and `field`'s
    /// ``Proxy/primitiveValue`` is the value as stored:
    ///
    /// ```swift
    /// @Field.Coded(
    ///     "settings", coder: FieldCoders.Json.self,
    ///     customGetter: { (object: Account, field) in field.primitiveValue.withDefaults() })
    /// var settings: Settings = Settings()
    /// ```
    ///
    /// The rules are those of a stored field's custom accessors (see
    /// ``Field/Stored/init(wrappedValue:_:_:renamingIdentifier:customGetter:customSetter:)``):
    /// the getter runs for `object.settings` and `object.$settings.value`,
    /// the setter for `object.settings = ...` on a writable object only, and
    /// everything else (queries, snapshots, observations, change sets,
    /// migrations) sees the stored value. Inside the closures, use
    /// `field.primitiveValue`: `object.settings` would call them again.
    public init<Object: ManagedObject, Coder: FieldCoderType>(
        wrappedValue: Value, _ name: String, renamingIdentifier: String? = nil, coder: Coder.Type,
        customGetter: (@Sendable (_ object: Object, _ field: Proxy) -> Value)? = nil,
        customSetter: (@Sendable (_ object: Object, _ field: Proxy, _ newValue: Value) -> Void)? = nil
    ) where Coder.FieldStoredValue == Value {
        self.init(
            name, renamingIdentifier, { .coder(coder) }, defaultValue: { wrappedValue },
            accessors: { CodedAccessors(name, getter: customGetter, setter: customSetter) })
    }

    /// Declares a field whose value `coder` turns into bytes and back, and
    /// `dynamicInitialValue` makes anew for every object created, with a
    /// `customGetter`, a `customSetter` or both; see
    /// ``init(wrappedValue:_:renamingIdentifier:coder:customGetter:customSetter:)``.
    /// The initial value is stored as it is, without the setter.
    public init<Object: ManagedObject, Coder: FieldCoderType>(
        _ name: String, renamingIdentifier: String? = nil, coder: Coder.Type,
        customGetter: (@Sendable (_ object: Object, _ field: Proxy) -> Value)? = nil,
        customSetter: (@Sendable (_ object: Object, _ field: Proxy, _ newValue: Value) -> Void)? = nil,
        dynamicInitialValue: @escaping @Sendable () -> Value
    ) where Coder.FieldStoredValue == Value {
        self.init(
            name, renamingIdentifier, { .coder(coder) }, defaultValue: dynamicInitialValue,
            dynamicInitialValue: dynamicInitialValue,
            accessors: { CodedAccessors(name, getter: customGetter, setter: customSetter) })
    }

    /// Declares a field whose value two closures turn into bytes and back,
    /// with a default value, a `customGetter`, a `customSetter` or both; see
    /// ``init(wrappedValue:_:renamingIdentifier:coder:customGetter:customSetter:)``.
    public init<Object: ManagedObject>(
        wrappedValue: Value, _ name: String, renamingIdentifier: String? = nil,
        coder: (encode: @Sendable (Value) -> Data?, decode: @Sendable (Data?) -> Value),
        customGetter: (@Sendable (_ object: Object, _ field: Proxy) -> Value)? = nil,
        customSetter: (@Sendable (_ object: Object, _ field: Proxy, _ newValue: Value) -> Void)? = nil
    ) {
        self.init(
            name, renamingIdentifier, { .closures(encode: coder.encode, decode: coder.decode) },
            defaultValue: { wrappedValue },
            accessors: { CodedAccessors(name, getter: customGetter, setter: customSetter) })
    }

    /// Declares a field whose value two closures turn into bytes and back,
    /// and `dynamicInitialValue` makes anew for every object created, with
    /// a `customGetter`, a `customSetter` or both.
    public init<Object: ManagedObject>(
        _ name: String, renamingIdentifier: String? = nil,
        coder: (encode: @Sendable (Value) -> Data?, decode: @Sendable (Data?) -> Value),
        customGetter: (@Sendable (_ object: Object, _ field: Proxy) -> Value)? = nil,
        customSetter: (@Sendable (_ object: Object, _ field: Proxy, _ newValue: Value) -> Void)? = nil,
        dynamicInitialValue: @escaping @Sendable () -> Value
    ) {
        self.init(
            name, renamingIdentifier, { .closures(encode: coder.encode, decode: coder.decode) },
            defaultValue: dynamicInitialValue, dynamicInitialValue: dynamicInitialValue,
            accessors: { CodedAccessors(name, getter: customGetter, setter: customSetter) })
    }
}

extension Field.Coded where Value: Codable {
    /// Declares a field stored as JSON, with a default value, a
    /// `customGetter`, a `customSetter` or both; see
    /// ``init(wrappedValue:_:renamingIdentifier:coder:customGetter:customSetter:)``.
    ///
    /// ```swift
    /// @Field.Coded("tags", customGetter: { (object: Post, field) in field.primitiveValue.sorted() })
    /// var tags: [String] = []
    /// ```
    public init<Object: ManagedObject>(
        wrappedValue: Value, _ name: String, renamingIdentifier: String? = nil,
        customGetter: (@Sendable (_ object: Object, _ field: Proxy) -> Value)? = nil,
        customSetter: (@Sendable (_ object: Object, _ field: Proxy, _ newValue: Value) -> Void)? = nil
    ) {
        self.init(
            name, renamingIdentifier, { .json }, defaultValue: { wrappedValue },
            accessors: { CodedAccessors(name, getter: customGetter, setter: customSetter) })
    }

    /// Declares a field stored as JSON whose value `dynamicInitialValue`
    /// makes anew for every object created, with a `customGetter`, a
    /// `customSetter` or both.
    public init<Object: ManagedObject>(
        _ name: String, renamingIdentifier: String? = nil,
        customGetter: (@Sendable (_ object: Object, _ field: Proxy) -> Value)? = nil,
        customSetter: (@Sendable (_ object: Object, _ field: Proxy, _ newValue: Value) -> Void)? = nil,
        dynamicInitialValue: @escaping @Sendable () -> Value
    ) {
        self.init(
            name, renamingIdentifier, { .json }, defaultValue: dynamicInitialValue,
            dynamicInitialValue: dynamicInitialValue,
            accessors: { CodedAccessors(name, getter: customGetter, setter: customSetter) })
    }

    /// Declares an optional field stored as JSON, `nil` by default, with a
    /// `customGetter`, a `customSetter` or both.
    public init<Object: ManagedObject, Wrapped: Codable>(
        _ name: String, renamingIdentifier: String? = nil,
        customGetter: (@Sendable (_ object: Object, _ field: Proxy) -> Value)? = nil,
        customSetter: (@Sendable (_ object: Object, _ field: Proxy, _ newValue: Value) -> Void)? = nil
    ) where Value == Wrapped? {
        self.init(
            name, renamingIdentifier, { .json }, defaultValue: { nil },
            accessors: { CodedAccessors(name, getter: customGetter, setter: customSetter) })
    }
}

extension Field.Coded where Value: ExpressibleByNilLiteral {
    /// Declares an optional field whose value `coder` turns into bytes and
    /// back (`nil` is `NULL`), with a default value, a `customGetter`, a
    /// `customSetter` or both.
    public init<Object: ManagedObject, Coder: FieldCoderType, Wrapped>(
        wrappedValue: Value, _ name: String, renamingIdentifier: String? = nil, coder: Coder.Type,
        customGetter: (@Sendable (_ object: Object, _ field: Proxy) -> Value)? = nil,
        customSetter: (@Sendable (_ object: Object, _ field: Proxy, _ newValue: Value) -> Void)? = nil
    ) where Value == Wrapped?, Coder.FieldStoredValue == Wrapped {
        self.init(
            name, renamingIdentifier, { .optionalCoder(coder) }, defaultValue: { wrappedValue },
            accessors: { CodedAccessors(name, getter: customGetter, setter: customSetter) })
    }

    /// Declares an optional field whose value `coder` turns into bytes and
    /// back, `nil` by default, with a `customGetter`, a `customSetter` or
    /// both.
    ///
    /// ```swift
    /// @Field.Coded(
    ///     "profile", coder: FieldCoders.Json.self,
    ///     customGetter: { (object: Person, field) in field.primitiveValue ?? Profile.empty })
    /// var profile: Profile?
    /// ```
    public init<Object: ManagedObject, Coder: FieldCoderType, Wrapped>(
        _ name: String, renamingIdentifier: String? = nil, coder: Coder.Type,
        customGetter: (@Sendable (_ object: Object, _ field: Proxy) -> Value)? = nil,
        customSetter: (@Sendable (_ object: Object, _ field: Proxy, _ newValue: Value) -> Void)? = nil
    ) where Value == Wrapped?, Coder.FieldStoredValue == Wrapped {
        self.init(
            name, renamingIdentifier, { .optionalCoder(coder) }, defaultValue: { nil },
            accessors: { CodedAccessors(name, getter: customGetter, setter: customSetter) })
    }

    /// Declares an optional field whose value two closures turn into bytes
    /// and back, `nil` by default, with a `customGetter`, a `customSetter`
    /// or both.
    public init<Object: ManagedObject>(
        _ name: String, renamingIdentifier: String? = nil,
        coder: (encode: @Sendable (Value) -> Data?, decode: @Sendable (Data?) -> Value),
        customGetter: (@Sendable (_ object: Object, _ field: Proxy) -> Value)? = nil,
        customSetter: (@Sendable (_ object: Object, _ field: Proxy, _ newValue: Value) -> Void)? = nil
    ) {
        self.init(
            name, renamingIdentifier, { .closures(encode: coder.encode, decode: coder.decode) },
            defaultValue: { nil },
            accessors: { CodedAccessors(name, getter: customGetter, setter: customSetter) })
    }
}

/// A coded field's custom accessors.
typealias CodedAccessors<Value> = FieldAccessors<Value, Field.Coded<Value>.Proxy>

extension DeclaredField {
    /// The coded field's `customGetter` and `customSetter`, if it has either.
    var codedAccessors: CodedAccessors<Value>? {
        accessors.map { $0 as! CodedAccessors<Value> }
    }
}
