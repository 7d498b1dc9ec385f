/// One object of the source version, read-only, as a
/// ``CustomEntityMapping/transformEntity(source:destination:transformer:)``
/// transformer sees it: its stored and coded fields by name.
///
/// ```swift
/// let first = try source.value("first", as: String.self)
/// let raw = source["age"]            // StoredValue, as the column holds it
/// ```
public struct SourceObject: Sendable {
    /// The source entity's name.
    public let entity: String
    /// The object's row ID, which its destination object keeps.
    public let rowID: Int64
    /// The names of the fields `subscript` and `value(_:as:)` can read.
    public let fieldNames: [String]
    private let values: [String: StoredValue]

    init(entity: String, rowID: Int64, fieldNames: [String], values: [String: StoredValue]) {
        self.entity = entity
        self.rowID = rowID
        self.fieldNames = fieldNames
        self.values = values
    }

    /// The stored value of `field`. Reading a field the source entity does
    /// not have is a programmer error and traps.
    public subscript(field: String) -> StoredValue {
        guard let value = values[field] else {
            misuse(
                "\(entity) has no field \(field); its fields are \(fieldNames.joined(separator: ", "))")
        }
        return value
    }

    /// The value of `field` as `type`.
    ///
    /// - Throws: ``StrataError/invalidValue(entity:field:reason:)`` when the
    ///   field does not exist or its value does not convert;
    ///   ``StrataError/userError(_:)`` for another error a custom `Value` throws.
    public func value<Value: FieldStorable>(
        _ field: String, as type: Value.Type
    ) throws(StrataError) -> Value {
        guard let value = values[field] else {
            throw .invalidValue(entity: entity, field: field, reason: "no such field")
        }
        do {
            return try Value(storedValue: value)
        } catch {
            throw StrataError.wrapping(error).located(entity: entity, field: field)
        }
    }
}

/// The object of the destination version a transformer writes. It starts with
/// each field's value carried from the source where inference would carry it
/// with the same column type, and the field's default otherwise; the row ID
/// is the source's.
///
/// ```swift
/// let destination = createDestination()
/// destination["fullName"] = .text("Ann Lee")
/// try destination.setValue(42, for: "age")
/// ```
public final class DestinationObject {
    /// The destination entity's name.
    public let entity: String
    /// The object's row ID, the same as its source object's.
    public let rowID: Int64
    /// The names of the fields it can write, in column order.
    public let fieldNames: [String]
    var values: [String: StoredValue]

    init(entity: String, rowID: Int64, fieldNames: [String], values: [String: StoredValue]) {
        self.entity = entity
        self.rowID = rowID
        self.fieldNames = fieldNames
        self.values = values
    }

    /// The stored value of `field`. Naming a field the destination entity does
    /// not have is a programmer error and traps. Storing `.null` in a required
    /// field, or a NaN (`.real(.nan)`, which SQLite would store as NULL) in
    /// any field, fails the migration with
    /// ``StrataError/migrationFailed(sourceVersion:destinationVersion:entity:field:reason:)``.
    public subscript(field: String) -> StoredValue {
        get {
            guard let value = values[field] else { misuse(unknown(field)) }
            return value
        }
        set {
            guard values[field] != nil else { misuse(unknown(field)) }
            values[field] = newValue
        }
    }

    /// Stores `value` in `field`.
    ///
    /// - Throws: ``StrataError/invalidValue(entity:field:reason:)`` when the
    ///   field does not exist or the value cannot be stored;
    ///   ``StrataError/userError(_:)`` for another error a custom value throws.
    public func setValue(_ value: some FieldStorable, for field: String) throws(StrataError) {
        guard values[field] != nil else {
            throw .invalidValue(entity: entity, field: field, reason: "no such field")
        }
        do {
            values[field] = try value.storableValue()
        } catch {
            throw StrataError.wrapping(error).located(entity: entity, field: field)
        }
    }

    private func unknown(_ field: String) -> String {
        "\(entity) has no field \(field); its fields are \(fieldNames.joined(separator: ", "))"
    }
}
