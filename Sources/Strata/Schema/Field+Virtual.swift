extension Field {
    /// An in-memory value that is never persisted nor tracked as a change:
    /// scratch state for the lifetime of one object instance, like a Core Data
    /// transient attribute. Each context's instance has its own value.
    ///
    /// ```swift
    /// @Field.Virtual("isSelected") var isSelected: Bool = false
    /// ```
    @propertyWrapper
    public struct Virtual<Value>: FieldWrapper {
        /// The field's name in the schema.
        public let name: String
        /// The current in-memory value.
        public var wrappedValue: Value

        /// Declares a virtual field with its initial value.
        public init(wrappedValue: Value, _ name: String) {
            self.name = name
            self.wrappedValue = wrappedValue
        }

        /// The field itself.
        public var projectedValue: Self { self }

        var declared: (any AnyDeclaredField)? {
            DeclaredField(FieldDeclaration(name: name, kind: .virtual), defaultValue: wrappedValue)
        }
    }
}
