import Foundation

extension Bool: FieldStorable {
    public static var storedType: StoredType { .integer }
    @inlinable
    public func storedValue() throws -> StoredValue { .integer(self ? 1 : 0) }
    @inlinable
    public init(storedValue: StoredValue) throws {
        switch storedValue {
        case .integer(let value): self = value != 0
        case .real(let value): self = value != 0
        default: throw StrataError.conversion(storedValue, to: Bool.self)
        }
    }
}

/// Integers are stored as SQLite's 64-bit INTEGER; reading back checks the range.
@usableFromInline
protocol StorableInteger: FixedWidthInteger, FieldStorable {}

extension StorableInteger {
    public static var storedType: StoredType { .integer }

    @inlinable
    public func storedValue() throws -> StoredValue {
        guard let value = Int64(exactly: self) else {
            throw StrataError.unstorable(
                "\(self) is larger than Int64.max, the largest integer SQLite stores")
        }
        return .integer(value)
    }

    @inlinable
    public init(storedValue: StoredValue) throws {
        switch storedValue {
        case .integer(let value):
            guard let exact = Self(exactly: value) else {
                throw StrataError.conversion(storedValue, to: Self.self)
            }
            self = exact
        case .real(let value):
            guard let exact = Self(exactly: value) else {
                throw StrataError.conversion(storedValue, to: Self.self)
            }
            self = exact
        default:
            throw StrataError.conversion(storedValue, to: Self.self)
        }
    }
}

extension Int: StorableInteger {}
extension Int8: StorableInteger {}
extension Int16: StorableInteger {}
extension Int32: StorableInteger {}
extension Int64: StorableInteger {}
extension UInt: StorableInteger {}
extension UInt8: StorableInteger {}
extension UInt16: StorableInteger {}
extension UInt32: StorableInteger {}
extension UInt64: StorableInteger {}

extension Double: FieldStorable {
    public static var storedType: StoredType { .real }

    /// SQLite stores NaN as NULL, so a NaN would come back as nothing: it is refused.
    @inlinable
    public func storedValue() throws -> StoredValue {
        guard !isNaN else { throw StrataError.storingNaN }
        return .real(self)
    }

    @inlinable
    public init(storedValue: StoredValue) throws {
        switch storedValue {
        case .real(let value): self = value
        case .integer(let value): self = Double(value)
        default: throw StrataError.conversion(storedValue, to: Double.self)
        }
    }
}

/// A `Float` is stored as the `Double` that equals it, and reads back bit
/// for bit. A stored real that is no `Float` (a field that was a `Double`,
/// which shares the column type, or a value written by SQL) reads as the
/// nearest `Float`, as Core Data's `NSNumber.floatValue` reads it: values
/// past `Float`'s range read as an infinity.
extension Float: FieldStorable {
    public static var storedType: StoredType { .real }

    @inlinable
    public func storedValue() throws -> StoredValue { try Double(self).storedValue() }

    @inlinable
    public init(storedValue: StoredValue) throws {
        self = Float(try Double(storedValue: storedValue))
    }
}
