extension Field.Stored {
    /// Declares a stored field whose reads through the object run
    /// `customGetter`, and whose writes run `customSetter`, as CoreStore's
    /// `@Field.Stored(..., customGetter:, customSetter:)` does. Give either
    /// or both; the closure names the class it is given (the class that
    /// declares the field, or one of its superclasses), and `field`'s
    /// ``Proxy/primitiveValue`` is the value as stored:
    ///
    /// ```swift
    /// final class Account: ManagedObject {
    ///     @Field.Stored(
    ///         "email",
    ///         customGetter: { (object: Account, field) in field.primitiveValue.lowercased() },
    ///         customSetter: { (object: Account, field, newValue) in
    ///             field.primitiveValue = newValue.trimmingCharacters(in: .whitespaces)
    ///         })
    ///     var email: String = ""
    /// }
    /// ```
    ///
    /// The getter runs for `object.email` and `object.$email.value`; the
    /// setter for `object.email = ...`, imports' `update(from:in:)` included,
    /// and only on an object that may be written (a transaction's): setting
    /// a main-context object's field traps before the setter runs. A setter
    /// that does not set `field.primitiveValue` leaves the stored value as
    /// it was. Everything else sees the stored value: queries, sorting and
    /// sections, snapshots, observations, change sets, a unique import's ID,
    /// migrations. Inside the closures, read and write this field through
    /// `field.primitiveValue`: `object.email` would call the getter again,
    /// without end. The closures run on the thread of the object they are
    /// given, hence `@Sendable`; one given an object of another class than
    /// it names traps.
    @inlinable @inline(__always)
    public init<Object: ManagedObject>(
        wrappedValue: Value, _ name: String, _ options: FieldOptions = [],
        renamingIdentifier: String? = nil,
        customGetter: (@Sendable (_ object: Object, _ field: Proxy) -> Value)? = nil,
        customSetter: (@Sendable (_ object: Object, _ field: Proxy, _ newValue: Value) -> Void)? = nil
    ) {
        declaredField = DeclaredFields.isDescribing
            ? Self.declare(
                wrappedValue, name, options, renamingIdentifier,
                accessors: StoredAccessors(name, getter: customGetter, setter: customSetter))
            : nil
    }

    /// Declares an optional stored field, `nil` by default, with a
    /// `customGetter`, a `customSetter` or both; see
    /// ``init(wrappedValue:_:_:renamingIdentifier:customGetter:customSetter:)``.
    ///
    /// ```swift
    /// @Field.Stored("nickname", customGetter: { (object: Person, field) in
    ///     field.primitiveValue ?? object.name
    /// })
    /// var nickname: String?
    /// ```
    @inlinable @inline(__always)
    public init<Object: ManagedObject, Wrapped>(
        _ name: String, _ options: FieldOptions = [], renamingIdentifier: String? = nil,
        customGetter: (@Sendable (_ object: Object, _ field: Proxy) -> Value)? = nil,
        customSetter: (@Sendable (_ object: Object, _ field: Proxy, _ newValue: Value) -> Void)? = nil
    ) where Value == Wrapped? {
        self.init(
            wrappedValue: nil, name, options, renamingIdentifier: renamingIdentifier,
            customGetter: customGetter, customSetter: customSetter)
    }

    /// Declares a stored field whose value `dynamicInitialValue` makes for
    /// each new object, with a `customGetter`, a `customSetter` or both; see
    /// ``init(_:_:renamingIdentifier:dynamicInitialValue:)`` and
    /// ``init(wrappedValue:_:_:renamingIdentifier:customGetter:customSetter:)``.
    /// The initial value is stored as it is, without the setter.
    @inlinable @inline(__always)
    public init<Object: ManagedObject>(
        _ name: String, _ options: FieldOptions = [], renamingIdentifier: String? = nil,
        customGetter: (@Sendable (_ object: Object, _ field: Proxy) -> Value)? = nil,
        customSetter: (@Sendable (_ object: Object, _ field: Proxy, _ newValue: Value) -> Void)? = nil,
        dynamicInitialValue: @escaping @Sendable () -> Value
    ) {
        declaredField = DeclaredFields.isDescribing
            ? Self.declare(
                dynamicInitialValue(), name, options, renamingIdentifier,
                initialValue: { try dynamicInitialValue().storableValue() },
                accessors: StoredAccessors(name, getter: customGetter, setter: customSetter))
            : nil
    }

    /// What a stored field's `customGetter` and `customSetter` are given
    /// beside the object, as CoreStore's `FieldProxy`: the field's value as
    /// stored, which neither closure is called for.
    ///
    /// ```swift
    /// @Field.Stored("title", customGetter: { (object: Book, field) in
    ///     field.primitiveValue.isEmpty ? "Untitled" : field.primitiveValue
    /// })
    /// var title: String = ""
    /// ```
    public struct Proxy {
        let object: ManagedObject
        let field: DeclaredField<Value>

        /// The field's stored value in this object. Setting it is a change
        /// to save, as setting a field without custom accessors is: it traps
        /// on an object of the main context, and a value that cannot be
        /// stored fails the commit with ``StrataError/invalidValue(entity:field:reason:)``.
        public var primitiveValue: Value {
            get { object.readStored(field) }
            nonmutating set { object.writeStored(newValue, field) }
        }
    }
}

/// A field's `customGetter` and `customSetter` of any value type, as a
/// ``DeclaredField`` holds them: ``StoredAccessors`` or ``CodedAccessors``.
@usableFromInline
protocol AnyFieldAccessors: Sendable {}

/// A field's `customGetter` and `customSetter`, taking any
/// ``ManagedObject``: each checks that the object is of the class its
/// closure names. `Proxy` is what the field's closures are given beside
/// the object (``Field/Stored/Proxy``, ``Field/Coded/Proxy``). Held by the
/// field's declaration, in its class's prototype.
@usableFromInline
struct FieldAccessors<Value, Proxy>: AnyFieldAccessors {
    let getter: (@Sendable (ManagedObject, Proxy) -> Value)?
    let setter: (@Sendable (ManagedObject, Proxy, Value) -> Void)?

    /// The accessors of the field named `name`, or `nil` when it has neither.
    @usableFromInline
    init?<Object: ManagedObject>(
        _ name: String,
        getter: (@Sendable (Object, Proxy) -> Value)?,
        setter: (@Sendable (Object, Proxy, Value) -> Void)?
    ) {
        guard getter != nil || setter != nil else { return nil }
        self.getter = anyOwner(getter, of: name)
        self.setter = anyOwner(setter, of: name)
    }
}

/// A stored field's custom accessors.
@usableFromInline
typealias StoredAccessors<Value: FieldStorable> = FieldAccessors<Value, Field.Stored<Value>.Proxy>

/// A field's `customGetter`, taking any ``ManagedObject`` and trapping on
/// one not of the class it names.
func anyOwner<Object: ManagedObject, Proxy, Value>(
    _ getter: (@Sendable (Object, Proxy) -> Value)?, of name: String
) -> (@Sendable (ManagedObject, Proxy) -> Value)? {
    guard let getter else { return nil }
    return { object, field in getter(customAccessorOwner(object, name, "customGetter"), field) }
}

/// A field's `customSetter`, taking any ``ManagedObject`` and trapping on
/// one not of the class it names.
func anyOwner<Object: ManagedObject, Proxy, Value>(
    _ setter: (@Sendable (Object, Proxy, Value) -> Void)?, of name: String
) -> (@Sendable (ManagedObject, Proxy, Value) -> Void)? {
    guard let setter else { return nil }
    return { object, field, value in
        setter(customAccessorOwner(object, name, "customSetter"), field, value)
    }
}

/// `object` as the class a field's custom `closure` (`"customGetter"` or
/// `"customSetter"`) names; a trap saying what to write when it is not one.
private func customAccessorOwner<Object: ManagedObject>(
    _ object: ManagedObject, _ name: String, _ closure: String
) -> Object {
    guard let owner = object as? Object else {
        misuse(
            "Strata: the \(closure) of \(type(of: object)).\(name) takes a \(Object.self), "
                + "but was given a \(type(of: object)). Name the class that declares the field "
                + "in the closure: { (object: DeclaringClass, field) in ... }.")
    }
    return owner
}

extension DeclaredField where Value: FieldStorable {
    /// The field's `customGetter` and `customSetter`, if it has either.
    var storedAccessors: StoredAccessors<Value>? {
        accessors.map { $0 as! StoredAccessors<Value> }
    }
}
