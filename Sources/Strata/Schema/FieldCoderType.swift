import Foundation

/// A type that turns a `@Field.Coded` value into bytes and back, named by
/// the field's `coder:` argument, as in CoreStore.
///
/// A field with a coder is stored in a `BLOB` column (`bytea` on
/// PostgreSQL): what ``encodeToStoredData(_:)`` returns, or `NULL` for
/// `nil`. Strata ships ``FieldCoders/Json``, ``FieldCoders/Plist``,
/// ``FieldCoders/NSCoding`` and ``FieldCoders/DefaultNSSecureCoding``; a
/// coder of your own is a type with the two static functions.
///
/// ```swift
/// enum Base64Coder: FieldCoderType {
///     static func encodeToStoredData(_ value: String?) -> Data? {
///         value.map { Data($0.utf8).base64EncodedData() }
///     }
///     static func decodeFromStoredData(_ data: Data?) -> String? {
///         data.flatMap { Data(base64Encoded: $0) }.map { String(decoding: $0, as: UTF8.self) }
///     }
/// }
///
/// final class Note: ManagedObject {
///     @Field.Coded("secret", coder: Base64Coder.self) var secret: String = ""
/// }
/// ```
///
/// Changing a field's coder does not change the schema's fingerprint (the
/// column stays a `BLOB`): keep the new coder able to read what the old one
/// wrote.
public protocol FieldCoderType {
    /// The type to encode to and decode from `Data`.
    associatedtype FieldStoredValue

    /// The bytes to store for `fieldValue`; `nil` stores `NULL`.
    static func encodeToStoredData(_ fieldValue: FieldStoredValue?) -> Data?

    /// The value stored as `data` (`nil` for `NULL`); `nil` when the bytes do
    /// not decode. A non-optional field that reads `nil` reads its default,
    /// with a warning.
    static func decodeFromStoredData(_ data: Data?) -> FieldStoredValue?

    /// The bytes to store for `fieldValue`, throwing why it cannot be
    /// encoded. A value that throws is refused: the transaction's commit
    /// fails with ``StrataError/invalidValue(entity:field:reason:)``, where a
    /// `nil` from ``encodeToStoredData(_:)`` would store `NULL`.
    ///
    /// The default calls ``encodeToStoredData(_:)``; Strata's own coders
    /// implement it so that a value they cannot encode is not stored as
    /// `NULL`.
    static func encodeReportingErrors(_ fieldValue: FieldStoredValue?) throws -> Data?
}

extension FieldCoderType {
    /// Calls ``encodeToStoredData(_:)``.
    public static func encodeReportingErrors(_ fieldValue: FieldStoredValue?) throws -> Data? {
        encodeToStoredData(fieldValue)
    }
}

/// Strata's coders for `@Field.Coded(..., coder:)`, as in CoreStore.
///
/// ```swift
/// @Field.Coded("profile", coder: FieldCoders.Json.self) var profile: Profile? = nil
/// ```
public enum FieldCoders {}

extension FieldCoders {
    /// JSON of a `Codable` value, with sorted keys, so that equal values
    /// store equal bytes (and assigning an equal value is not a change).
    /// The bytes are those a `@Field.Coded` field without a coder keeps as
    /// text.
    ///
    /// ```swift
    /// @Field.Coded("info", coder: FieldCoders.Json.self) var info: Info = Info()
    /// ```
    public struct Json<V: Codable>: FieldCoderType {
        public typealias FieldStoredValue = V

        /// The value's JSON; `nil` for `nil` or a value JSON cannot hold
        /// (a Double that is not finite, an encoding that throws).
        public static func encodeToStoredData(_ fieldValue: V?) -> Data? {
            try? encodeReportingErrors(fieldValue)
        }

        /// The value's JSON; throws ``StrataError/invalidValue(entity:field:reason:)``
        /// for a value JSON cannot hold.
        public static func encodeReportingErrors(_ fieldValue: V?) throws -> Data? {
            guard let fieldValue else { return nil }
            return try CodedValue.json(fieldValue)
        }

        /// The value the JSON holds; `nil` for `nil` or bytes that do not decode as `V`.
        public static func decodeFromStoredData(_ data: Data?) -> V? {
            guard let data else { return nil }
            return try? JSONDecoder().decode(V.self, from: data)
        }
    }

    /// A binary property list of a `Codable` value, wrapped in a one-item
    /// array (a property list's top level cannot be a number or a string), as
    /// CoreStore's coder writes it.
    ///
    /// ```swift
    /// @Field.Coded("scores", coder: FieldCoders.Plist.self) var scores: [String: Int] = [:]
    /// ```
    public struct Plist<V: Codable>: FieldCoderType {
        public typealias FieldStoredValue = V

        /// The value's property list; `nil` for `nil` or a value that does not encode.
        public static func encodeToStoredData(_ fieldValue: V?) -> Data? {
            try? encodeReportingErrors(fieldValue)
        }

        /// The value's property list; throws
        /// ``StrataError/invalidValue(entity:field:reason:)`` for a value that
        /// does not encode.
        public static func encodeReportingErrors(_ fieldValue: V?) throws -> Data? {
            guard let fieldValue else { return nil }
            let encoder = PropertyListEncoder()
            encoder.outputFormat = .binary
            do {
                return try encoder.encode([fieldValue])
            } catch {
                throw StrataError.unstorable("it does not encode as a property list: \(error)")
            }
        }

        /// The value the property list holds; `nil` for `nil` or bytes that do not decode as `V`.
        public static func decodeFromStoredData(_ data: Data?) -> V? {
            guard let data else { return nil }
            return (try? PropertyListDecoder().decode([V].self, from: data))?.first
        }
    }
}
