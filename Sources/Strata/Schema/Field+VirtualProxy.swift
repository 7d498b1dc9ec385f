extension Field.Virtual {
    /// What a virtual field's `customGetter` and `customSetter` are given
    /// beside the object: the field's own in-memory value, as CoreStore's
    /// `FieldProxy` gives it.
    ///
    /// ```swift
    /// @Field.Virtual("displayName", customGetter: { (object: Person, field) in
    ///     if let cached = field.primitiveValue { return cached }
    ///     let name = "\(object.title) \(object.name)"
    ///     field.primitiveValue = name
    ///     return name
    /// })
    /// var displayName: String
    /// ```
    ///
    /// Read the field's value inside its own getter through
    /// `primitiveValue`: reading `object.displayName` there calls the getter
    /// again, forever.
    public struct Proxy {
        @usableFromInline let slot: any VirtualSlot<Value>

        @inlinable
        init<Object: ManagedObject>(
            _ object: Object, _ keyPath: ReferenceWritableKeyPath<Object, Field.Virtual<Value>>
        ) {
            slot = ObjectVirtualSlot(object: object, keyPath: keyPath)
        }

        /// The field's in-memory value in this object, which neither getter
        /// nor setter is called for; `nil` until one is set. Setting it is
        /// allowed in any context and is never a change to save.
        public var primitiveValue: Value? {
            get { slot.primitive }
            nonmutating set { slot.primitive = newValue }
        }
    }
}

/// Where a ``Field/Virtual/Proxy`` reads and writes the field's in-memory
/// value, whatever class declares the field.
@usableFromInline
protocol VirtualSlot<Value> {
    associatedtype Value
    var primitive: Value? { get nonmutating set }
}

/// The in-memory value of the virtual field at `keyPath` of `object`: two
/// references, so that a proxy holds it inline, without an allocation.
@usableFromInline
struct ObjectVirtualSlot<Object: ManagedObject, Value>: VirtualSlot {
    @usableFromInline let object: Object
    @usableFromInline let keyPath: ReferenceWritableKeyPath<Object, Field.Virtual<Value>>

    @inlinable
    init(object: Object, keyPath: ReferenceWritableKeyPath<Object, Field.Virtual<Value>>) {
        self.object = object
        self.keyPath = keyPath
    }

    @inlinable
    var primitive: Value? {
        get { object[keyPath: keyPath].primitive }
        nonmutating set { object[keyPath: keyPath].primitive = newValue }
    }
}

/// The declaration of a virtual field, with its custom getter and setter
/// when it has them, taking any ``ManagedObject``: each checks that the
/// object is of the class its closure names.
@usableFromInline
final class DeclaredVirtualField<Value>: AnyDeclaredField {
    @usableFromInline typealias Getter = @Sendable (ManagedObject, Field.Virtual<Value>.Proxy) -> Value
    @usableFromInline typealias Setter = @Sendable (ManagedObject, Field.Virtual<Value>.Proxy, Value) -> Void

    let declaration: FieldDeclaration
    @usableFromInline let getter: Getter?
    @usableFromInline let setter: Setter?

    /// The declaration of a field without a getter or setter.
    init(_ name: String) {
        declaration = FieldDeclaration(name: name, kind: .virtual)
        getter = nil
        setter = nil
    }

    init<Object: ManagedObject>(
        _ name: String,
        getter: (@Sendable (Object, Field.Virtual<Value>.Proxy) -> Value)?,
        setter: (@Sendable (Object, Field.Virtual<Value>.Proxy, Value) -> Void)?
    ) {
        declaration = FieldDeclaration(name: name, kind: .virtual)
        self.getter = anyOwner(getter, of: name)
        self.setter = anyOwner(setter, of: name)
    }

    var valueType: Any.Type { Value.self }
}
