import Foundation

/// Resolves key paths like `\.$age` to the field names they declare.
enum FieldPath {
    /// The name of the field at `keyPath`, read once from the class's prototype.
    static func name<Object: ManagedObject, Wrapper>(_ keyPath: KeyPath<Object, Wrapper>) -> String {
        guard let name = DeclaredFields.name(at: keyPath) else {
            misuse("Strata: \(keyPath) does not name a @Field of \(Object.self).")
        }
        return name
    }
}

/// Where a predicate or sort key reads a value: through zero or more to-one
/// relationships, then a stored field, a to-one relationship's key, or (with
/// `field` nil) the row ID itself.
struct ValuePath: Sendable, Hashable, CustomStringConvertible {
    var relationships: [String]
    var field: String?
    /// Whether the value is a `Decimal`, stored as decimal text: order
    /// comparisons and sorting then go by number (``DecimalOrdering``).
    var isDecimal = false

    init(relationships: [String] = [], field: String?) {
        self.relationships = relationships
        self.field = field
    }

    var description: String { (relationships + [field ?? "_pk"]).joined(separator: ".") }

    /// The path to the field at `keyPath`, marked as holding a `Decimal` when
    /// the field's value is one (or an optional one).
    init<Object: ManagedObject, Value>(_ keyPath: KeyPath<Object, Field.Stored<Value>>) {
        self.init(field: FieldPath.name(keyPath))
        isDecimal = Value.self == Decimal.self || Value.self == Decimal?.self
    }

    /// The path to the field or relationship at `keyPath`.
    init<Object: ManagedObject, Wrapper>(_ keyPath: KeyPath<Object, Wrapper>) {
        self.init(field: FieldPath.name(keyPath))
    }

    /// The path continued by `next`, which starts where this one's last
    /// relationship (its `field`) ends.
    func appending(_ next: ValuePath) -> ValuePath {
        var path = ValuePath(relationships: relationships + [field].compactMap { $0 } + next.relationships, field: next.field)
        path.isDecimal = next.isDecimal
        return path
    }
}
