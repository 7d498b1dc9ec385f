extension Field {
    /// An in-memory value that is never persisted nor tracked as a change:
    /// scratch state for the lifetime of one object instance, like a Core Data
    /// transient attribute, or a value computed from the object's other
    /// fields, like CoreStore's `@Field.Virtual` with a `customGetter`.
    ///
    /// ```swift
    /// @Field.Virtual("isSelected") var isSelected: Bool = false
    ///
    /// @Field.Virtual("speciesPlural", customGetter: { (object: Animal, field) in
    ///     object.species + "s"
    /// })
    /// var speciesPlural: String
    /// ```
    ///
    /// Each context's instance has its own value. Reading or setting a
    /// virtual field is allowed in any context, the main context included;
    /// it is never saved, never part of a change set, an undo group, a
    /// snapshot or the schema's fingerprint.
    @propertyWrapper
    public struct Virtual<Value>: FieldWrapper {
        /// The field's name in the schema.
        public let name: String
        /// The in-memory value; `nil` while a field declared with a
        /// `customGetter` has not been given one.
        @usableFromInline var primitive: Value?
        /// The field's custom getter and setter, if any.
        @usableFromInline var accessors: VirtualAccessors<Value>

        /// The in-memory value: what the field reads as without a
        /// `customGetter`. Outside a ``ManagedObject`` subclass (where the
        /// getter and setter run), the wrapper's own value.
        public var wrappedValue: Value {
            get { primitive ?? Self.unset(name) }
            set { primitive = newValue }
        }

        /// The field's own in-memory value, bypassing its `customGetter` and
        /// `customSetter`; `nil` when it has none yet. Through `object.$field`,
        /// another field's accessor can reset a value this field keeps:
        ///
        /// ```swift
        /// object.$displayName.primitiveValue = nil  // recomputed on next read
        /// ```
        public var primitiveValue: Value? {
            get { primitive }
            set { primitive = newValue }
        }

        /// Declares a virtual field with its initial value.
        public init(wrappedValue: Value, _ name: String) {
            self.name = name
            self.primitive = wrappedValue
            self.accessors = .none
        }

        /// Declares an optional virtual field whose initial value is `nil`.
        ///
        /// ```swift
        /// @Field.Virtual("draftTitle") var draftTitle: String?
        /// ```
        public init<Wrapped>(_ name: String) where Value == Wrapped? {
            self.init(wrappedValue: nil, name)
        }

        /// Declares a virtual field whose value `customGetter` computes each
        /// time the field is read, typically from the object's stored fields.
        /// The getter is given the object, typed as the class you name in the
        /// closure (the class that declares the field, or one of its
        /// superclasses), and a ``Proxy`` whose `primitiveValue` is the
        /// field's own in-memory value: `nil` until set, so it can cache.
        ///
        /// Setting the field calls `customSetter` with the new value, or,
        /// without one, stores the value as `primitiveValue`. The setter may
        /// set stored fields, which, as always, only a transaction's objects
        /// allow; the getter and setter of a main-context object run too.
        ///
        /// ```swift
        /// final class Animal: ManagedObject {
        ///     @Field.Stored("species") var species: String = ""
        ///     @Field.Virtual(
        ///         "speciesPlural",
        ///         customGetter: { (object: Animal, field) in object.$species.value + "s" },
        ///         customSetter: { (object: Animal, field, newValue) in
        ///             object.species = String(newValue.dropLast())
        ///         })
        ///     var speciesPlural: String
        /// }
        /// ```
        ///
        /// A field declared this way takes no `= value`. The closures run on
        /// the thread of the object they are given, for objects of any
        /// context, hence `@Sendable`. A closure given an object of a class
        /// other than the one it names traps. Inside its own getter, read the
        /// field's value as `field.primitiveValue`: `object.speciesPlural`
        /// would call the getter again, without end.
        public init<Object: ManagedObject>(
            _ name: String,
            customGetter: @escaping @Sendable (_ object: Object, _ field: Proxy) -> Value,
            customSetter: (@Sendable (_ object: Object, _ field: Proxy, _ newValue: Value) -> Void)? = nil
        ) {
            self.name = name
            self.primitive = nil
            self.accessors = DeclaredFields.isDescribing
                ? .held(DeclaredVirtualField(name, getter: customGetter, setter: customSetter))
                : .declared
        }

        /// Declares an optional virtual field whose value `customSetter`
        /// handles when set; reading it gives its `primitiveValue`, `nil`
        /// until the setter stores one.
        ///
        /// ```swift
        /// @Field.Virtual("rawInput", customSetter: { (object: Form, field, newValue) in
        ///     field.primitiveValue = newValue
        ///     object.normalized = newValue?.lowercased() ?? ""
        /// })
        /// var rawInput: String?
        /// ```
        public init<Object: ManagedObject, Wrapped>(
            _ name: String,
            customSetter: @escaping @Sendable (_ object: Object, _ field: Proxy, _ newValue: Value) -> Void
        ) where Value == Wrapped? {
            self.name = name
            self.primitive = .some(nil)
            self.accessors = DeclaredFields.isDescribing
                ? .held(DeclaredVirtualField(
                    name, getter: Optional<@Sendable (Object, Proxy) -> Value>.none, setter: customSetter))
                : .declared
        }

        /// Unavailable: a field computed by a `customGetter` has no initial
        /// value; its `primitiveValue` starts as `nil`.
        @available(
            *, unavailable,
            message: "a @Field.Virtual with a customGetter takes no initial value: remove '= value' (its field.primitiveValue starts as nil)"
        )
        public init<Object: ManagedObject>(
            wrappedValue: Value, _ name: String,
            customGetter: @escaping @Sendable (_ object: Object, _ field: Proxy) -> Value,
            customSetter: (@Sendable (_ object: Object, _ field: Proxy, _ newValue: Value) -> Void)? = nil
        ) {
            fatalError()
        }

        /// Unavailable: CoreStore's `affectedByKeyPaths` tells KVO which
        /// fields a virtual one follows; Strata has no KVO.
        @available(
            *, unavailable,
            message: "Strata has no KVO: remove affectedByKeyPaths, and observe the fields the value is computed from (object.$species.observe { ... })"
        )
        public init<Object: ManagedObject>(
            _ name: String,
            customGetter: (@Sendable (_ object: Object, _ field: Proxy) -> Value)? = nil,
            customSetter: (@Sendable (_ object: Object, _ field: Proxy, _ newValue: Value) -> Void)? = nil,
            affectedByKeyPaths: @autoclosure () -> Set<String>
        ) {
            fatalError()
        }

        /// The field itself; its ``primitiveValue`` can be set through it
        /// (`object.$cache.primitiveValue = nil`), nothing else.
        public var projectedValue: Self {
            get { self }
            set { primitive = newValue.primitive }
        }

        /// `object.speciesPlural`: the value its `customGetter` computes, or
        /// else its in-memory value; setting it calls its `customSetter`, or
        /// else sets the in-memory value.
        // Inlinable, so that a field without a getter or setter reads and
        // writes its value in place, as a plain property does; the wrapper
        // is read through the key path only for the others.
        @inlinable
        public static subscript<Object: ManagedObject>(
            _enclosingInstance object: Object,
            wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
            storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
        ) -> Value {
            get {
                if object[keyPath: storageKeyPath].accessors.isNone,
                   let value = object[keyPath: storageKeyPath].primitive {
                    return value
                }
                return computedValue(of: object, at: storageKeyPath)
            }
            set {
                if object[keyPath: storageKeyPath].accessors.isNone {
                    object[keyPath: storageKeyPath].primitive = newValue
                    return
                }
                setComputedValue(newValue, of: object, at: storageKeyPath)
            }
        }

        /// The value of a field with a getter, or of one whose primitive value is `nil`.
        @inlinable
        static func computedValue<Object: ManagedObject>(
            of object: Object, at storageKeyPath: ReferenceWritableKeyPath<Object, Self>
        ) -> Value {
            // The wrapper is copied out, so that the getter may set the
            // field's primitive value without overlapping this access.
            let field = object[keyPath: storageKeyPath]
            guard let getter = accessors(of: field, in: object, at: storageKeyPath)?.getter else {
                return field.primitive ?? Self.unset(field.name)
            }
            return getter(object, Proxy(object, storageKeyPath))
        }

        /// Sets a field that has a getter or a setter.
        @inlinable
        static func setComputedValue<Object: ManagedObject>(
            _ newValue: Value, of object: Object, at storageKeyPath: ReferenceWritableKeyPath<Object, Self>
        ) {
            let field = object[keyPath: storageKeyPath]
            guard let setter = accessors(of: field, in: object, at: storageKeyPath)?.setter else {
                object[keyPath: storageKeyPath].primitive = newValue
                return
            }
            setter(object, Proxy(object, storageKeyPath), newValue)
        }

        /// The getter and setter of `field`, the wrapper at `keyPath` in
        /// `object`, when it has them: held by a prototype's wrapper, and
        /// found through the key path in the prototype by an ordinary
        /// object's, which then keeps them for its next accesses.
        @usableFromInline
        static func accessors<Object: ManagedObject>(
            of field: Self, in object: Object, at keyPath: ReferenceWritableKeyPath<Object, Self>
        ) -> DeclaredVirtualField<Value>? {
            switch field.accessors {
            case .none: return nil
            case let .held(declared): return declared
            case .declared:
                guard let declared = DeclaredFields.field(at: keyPath) as? DeclaredVirtualField<Value> else {
                    misuse("Strata: \(keyPath) does not name a @Field.Virtual of a ManagedObject subclass.")
                }
                object[keyPath: keyPath].accessors = .held(declared)
                return declared
            }
        }

        var declared: (any AnyDeclaredField)? {
            if case let .held(field) = accessors { return field }
            return DeclaredVirtualField<Value>(name)
        }

        /// The value of a field without a getter whose primitive value was
        /// set to `nil`: `nil` when `Value` is optional, else a trap.
        @usableFromInline
        static func unset(_ name: String) -> Value {
            if let optional = Value.self as? any ExpressibleByNilLiteral.Type,
               let none = optional.init(nilLiteral: ()) as? Value {
                return none
            }
            misuse(
                "Strata: the virtual field '\(name)' has no value: its primitiveValue is nil and it "
                    + "has no customGetter to compute one. Give it a value before reading it, or "
                    + "declare it with a customGetter or an initial value.")
        }
    }
}

/// Where a virtual field's getter and setter are: none, held by the wrapper
/// (a prototype's, or an ordinary object's once it has used them), or
/// declared and to be found through the prototype (an ordinary object's
/// wrapper until then; either way, one word).
@usableFromInline
enum VirtualAccessors<Value> {
    case none
    case declared
    case held(DeclaredVirtualField<Value>)

    /// Whether the field has neither getter nor setter.
    @inlinable
    var isNone: Bool {
        if case .none = self { return true }
        return false
    }
}
