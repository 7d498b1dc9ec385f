import Foundation

/// How a `@Field.Coded` field's values become what the store holds, and
/// back: JSON text for a field without a coder, the coder's bytes for one
/// with a `coder:`. Every object's reads and writes of the field go through
/// the one its declaration holds.
@usableFromInline
struct FieldCoding<Value>: @unchecked Sendable {  // Its closures are a coder's static functions or a declaration's `@Sendable` closures.
    /// The column's type: `TEXT` for JSON, `BLOB` for a coder's bytes.
    let storedType: StoredType
    /// The stored form of a value; throws ``StrataError/invalidValue(entity:field:reason:)``
    /// (entity and field not yet known) for one that cannot be stored.
    let encode: (Value) throws -> StoredValue
    /// The value a stored form holds; throws a conversion error when it does not decode.
    let decode: (StoredValue) throws -> Value
}

extension FieldCoding where Value: Codable {
    /// JSON text with sorted keys: a field declared without a coder.
    static var json: FieldCoding {
        FieldCoding(
            storedType: .text,
            encode: { value in
                let text = String(decoding: try CodedValue.json(value), as: UTF8.self)
                return text == "null" ? .null : .text(text)
            },
            decode: { try CodedValue.decode(Value.self, from: $0) })
    }
}

extension FieldCoding {
    /// `Coder`'s bytes for a non-optional field.
    static func coder<Coder: FieldCoderType>(_: Coder.Type) -> FieldCoding
    where Coder.FieldStoredValue == Value {
        FieldCoding(
            storedType: .blob,
            encode: { try CodedValue.stored(Coder.encodeReportingErrors($0)) },
            decode: { stored in
                guard let value = Coder.decodeFromStoredData(try CodedValue.data(stored, for: Value.self)) else {
                    throw StrataError.conversion(stored, to: Value.self)
                }
                return value
            })
    }

    /// `Coder`'s bytes for an optional field: `nil` is `NULL`.
    static func optionalCoder<Coder: FieldCoderType, Wrapped>(_: Coder.Type) -> FieldCoding
    where Value == Wrapped?, Coder.FieldStoredValue == Wrapped {
        FieldCoding(
            storedType: .blob,
            encode: { try CodedValue.stored(Coder.encodeReportingErrors($0)) },
            decode: { stored in
                guard let data = try CodedValue.data(stored, for: Value.self) else { return nil }
                guard let value = Coder.decodeFromStoredData(data) else {
                    throw StrataError.conversion(stored, to: Value.self)
                }
                return value
            })
    }

    /// The bytes of a pair of closures (`coder: (encode: ..., decode: ...)`),
    /// which decide what `nil` bytes mean.
    static func closures(
        encode: @escaping @Sendable (Value) -> Data?, decode: @escaping @Sendable (Data?) -> Value
    ) -> FieldCoding {
        FieldCoding(
            storedType: .blob,
            encode: { CodedValue.stored(encode($0)) },
            decode: { decode(try CodedValue.data($0, for: Value.self)) })
    }
}

/// The stored forms of coded fields.
enum CodedValue {
    /// `value`'s JSON, with sorted keys; throws ``StrataError/invalidValue(entity:field:reason:)``
    /// when it does not encode.
    static func json<Value: Encodable>(_ value: Value) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return try encoder.encode(value)
        } catch {
            throw StrataError.unstorable("it does not encode as JSON: \(error)")
        }
    }

    static func decode<Value: Decodable>(_ type: Value.Type, from value: StoredValue) throws -> Value {
        let data = try self.data(value, for: Value.self) ?? Data("null".utf8)
        do {
            return try JSONDecoder().decode(Value.self, from: data)
        } catch {
            throw StrataError.conversion(value, to: Value.self)
        }
    }

    /// A coder's bytes as stored: `NULL` for `nil`.
    static func stored(_ data: Data?) -> StoredValue {
        data.map(StoredValue.blob) ?? .null
    }

    /// The bytes of a stored coded value (JSON text as its UTF-8): `nil`
    /// for `NULL`; throws a conversion to `type` for a number.
    static func data(_ value: StoredValue, for type: Any.Type) throws -> Data? {
        switch value {
        case .null: return nil
        case .text(let text): return Data(text.utf8)
        case .blob(let blob): return blob
        default: throw StrataError.conversion(value, to: type)
        }
    }
}
