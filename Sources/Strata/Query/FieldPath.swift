/// Resolves key paths like `\.$age` to the field names they declare.
enum FieldPath {
    /// The name of the field at `keyPath`, read from a fresh prototype object.
    static func name<Object: ManagedObject, Wrapper>(_ keyPath: KeyPath<Object, Wrapper>) -> String {
        let prototype = Object()
        guard let field = prototype[keyPath: keyPath] as? any FieldWrapper else {
            preconditionFailure("Strata: \(keyPath) does not name a @Field of \(Object.self).")
        }
        return field.name
    }
}
