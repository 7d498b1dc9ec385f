import Foundation

/// The SQLite column type a ``FieldStorable`` type declares.
public enum StoredType: String, Sendable, Hashable {
    case integer = "INTEGER"
    case real = "REAL"
    case text = "TEXT"
    case blob = "BLOB"
}

/// A Swift type that a `@Field.Stored` property can hold.
///
/// Strata provides conformances for `Bool`, the integer types, `Float`,
/// `Double`, `String`, `Data`, `Date`, `UUID`, `URL`, `Decimal`, `Optional`
/// of any of them, and any `RawRepresentable` whose raw value is storable:
///
/// ```swift
/// enum Mood: String, FieldStorable { case calm, cross }
/// ```
///
/// Conversions are exact: a value that cannot be stored or read back exactly
/// throws ``StrataError/invalidValue(entity:field:reason:)`` rather than
/// being rounded, wrapped or dropped.
public protocol FieldStorable: Sendable {
    /// The column type this type is stored as.
    static var storedType: StoredType { get }
    /// Whether `nil` is a value of this type (only `Optional` says yes).
    static var isOptional: Bool { get }
    /// The value to store. Throws `StrataError.invalidValue` when it cannot be stored.
    func storedValue() throws -> StoredValue
    /// Reads a stored value back. Throws `StrataError.invalidValue` when it does not convert.
    init(storedValue: StoredValue) throws
}

extension FieldStorable {
    public static var isOptional: Bool { false }

    /// The value to write: ``storedValue()``, refused when no store keeps it
    /// as it is. Strata's own conformances refuse such values themselves; a
    /// conformance of the app's own (`.real(degrees)`) may return a NaN,
    /// which SQLite would turn into NULL and the field read back as its default.
    @usableFromInline
    func storableValue() throws -> StoredValue {
        let value = try storedValue()
        if value.isNaN { throw StrataError.storingNaN }
        return value
    }
}

extension StrataError {
    /// A conversion failure, before the entity and field are known.
    @usableFromInline
    static func conversion(_ value: StoredValue, to type: Any.Type) -> StrataError {
        .invalidValue(entity: "?", field: "?", reason: "\(value) does not convert to \(type)")
    }

    @usableFromInline
    static func unstorable(_ reason: String) -> StrataError {
        .invalidValue(entity: "?", field: "?", reason: reason)
    }

    /// A NaN to be stored, before the entity and field are known.
    @usableFromInline
    static var storingNaN: StrataError {
        unstorable("NaN cannot be stored: SQLite turns it into NULL")
    }
}

extension Optional: FieldStorable where Wrapped: FieldStorable {
    @inlinable
    public static var storedType: StoredType { Wrapped.storedType }
    @inlinable
    public static var isOptional: Bool { true }

    @inlinable
    public func storedValue() throws -> StoredValue {
        switch self {
        case .none: return .null
        case .some(let value): return try value.storedValue()
        }
    }

    @inlinable
    public init(storedValue: StoredValue) throws {
        if case .null = storedValue {
            self = .none
        } else {
            self = .some(try Wrapped(storedValue: storedValue))
        }
    }
}

extension FieldStorable where Self: RawRepresentable, RawValue: FieldStorable {
    public static var storedType: StoredType { RawValue.storedType }

    public func storedValue() throws -> StoredValue { try rawValue.storedValue() }

    public init(storedValue: StoredValue) throws {
        guard let value = Self(rawValue: try RawValue(storedValue: storedValue)) else {
            throw StrataError.conversion(storedValue, to: Self.self)
        }
        self = value
    }
}
