import Foundation

extension Field {
    /// A persisted field of any `Codable` type, stored as JSON text.
    ///
    /// The JSON is written with sorted keys, so equal values store equal text
    /// and assigning an equal value is not a change.
    ///
    /// ```swift
    /// struct Address: Codable, Sendable { var city: String }
    /// @Field.Coded("address") var address: Address? = nil
    /// ```
    @propertyWrapper
    public struct Coded<Value: Codable & Sendable>: FieldWrapper {
        @usableFromInline let names: FieldNames
        /// The field's name in the schema and column name in the store.
        public var name: String { names.name }
        /// The field's name in the previous schema version, when it was renamed.
        public var renamingIdentifier: String? { names.previous }
        let defaultValue: Value

        /// Declares a coded field with a default value; `renamingIdentifier` is
        /// its previous name, when a new schema version renames it.
        public init(wrappedValue: Value, _ name: String, renamingIdentifier: String? = nil) {
            self.names = FieldNames(name, previous: renamingIdentifier)
            self.defaultValue = wrappedValue
        }

        /// Declares an optional coded field whose default is `nil`.
        public init<Wrapped>(_ name: String, renamingIdentifier: String? = nil)
        where Value == Wrapped? {
            self.init(wrappedValue: nil, name, renamingIdentifier: renamingIdentifier)
        }

        @available(*, unavailable, message: "Fields live in ManagedObject subclasses only")
        public var wrappedValue: Value {
            get { fatalError() }
            set { fatalError() }
        }

        /// The field itself, so that `\.$name` can name it.
        public var projectedValue: Self { self }

        public static subscript<Object: ManagedObject>(
            _enclosingInstance object: Object,
            wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
            storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
        ) -> Value {
            get {
                let field = object[keyPath: storageKeyPath]
                return object.readCoded(field.name, default: field.defaultValue)
            }
            set {
                object.writeCoded(newValue, field: object[keyPath: storageKeyPath].name)
            }
        }

        func declaration() -> FieldDeclaration {
            do {
                return FieldDeclaration(
                    name: name,
                    kind: .coded(
                        isOptional: Value.self is any ExpressibleByNilLiteral.Type,
                        defaultValue: try CodedValue.encode(defaultValue)),
                    renamingIdentifier: renamingIdentifier)
            } catch {
                return FieldDeclaration(
                    name: name, kind: .virtual,
                    problem: "its default value cannot be encoded: \(error)")
            }
        }
    }
}

/// The JSON form of coded fields.
enum CodedValue {
    static func encode<Value: Encodable>(_ value: Value) throws -> StoredValue {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data: Data
        do {
            data = try encoder.encode(value)
        } catch {
            throw StrataError.unstorable("it does not encode as JSON: \(error)")
        }
        let text = String(decoding: data, as: UTF8.self)
        return text == "null" ? .null : .text(text)
    }

    static func decode<Value: Decodable>(_ type: Value.Type, from value: StoredValue) throws -> Value {
        let data: Data
        switch value {
        case .null: data = Data("null".utf8)
        case .text(let text): data = Data(text.utf8)
        case .blob(let blob): data = blob
        default: throw StrataError.conversion(value, to: Value.self)
        }
        do {
            return try JSONDecoder().decode(Value.self, from: data)
        } catch {
            throw StrataError.conversion(value, to: Value.self)
        }
    }
}
