/// The identity of an object: its entity and row ID. Typed, `Sendable` and
/// `Hashable`; the same in every context and across runs. Once committed, an
/// ID is never given to another object of the entity.
///
/// In an inheritance tree an ID names the object's concrete entity, whatever
/// type it is seen as: a `Dog`'s `ObjectID<Animal>` is `"Dog/42"`, and
/// looking it up (`fetchExisting`, `tx.edit`) gives the `Dog`. Row IDs are
/// shared by the whole tree, so no two objects of it have one row ID.
///
/// Pass IDs between threads and contexts, then look the object up:
///
/// ```swift
/// let id = person.objectID
/// try await stack.perform { tx in tx.edit(id)?.age += 1 }
/// ```
///
/// An ID is `Codable`, and its `description` is a stable string,
/// `"<entity>/<row ID>"` (`"Person/42"`), that ``init(parsing:in:)`` reads
/// back, so an app can store IDs (in settings, in URLs, in its own files).
///
/// The type alone does not know its entity's name (a ``Schema`` gives it), so
/// reading an ID back checks the name against the schema when one is given
/// (as ``init(parsing:in:)``'s `schema`, or in a decoder's `userInfo` under
/// `CodingUserInfoKey.strataSchema`), and otherwise against the name
/// `Entity<Object>()` gives by default, the class name, or the class name of
/// a subclass of `Object` that is an entity (`"Dog/3"` read as an
/// `ObjectID<Animal>`) of a schema built in the process. An ID of another
/// entity is refused there, never looked up later as the wrong object. With
/// a schema, an ID stored before its entity was renamed (`Entity<Person>(
/// "Human", renamingIdentifier: "Person")`) reads back under the new name.
public struct ObjectID<Object: ManagedObject>: Sendable, Hashable, CustomStringConvertible {
    /// The entity's name.
    public let entityName: String
    /// The object's row ID (`_pk`) in its entity's table.
    public let rowID: Int64
    /// The configuration of the store that holds the object: `nil` for the
    /// default configuration's store. Objects of one entity in two stores of
    /// a stack have different IDs even when their row IDs are equal.
    public let configuration: String?

    init(entityName: String, rowID: Int64, configuration: String? = nil) {
        self.entityName = entityName
        self.rowID = rowID
        self.configuration = configuration
    }

    /// The stable string form, `"<entity>/<row ID>"` (`"Person/42"`), or
    /// `"<configuration>/<entity>/<row ID>"` for an object of a named
    /// configuration's store (`"Cache/Thumbnail/7"`).
    public var description: String { ObjectIDText.format(entityName, rowID, configuration) }

    /// The type-erased ID.
    public var erased: AnyObjectID { AnyObjectID(entityName: entityName, rowID: rowID, configuration: configuration) }

    /// Reads an ID from its string form (`description`), checking that it
    /// names `Object`'s entity or one of its subentities: their names in
    /// `schema` when one is given, otherwise the class name (the name
    /// `Entity<Object>()` gives by default) of `Object` or of a subclass that
    /// is an entity of a schema built in the process.
    ///
    /// ```swift
    /// let id = try ObjectID<Person>(parsing: "Person/42")
    /// let renamed = try ObjectID<Person>(parsing: "People/42", in: stack.schema)
    /// ```
    ///
    /// - Throws: ``StrataError/invalidValue(entity:field:reason:)`` (field
    ///   `"ObjectID"`) when the text is not `"<entity>/<row ID>"`, or names
    ///   another entity, or `Object` is not an entity of `schema`.
    public init(parsing text: String, in schema: Schema? = nil) throws(StrataError) {
        let id = try AnyObjectID(parsing: text, in: schema)
        if let problem = Self.mismatch(id.entityName, schema: schema) {
            throw ObjectIDText.error(entity: String(describing: Object.self), problem)
        }
        self.init(entityName: id.entityName, rowID: id.rowID, configuration: id.configuration)
    }

    /// Why `name` is not `Object`'s entity, or `nil` when it is.
    fileprivate static func mismatch(_ name: String, schema: Schema?) -> String? {
        guard let schema else {
            let expected = String(describing: Object.self)
            // A subentity's ID is an ID of its base too (`ObjectID<Animal>` of a
            // dog is "Dog/3"): a class name of a subclass of `Object` will do.
            if name == expected || EntityClasses.isClass(named: name, kindOf: Object.self) { return nil }
            return "\(name) is not \(Object.self)'s entity \(expected); if \(Object.self)'s entity "
                + "is named \(name), give the schema (userInfo[.strataSchema] when decoding)"
        }
        guard let entity = schema.entity(for: Object.self) else {
            return "\(Object.self) is not an entity of schema \(schema.version)"
        }
        // A subentity's ID is an ID of its base too: `ObjectID<Animal>` may name a Dog.
        if let named = schema.entity(named: name), entity.includes(named) { return nil }
        return "\(name) is not \(Object.self)'s entity \(entity.name)"
            + (entity.tree == nil ? "" : " or one of its subentities")
    }
}

/// An ``ObjectID`` without its static type, as change sets list them.
///
/// `Codable` and stable as text, like ``ObjectID``: `"Person/42"`.
public struct AnyObjectID: Sendable, Hashable, CustomStringConvertible {
    /// The entity's name.
    public let entityName: String
    /// The object's row ID in its entity's table.
    public let rowID: Int64
    /// The configuration of the store that holds the object: `nil` for the
    /// default configuration's store.
    public let configuration: String?

    /// The stable string form, `"<entity>/<row ID>"` (`"Person/42"`), or
    /// `"<configuration>/<entity>/<row ID>"` in a named configuration's store.
    public var description: String { ObjectIDText.format(entityName, rowID, configuration) }

    /// Reads an ID from its string form (`description`). Any entity name
    /// will do, unless `schema` is given: then the entity must be one of its.
    ///
    /// ```swift
    /// let id = try AnyObjectID(parsing: "Pet/7")
    /// id.entityName   // "Pet"
    /// ```
    ///
    /// - Throws: ``StrataError/invalidValue(entity:field:reason:)`` (field
    ///   `"ObjectID"`) when the text is not `"<entity>/<row ID>"` or names an
    ///   entity `schema` does not have.
    public init(parsing text: String, in schema: Schema? = nil) throws(StrataError) {
        (entityName, rowID, configuration) = try ObjectIDText.parse(text, schema: schema)
    }

    init(entityName: String, rowID: Int64, configuration: String? = nil) {
        self.entityName = entityName
        self.rowID = rowID
        self.configuration = configuration
    }

    /// The typed ID; the caller knows the entity is `Object`'s.
    public func typed<Object: ManagedObject>(as type: Object.Type) -> ObjectID<Object> {
        ObjectID(entityName: entityName, rowID: rowID, configuration: configuration)
    }
}

// MARK: Coding

extension CodingUserInfoKey {
    /// The key of a decoder's `userInfo` under which a ``Schema`` checks the
    /// entity of every ``ObjectID`` and ``AnyObjectID`` decoded.
    ///
    /// ```swift
    /// let decoder = JSONDecoder()
    /// decoder.userInfo[.strataSchema] = stack.schema
    /// let ids = try decoder.decode([ObjectID<Person>].self, from: data)
    /// ```
    public static let strataSchema = CodingUserInfoKey(rawValue: "Strata.schema")!
}

extension ObjectID: Codable {
    /// Encodes the ID as its string form, `"Person/42"`.
    public func encode(to encoder: any Encoder) throws {
        try erased.encode(to: encoder)
    }

    /// Decodes an ID from its string form, checking its entity as
    /// ``init(parsing:in:)`` does, with the ``Schema`` in
    /// `userInfo[.strataSchema]` if there is one.
    ///
    /// - Throws: `DecodingError.dataCorrupted` when the string is not an ID,
    ///   or is an ID of another entity.
    public init(from decoder: any Decoder) throws {
        let id = try AnyObjectID(from: decoder)
        if let problem = Self.mismatch(id.entityName, schema: ObjectIDText.schema(of: decoder)) {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription: "Not an ObjectID<\(Object.self)>: \(problem)"))
        }
        self.init(entityName: id.entityName, rowID: id.rowID, configuration: id.configuration)
    }
}

extension AnyObjectID: Codable {
    /// Encodes the ID as its string form, `"Person/42"`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    /// Decodes an ID from its string form; with a ``Schema`` in
    /// `userInfo[.strataSchema]`, its entity must be one of the schema's.
    ///
    /// - Throws: `DecodingError.dataCorrupted` when the string is not an ID
    ///   of an entity the schema has.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do {
            (entityName, rowID, configuration) = try ObjectIDText.parse(
                text, schema: ObjectIDText.schema(of: decoder))
        } catch StrataError.invalidValue(_, _, let reason) {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: reason))
        }
    }
}

/// The string form of IDs, `"<entity>/<row ID>"`, with
/// `"<configuration>/"` in front for a named configuration's store. Entity
/// and configuration names are ASCII identifiers (the schema refuses
/// others), so `/` separates the parts; the row ID is written as
/// `String(rowID)` and read back only in that exact form, so that each ID
/// has one spelling.
private enum ObjectIDText {
    static func format(_ entityName: String, _ rowID: Int64, _ configuration: String?) -> String {
        configuration.map { "\($0)/\(entityName)/\(rowID)" } ?? "\(entityName)/\(rowID)"
    }

    /// The entity name and row ID of `text`. With `schema`, the entity must
    /// be one of its, and a name it had before a rename (its
    /// `renamingIdentifier`) reads as its name now: a migration keeps row
    /// IDs, so an ID stored before the rename still names its object.
    static func parse(
        _ text: String, schema: Schema?
    ) throws(StrataError) -> (String, Int64, String?) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2 || parts.count == 3, parts.dropLast().allSatisfy(SQL.isValidIdentifier),
            let rowID = Int64(parts[parts.count - 1]), String(rowID) == parts[parts.count - 1]
        else {
            throw error(
                entity: "?",
                "\"\(text)\" is not an ID: expected \"<entity>/<row ID>\", as \"Person/42\", "
                    + "or \"<configuration>/<entity>/<row ID>\"")
        }
        let name = parts[parts.count - 2]
        let configuration = parts.count == 3 ? parts[0] : nil
        guard let schema else { return (name, rowID, configuration) }
        guard
            let entity = schema.entity(named: name)
                ?? schema.entities.first(where: { $0.renamingIdentifier == name })
        else {
            throw error(entity: name, "\(name) is not an entity of schema \(schema.version)")
        }
        if let configuration, !schema.entityNames(in: configuration).contains(entity.name) {
            throw error(
                entity: name, "\(entity.name) is not in configuration \(configuration) of schema \(schema.version)")
        }
        return (entity.name, rowID, configuration)
    }

    /// The schema a decoder checks IDs against, if it has one.
    static func schema(of decoder: any Decoder) -> Schema? {
        decoder.userInfo[.strataSchema] as? Schema
    }

    static func error(entity: String, _ reason: String) -> StrataError {
        .invalidValue(entity: entity, field: "ObjectID", reason: reason)
    }
}
