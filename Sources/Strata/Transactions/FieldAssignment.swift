/// One change ``BaseDataTransaction/updateAll(_:_:)`` makes to every object
/// a query matches: a stored or coded field set to a value, a numeric field
/// incremented, or a to-one relationship set to an object, an ID or `nil`.
///
/// ```swift
/// try tx.updateAll(
///     From<Task>().where(\.$done == false && \.$due < now),
///     .set(\.$state, to: .overdue),
///     .increment(\.$reminders, by: 1),
///     .set(\.$owner, to: nil))
/// ```
public struct FieldAssignment<Object: ManagedObject> {
    let field: String
    let change: AssignmentChange

    /// Sets a stored field.
    ///
    /// ```swift
    /// .set(\.$status, to: "archived")
    /// ```
    public static func set<Value: FieldStorable>(
        _ field: KeyPath<Object, Field.Stored<Value>>, to value: Value
    ) -> Self {
        let name = FieldPath.name(field)
        do {
            return Self(field: name, change: .value(try value.storableValue()))
        } catch {
            return Self(field: name, change: .invalid(StrataError.wrapping(error)))
        }
    }

    /// Sets a coded field (stored as JSON, or as its coder's bytes).
    public static func set<Value>(_ field: KeyPath<Object, Field.Coded<Value>>, to value: Value) -> Self {
        let name = FieldPath.name(field)
        do {
            let coding = DeclaredFields.field(at: field, of: Value.self).codedForm
            return Self(field: name, change: .value(try coding.encode(value)))
        } catch {
            return Self(field: name, change: .invalid(StrataError.wrapping(error)))
        }
    }

    /// Sets a to-one relationship to an object (of any context) or to `nil`;
    /// the inverse relationship follows.
    ///
    /// ```swift
    /// .set(\.$owner, to: ann)
    /// ```
    public static func set<Target: ManagedObject>(
        _ relationship: KeyPath<Object, Field.Relationship<Target?>>, to object: Target?
    ) -> Self {
        Self(field: FieldPath.name(relationship), change: .relate(object?.rowID))
    }

    /// Sets a to-one relationship to the object with `id`.
    public static func set<Target: ManagedObject>(
        _ relationship: KeyPath<Object, Field.Relationship<Target?>>, to id: ObjectID<Target>
    ) -> Self {
        Self(field: FieldPath.name(relationship), change: .relate(id.rowID))
    }

    /// Adds `amount` to an integer field (a `nil` value stays `nil`). A sum
    /// outside the field type's range fails the whole update with
    /// ``StrataError/invalidValue(entity:field:reason:)``.
    ///
    /// ```swift
    /// .increment(\.$visits, by: 1)
    /// ```
    public static func increment<Value: FieldStorable & FixedWidthInteger>(
        _ field: KeyPath<Object, Field.Stored<Value>>, by amount: Value
    ) -> Self {
        integerIncrement(FieldPath.name(field), amount, Value.self)
    }

    /// Adds `amount` to an optional integer field; `nil` values stay `nil`.
    public static func increment<Value: FieldStorable & FixedWidthInteger>(
        _ field: KeyPath<Object, Field.Stored<Value?>>, by amount: Value
    ) -> Self {
        integerIncrement(FieldPath.name(field), amount, Value.self)
    }

    /// Adds `amount` to a `Double` field. A NaN amount, or a sum that is not
    /// a number (an infinity plus the opposite one), fails the whole update
    /// with ``StrataError/invalidValue(entity:field:reason:)``: SQLite would
    /// store it as `NULL`.
    public static func increment(_ field: KeyPath<Object, Field.Stored<Double>>, by amount: Double) -> Self {
        realIncrement(FieldPath.name(field), amount)
    }

    /// Adds `amount` to an optional `Double` field; `nil` values stay `nil`.
    public static func increment(_ field: KeyPath<Object, Field.Stored<Double?>>, by amount: Double) -> Self {
        realIncrement(FieldPath.name(field), amount)
    }

    private static func realIncrement(_ name: String, _ amount: Double) -> Self {
        guard !amount.isNaN else {
            return Self(field: name, change: .invalid(.unstorable("NaN cannot be added: SQLite turns it into NULL")))
        }
        return Self(field: name, change: .addReal(amount))
    }

    private static func integerIncrement<Value: FixedWidthInteger>(
        _ name: String, _ amount: Value, _ type: Value.Type
    ) -> Self {
        guard let amount = Int64(exactly: amount) else {
            return Self(field: name, change: .invalid(.unstorable("\(amount) is past Int64.max")))
        }
        return Self(
            field: name,
            change: .addInteger(amount, range: Int64(clamping: Value.min)...Int64(clamping: Value.max)))
    }
}
