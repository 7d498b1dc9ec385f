import Foundation

/// How `queryValue` reads a term's result as the type the query asks for.
///
/// CoreStore reads a query's value through the Objective-C class Core Data
/// returns for it, and Strata reads it the same way:
///
/// - a number (`NSNumber`) narrows to any number type: toward zero into an
///   integer type, to the nearest `Float`, to `true` unless zero; a real
///   asked as `Decimal` is the decimal Swift prints for it (`2.5`, `0.1`),
///   as CoreStore's sum and average, computed as `NSDecimalNumber`s, are;
/// - a decimal (`NSDecimalNumber`, an `NSNumber`) is a number too: the sum
///   of `Decimal` prices asked as `Double` is the nearest `Double`, as `Int`
///   the whole part, exactly;
/// - a date (`NSDate`) is no number, and no number is a date: only a `Date`
///   field's value, minimum or maximum is read as a `Date` (a `Date` would
///   read any number as seconds since 1970).
extension SelectTerm {
    /// Whether the term's result is a point in time: the value, minimum or
    /// maximum of a `Date` field. A count, sum or average is a number.
    var resultIsDate: Bool {
        valueKind == .date && (function == .value || function == .minimum || function == .maximum)
    }

    /// Whether the term's result, when it is text, is decimal text: the
    /// value or an aggregate of a `Decimal` field, but not a count of one.
    var resultIsDecimal: Bool {
        valueKind == .decimal && function != .count && function != .relatedCount
    }

    /// `value`, a non-NULL result of this term, as `Result`; `nil` when it
    /// is not a value of that type (text as `Int`, 300 as `Int8`, a number
    /// as `Date`, an object's ID as anything but an `ObjectID`).
    func read<Result: FieldStorable>(_ value: StoredValue, as type: Result.Type) -> Result? {
        // An ID is read only as an `ObjectID`, as CoreStore's only as an `NSManagedObjectID`.
        if function == .objectID { return nil }
        if Result.self == Date.self, !resultIsDate { return nil }
        if let exact = try? Result(storedValue: value) { return exact }
        switch value {
        case .real(let real):
            return Self.narrowing(real, to: Result.self)
        case .text(let text) where resultIsDecimal:
            guard let decimal = Decimal(string: text, locale: Self.posix), !decimal.isNaN else {
                return nil
            }
            return Self.narrowing(decimal, text: text, to: Result.self)
        default:
            return nil
        }
    }

    private static var posix: Locale { Locale(identifier: "en_US_POSIX") }

    /// A real that is not exactly a `Result`, as `NSNumber` narrows it.
    private static func narrowing<Result: FieldStorable>(
        _ real: Double, to: Result.Type
    ) -> Result? {
        guard real.isFinite else { return nil }
        // Its shortest decimal text: the decimal, and `nil` past `Decimal`'s range.
        if Result.self == Decimal.self { return try? Result(storedValue: .text("\(real)")) }
        switch Result.storedType {
        case .integer:
            return Int64(exactly: real.rounded(.towardZero))
                .flatMap { try? Result(storedValue: .integer($0)) }
        case .real:
            return try? Result(storedValue: .real(Double(Float(real))))
        case .text, .blob:
            return nil
        }
    }

    /// A decimal, `text` read, as `NSDecimalNumber` narrows it.
    private static func narrowing<Result: FieldStorable>(
        _ decimal: Decimal, text: String, to: Result.Type
    ) -> Result? {
        if Result.storedType == .integer, Result.self != Bool.self {
            // Toward zero, in decimal: an integer can hold more digits than a `Double`.
            var magnitude = decimal.magnitude
            var whole = Decimal()
            NSDecimalRound(&whole, &magnitude, 0, .down)
            guard let integer = Int64((decimal.isSignMinus ? "-" : "") + whole.description) else {
                return nil
            }
            return try? Result(storedValue: .integer(integer))
        }
        // `Double(_:)` rounds decimal text to the nearest `Double`.
        guard let real = Double(text) else { return nil }
        return (try? Result(storedValue: .real(real))) ?? narrowing(real, to: Result.self)
    }
}
