import Foundation

extension String: FieldStorable {
    public static var storedType: StoredType { .text }
    @inlinable
    public func storedValue() throws -> StoredValue { .text(self) }
    // Inlined for text, the case of every read; the rest stays out of line.
    @inlinable @inline(__always)
    public init(storedValue: StoredValue) throws {
        if case .text(let value) = storedValue {
            self = value
        } else {
            self = try Self.converting(storedValue)
        }
    }

    @usableFromInline
    static func converting(_ storedValue: StoredValue) throws -> String {
        guard case .blob(let data) = storedValue else {
            throw StrataError.conversion(storedValue, to: String.self)
        }
        return String(decoding: data, as: UTF8.self)
    }
}

extension Data: FieldStorable {
    public static var storedType: StoredType { .blob }
    @inlinable
    public func storedValue() throws -> StoredValue { .blob(self) }
    @inlinable
    public init(storedValue: StoredValue) throws {
        switch storedValue {
        case .blob(let value): self = value
        case .text(let text): self = Data(text.utf8)
        default: throw StrataError.conversion(storedValue, to: Data.self)
        }
    }
}

/// Stored as REAL seconds since 1970, so SQL comparisons order dates correctly.
extension Date: FieldStorable {
    public static var storedType: StoredType { .real }
    public func storedValue() throws -> StoredValue {
        try timeIntervalSince1970.storedValue()
    }
    public init(storedValue: StoredValue) throws {
        self.init(timeIntervalSince1970: try Double(storedValue: storedValue))
    }
}

/// Stored as its canonical upper-case text form.
extension UUID: FieldStorable {
    public static var storedType: StoredType { .text }
    public func storedValue() throws -> StoredValue { .text(uuidString) }
    public init(storedValue: StoredValue) throws {
        guard case .text(let text) = storedValue, let uuid = UUID(uuidString: text) else {
            throw StrataError.conversion(storedValue, to: UUID.self)
        }
        self = uuid
    }
}

/// Stored as its absolute string.
extension URL: FieldStorable {
    public static var storedType: StoredType { .text }
    public func storedValue() throws -> StoredValue { .text(absoluteString) }
    public init(storedValue: StoredValue) throws {
        guard case .text(let text) = storedValue, let url = URL(string: text) else {
            throw StrataError.conversion(storedValue, to: URL.self)
        }
        self = url
    }
}

/// Stored as exact decimal text: a Decimal never passes through a Double.
extension Decimal: FieldStorable {
    public static var storedType: StoredType { .text }
    public func storedValue() throws -> StoredValue {
        guard !isNaN else { throw StrataError.unstorable("Decimal NaN cannot be stored") }
        return .text(description)
    }
    public init(storedValue: StoredValue) throws {
        switch storedValue {
        case .text(let text):
            guard let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
            else { throw StrataError.conversion(storedValue, to: Decimal.self) }
            self = value
        case .integer(let value): self = Decimal(value)
        default: throw StrataError.conversion(storedValue, to: Decimal.self)
        }
    }
}
