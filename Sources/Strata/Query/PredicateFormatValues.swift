import Foundation

// The values of a format string, literal or argument, and their conversion to
// what the field they are compared with stores. Arguments are `Any`, as in
// CoreStore; each is converted while the `Where` is built and never kept, so
// the `Where` holds only `Sendable` stored values and row IDs.

/// A value written in a format or passed for one of its specifiers.
enum PredicateFormatValue {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    /// A `%@` argument, converted once the field it is compared with is known.
    case argument(Any)

    /// How the value reads in an error message.
    var described: String {
        switch self {
        case .null: return "nil"
        case .integer(let number): return String(number)
        case .real(let number): return String(number)
        case .text(let text): return String(reflecting: text)
        case .argument(let value):
            guard let value = Self.unwrapped(value) else { return "nil" }
            return value is String || value is Substring
                ? String(reflecting: "\(value)") : "\(value)"
        }
    }

    /// The argument without its `Optional` layers; `nil` for `nil` and `NSNull`.
    static func unwrapped(_ value: Any) -> Any? {
        if let optional = value as? any PredicateFormatOptional { return optional.formatWrapped }
        if value is NSNull { return nil }
        return value
    }

    /// The elements of a collection argument (an array, a set, a range…), or
    /// `nil` when the argument is no collection (text and data are not).
    static func elements(of value: Any) -> [PredicateFormatValue]? {
        guard let value = unwrapped(value), !(value is String), !(value is Substring),
            !(value is Data), let sequence = value as? any Sequence
        else { return nil }
        func all<S: Sequence>(_ sequence: S) -> [PredicateFormatValue] {
            sequence.map { .argument($0) }
        }
        return all(sequence)
    }

    // MARK: Specifiers

    /// An argument and its type, for an error message.
    static func describe(_ argument: Any?) -> String {
        argument.map { "\($0) (\(type(of: $0)))" } ?? "nil"
    }

    /// A `%d` argument: an integer (or a Boolean, or a whole real) that fits in 64 bits.
    static func integerArgument(_ argument: Any?) -> Int64? {
        switch argument {
        case let value as Bool: return value ? 1 : 0
        case let value as any BinaryInteger: return Int64(exactly: value)
        case let value as any BinaryFloatingPoint: return Int64(exactly: Double(value))
        default: return nil
        }
    }

    /// A `%f` argument: a floating-point number, or an integer a double holds exactly.
    static func realArgument(_ argument: Any?) -> Double? {
        switch argument {
        case let value as any BinaryFloatingPoint: return Double(value)
        case let value as any BinaryInteger: return Double(exactly: value)
        default: return nil
        }
    }

    // MARK: Stored fields

    /// The value as `field`, which stores `type`, keeps it: an argument in
    /// its own type's stored form (a `Date` as seconds, a `UUID` as text, a
    /// `Decimal` exactly, an enum as its raw value); a number of the other
    /// numeric class only when it converts exactly, so that the comparison
    /// is the one a key-path `Where` on the field makes.
    ///
    /// A `decimal` field takes numbers too, as the `Decimal` they spell (a
    /// double by its shortest text: `0.1` is 0.1, not 0.1000000000000000055).
    func stored(for type: StoredType, field: String, decimal: Bool = false)
        throws(PredicateFormatProblem) -> StoredValue
    {
        var value: StoredValue
        switch self {
        case .null: return .null
        case .integer(let number): value = .integer(number)
        case .real(let number): value = .real(number)
        case .text(let text): value = .text(text)
        case .argument(let argument): value = try Self.stored(argument: argument, field: field)
        }
        if decimal {
            switch value {
            case .integer(let number):
                value = .text(Decimal(number).description)
            case .real(let number):
                guard number.isFinite,
                    let exact = Decimal(
                        string: "\(number)", locale: Locale(identifier: "en_US_POSIX"))
                else {
                    throw PredicateFormatProblem(
                        "\(number) is not a Decimal, which '\(field)' holds", at: nil)
                }
                value = .text(exact.description)
            default:
                break
            }
        }
        switch (value, type) {
        case (.null, _), (.integer, .integer), (.real, .real), (.text, .text), (.blob, .blob):
            return value
        case (.integer(let number), .real):
            if let exact = Double(exactly: number) { return .real(exact) }
        case (.real(let number), .integer):
            if let exact = Int64(exactly: number) { return .integer(exact) }
        default:
            break
        }
        throw PredicateFormatProblem(
            "\(described) cannot be compared with '\(field)', which holds \(Self.name(of: type))",
            at: nil)
    }

    private static func name(of type: StoredType) -> String {
        switch type {
        case .integer: return "integers"
        case .real: return "reals"
        case .text: return "text"
        case .blob: return "data"
        }
    }

    /// An argument's stored form.
    private static func stored(argument: Any, field: String) throws(PredicateFormatProblem)
        -> StoredValue
    {
        guard let value = unwrapped(argument) else { return .null }
        if value is ManagedObject || value is any PredicateFormatObjectID {
            throw PredicateFormatProblem(
                "an object or ID cannot be compared with '\(field)', which is not a relationship",
                at: nil)
        }
        if let number = value as? NSNumber, !(value is any FieldStorable) {
            guard let stored = number.formatStoredValue else {
                throw PredicateFormatProblem(
                    "\(number) is past Int64.max and cannot be stored", at: nil)
            }
            return stored
        }
        // Text first: an `NSString` from an `NSArray` bridges to `String`, not to `FieldStorable`.
        if let text = value as? String { return .text(text) }
        if let substring = value as? Substring { return .text(String(substring)) }
        do {
            if let storable = value as? any FieldStorable { return try storable.storableValue() }
            if let raw = value as? any RawRepresentable, let storable = Self.rawValue(of: raw) {
                return try storable.storableValue()
            }
        } catch {
            let reason =
                if case let .invalidValue(_, _, reason) = StrataError.wrapping(error) {
                    reason
                } else {
                    "\(error)"
                }
            throw PredicateFormatProblem("\(value) cannot be stored: \(reason)", at: nil)
        }
        throw PredicateFormatProblem(
            "an argument of type \(type(of: value)) cannot be stored (it is not FieldStorable)",
            at: nil)
    }

    private static func rawValue<Raw: RawRepresentable>(of value: Raw) -> (any FieldStorable)? {
        value.rawValue as? any FieldStorable
    }

    // MARK: Relationships

    /// The row ID the relationship (or `SELF`) is compared with: an object
    /// of `target`, its `ObjectID`, or `nil`.
    func rowID(of target: ManagedObject.Type, field: String) throws(PredicateFormatProblem)
        -> StoredValue
    {
        let expected = "a \(target) object, an ObjectID<\(target)> or nil"
        switch self {
        case .null:
            return .null
        case .argument(let argument):
            guard let value = Self.unwrapped(argument) else { return .null }
            if let object = value as? ManagedObject {
                guard object.entity != nil else {
                    throw PredicateFormatProblem(
                        "the \(type(of: object)) compared with '\(field)' was made outside a context, "
                            + "so it has no identity", at: nil)
                }
                guard EntityClasses.isClass(type(of: object), within: target) else {
                    throw PredicateFormatProblem(
                        "'\(field)' leads to \(target), not to \(type(of: object))", at: nil)
                }
                return .integer(object.rowID)
            }
            if let id = value as? any PredicateFormatObjectID {
                let idType = type(of: id).formatObjectType
                guard EntityClasses.isClass(idType, within: target) || EntityClasses.isClass(target, within: idType)
                else {
                    throw PredicateFormatProblem(
                        "'\(field)' leads to \(target), not to \(idType)", at: nil)
                }
                return .integer(id.rowID)
            }
            throw PredicateFormatProblem(
                "'\(field)' is compared with \(described); expected \(expected)", at: nil)
        default:
            throw PredicateFormatProblem(
                "'\(field)' is compared with \(described); expected \(expected)", at: nil)
        }
    }


    // MARK: Numbers

    /// The value as an exact integer (a relationship count), or `nil`.
    var exactInteger: Int64? {
        switch self {
        case .integer(let number): return number
        case .real(let number): return Int64(exactly: number)
        case .argument(let argument):
            switch try? Self.stored(argument: argument, field: "") {
            case .integer(let number): return number
            case .real(let number): return Int64(exactly: number)
            default: return nil
            }
        case .null, .text: return nil
        }
    }
}

/// An `Optional` of any type, seen through `Any`.
protocol PredicateFormatOptional {
    var formatWrapped: Any? { get }
}

extension Optional: PredicateFormatOptional {
    var formatWrapped: Any? {
        guard case .some(let wrapped) = self else { return nil }
        return PredicateFormatValue.unwrapped(wrapped)
    }
}

/// An `ObjectID` of any entity, seen through `Any`.
protocol PredicateFormatObjectID {
    static var formatObjectType: ManagedObject.Type { get }
    var rowID: Int64 { get }
}

extension ObjectID: PredicateFormatObjectID {
    static var formatObjectType: ManagedObject.Type { Object.self }
}

extension NSNumber {
    /// A number from Objective-C habits (`NSNumber(value: 3)`) as it is stored:
    /// Booleans and integers as integers, the rest as reals.
    /// `nil` for an unsigned integer past `Int64.max`, which Strata does not wrap.
    fileprivate var formatStoredValue: StoredValue? {
        switch String(cString: objCType) {
        case "f", "d": return .real(doubleValue)
        case "Q", "L": return uint64Value > UInt64(Int64.max) ? nil : .integer(int64Value)
        default: return .integer(int64Value)
        }
    }
}
