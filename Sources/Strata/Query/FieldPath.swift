import Synchronization

/// Resolves key paths like `\.$age` to the field names they declare.
enum FieldPath {
    /// Names already resolved, by key path identity. Each key path is kept
    /// beside its name, so no identity in the table can be reused.
    private static let resolved = Mutex<[ObjectIdentifier: Resolved]>([:])

    /// `@unchecked Sendable`: a key path object is immutable once created.
    private struct Resolved: @unchecked Sendable {
        let keyPath: AnyKeyPath
        let name: String
    }

    /// The name of the field at `keyPath`, read once from a prototype object.
    static func name<Object: ManagedObject, Wrapper>(_ keyPath: KeyPath<Object, Wrapper>) -> String {
        let id = ObjectIdentifier(keyPath)
        if let name = resolved.withLock({ $0[id].flatMap { $0.keyPath === keyPath ? $0.name : nil } }) {
            return name
        }
        let prototype = Object()
        guard let field = prototype[keyPath: keyPath] as? any FieldWrapper else {
            preconditionFailure("Strata: \(keyPath) does not name a @Field of \(Object.self).")
        }
        let name = field.name
        let entry = Resolved(keyPath: keyPath, name: name)
        resolved.withLock { $0[id] = entry }
        return name
    }
}

/// Where a predicate or sort key reads a value: through zero or more to-one
/// relationships, then a stored field, a to-one relationship's key, or (with
/// `field` nil) the row ID itself.
struct ValuePath: Sendable, Hashable, CustomStringConvertible {
    var relationships: [String]
    var field: String?

    init(relationships: [String] = [], field: String?) {
        self.relationships = relationships
        self.field = field
    }

    var description: String { (relationships + [field ?? "_pk"]).joined(separator: ".") }

    /// The path continued by `next`, which starts where this one's last
    /// relationship (its `field`) ends.
    func appending(_ next: ValuePath) -> ValuePath {
        ValuePath(relationships: relationships + [field].compactMap { $0 } + next.relationships, field: next.field)
    }
}
