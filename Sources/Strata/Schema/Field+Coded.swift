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
    public struct Coded<Value: Codable & Sendable>: FieldWrapper, DeclaringFieldWrapper {
        /// The declaration, in a prototype's wrapper and a projected value;
        /// `nil` in the wrapper an ordinary object stores (see ``DeclaredField``).
        @usableFromInline let declaredField: DeclaredField<Value>?

        /// The field's name in the schema and column name in the store.
        public var name: String { projection.declaration.name }
        /// The field's name in the previous schema version, when it was renamed.
        public var renamingIdentifier: String? { projection.declaration.renamingIdentifier }
        /// The value a new object starts with.
        var defaultValue: Value { projection.defaultValue }

        /// The object whose field this is, in a projected value; `nil` in a
        /// key-path prototype's.
        var enclosingObject: ManagedObject? { declaredField?.object }

        /// Declares a coded field with a default value; `renamingIdentifier` is
        /// its previous name, when a new schema version renames it.
        public init(wrappedValue: Value, _ name: String, renamingIdentifier: String? = nil) {
            declaredField = DeclaredFields.isDescribing
                ? Self.declare(wrappedValue, name, renamingIdentifier) : nil
        }

        @usableFromInline
        init(_ declaredField: DeclaredField<Value>) {
            self.declaredField = declaredField
        }

        /// Declares an optional coded field whose default is `nil`.
        public init<Wrapped>(_ name: String, renamingIdentifier: String? = nil)
        where Value == Wrapped? {
            self.init(wrappedValue: nil, name, renamingIdentifier: renamingIdentifier)
        }

        /// Declares a coded field whose value `dynamicInitialValue` makes anew
        /// for every object created (see the same argument of
        /// ``Field/Stored``); declare it without `= value`.
        ///
        /// ```swift
        /// @Field.Coded("session", dynamicInitialValue: { Session(started: Date()) })
        /// var session: Session
        /// ```
        public init(
            _ name: String, renamingIdentifier: String? = nil,
            dynamicInitialValue: @escaping @Sendable () -> Value
        ) {
            declaredField = DeclaredFields.isDescribing
                ? Self.declare(
                    dynamicInitialValue(), name, renamingIdentifier,
                    initialValue: { try CodedValue.encode(dynamicInitialValue()) })
                : nil
        }

        /// Unavailable: the value lives in the object, read through the
        /// `_enclosingInstance` subscript, so a field outside a class has none.
        @available(*, unavailable, message: "Fields live in ManagedObject subclasses only")
        public var wrappedValue: Value {
            get { fatalError() }
            set { fatalError() }
        }

        /// The field itself, so that `\.$name` can name it.
        public var projectedValue: Self { self }

        /// `object.$address`: the field, carrying the object it was read from.
        public static subscript<Object: ManagedObject>(
            _enclosingInstance object: Object,
            projected projectedKeyPath: KeyPath<Object, Self>,
            storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
        ) -> Self {
            projecting(object, at: storageKeyPath)
        }

        /// `object.address`: the value, decoded from and encoded to the
        /// object's JSON column.
        public static subscript<Object: ManagedObject>(
            _enclosingInstance object: Object,
            wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
            storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
        ) -> Value {
            // The fast paths find the value slot through the context, as a
            // stored field does; the slow paths need the declaration.
            get {
                if let stored = object.storedValue(forField: storageKeyPath),
                   let value = try? CodedValue.decode(Value.self, from: stored) {
                    return value
                }
                return object.readCoded(Self.declared(in: object, at: storageKeyPath))
            }
            set {
                if let stored = try? CodedValue.encode(newValue),
                   object.assignStoredValue(stored, forField: storageKeyPath) {
                    return
                }
                object.writeCoded(newValue, Self.declared(in: object, at: storageKeyPath))
            }
        }

        /// The declaration a prototype's wrapper keeps.
        private static func declare(
            _ defaultValue: Value, _ name: String, _ renamingIdentifier: String?,
            initialValue: InitialValue? = nil
        ) -> DeclaredField<Value> {
            let declaration = FieldDeclaration(
                name: name, renamingIdentifier: renamingIdentifier, initialValue: initialValue,
                failing: "its default value cannot be encoded"
            ) {
                .coded(
                    isOptional: Value.self is any ExpressibleByNilLiteral.Type,
                    defaultValue: try CodedValue.encode(defaultValue))
            }
            return DeclaredField(declaration, defaultValue: defaultValue)
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
