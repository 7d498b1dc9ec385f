/// One version of a data model: a version name and its entities.
///
/// ```swift
/// let schema = Schema("V1", entities: [Entity<Person>("Person"), Entity<Pet>("Pet")])
/// print(schema.fingerprint)   // the same on every run and machine
/// ```
///
/// Building a schema never traps: mistakes (a duplicate name, an invalid
/// identifier, an inverse that does not point back) are collected and thrown
/// as ``StrataError/invalidSchema(entity:field:reason:)`` by ``validate()``,
/// which `DataStack` calls when a store is added.
public struct Schema: Sendable {
    /// The version name, recorded in every store created with this schema.
    public let version: String
    /// A digest of the stored shape of the schema; see `Docs/Storage.md`.
    public let fingerprint: String
    /// The fingerprint this version was locked to, if any (see ``init(_:entities:versionLock:)``).
    public let versionLock: String?
    let entities: [EntityDescription]
    let linkTables: [TableDefinition]
    /// The entities as declared, to restrict the schema to a configuration.
    let declarations: [any AnyEntity]
    /// The configuration this schema is restricted to (see
    /// ``restricted(to:)``); `nil` for the whole schema.
    let configuration: String?
    let problems: [StrataError]
    /// The entities each base entity stands for in change-set questions;
    /// `nil` without inheritance.
    let entityFamilies: EntityFamilies?
    private let entitiesByName: [String: EntityDescription]
    private let entitiesByType: [ObjectIdentifier: EntityDescription]
    /// Each entity's class, in the order of `entities`: a schema of a few
    /// entities finds a class by comparing these, which costs less than
    /// hashing it (every `create` asks).
    private let entityTypes: [ObjectIdentifier]

    /// How many entities a schema can have: an object keeps its entity's
    /// index in 16 bits.
    static let maximumEntityCount = 1 << 16

    /// Creates the schema `version` with the given entities.
    ///
    /// `versionLock` pins the version to its fingerprint once it has shipped:
    /// paste the value ``versionLockHint`` prints. If the entities change
    /// afterwards without a new version, adding a store fails loudly in debug
    /// builds, saying to add a version instead of editing a shipped one.
    ///
    /// ```swift
    /// Schema("V1", entities: [Entity<Person>("Person")], versionLock: "e848b12bfe129192f35499c5ede88dca")
    /// ```
    public init(_ version: String, entities: [any AnyEntity], versionLock: String? = nil) {
        self.init(version, entities: entities, versionLock: versionLock, configuration: nil)
    }

    /// The schema of `entities`, as a store of `configuration` (`nil`: the
    /// default one) holds them.
    /// `outside` are the whole schema's other entities (see ``SchemaBuilder/init(entities:configuration:outside:)``).
    init(
        _ version: String, entities: [any AnyEntity], versionLock: String?, configuration: String?,
        outside: [any AnyEntity] = []
    ) {
        self.versionLock = versionLock
        self.declarations = entities
        if configuration == nil { EntityClasses.register(entities) }
        self.configuration = configuration
        var builder = SchemaBuilder(entities: entities, configuration: configuration, outside: outside)
        let built = builder.build()
        self.version = version
        self.entities = built.entities
        self.linkTables = built.linkTables
        var problems = builder.problems
        if version.isEmpty {
            problems.insert(.invalidSchema(entity: nil, field: nil, reason: "the version name is empty"), at: 0)
        }
        if configuration == nil { problems += Self.configurationProblems(built.entities, declarations: entities) }
        problems += Self.nameClashes(built.entities, linkTables: built.linkTables)
        if built.entities.count > Self.maximumEntityCount {
            let reason =
                "\(built.entities.count) entities, more than the \(Self.maximumEntityCount) a schema can have"
            problems.append(.invalidSchema(entity: nil, field: nil, reason: reason))
        }
        self.problems = problems
        self.entitiesByName = Dictionary(
            built.entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.entitiesByType = Dictionary(
            built.entities.map { (ObjectIdentifier($0.type), $0) },
            uniquingKeysWith: { first, _ in first })
        self.entityTypes = built.entities.map { ObjectIdentifier($0.type) }
        self.fingerprint = SchemaFingerprint.compute(built.entities, linkTables: built.linkTables)
        self.entityFamilies = EntityFamilies(entities: built.entities)
    }

    /// The `versionLock:` argument that pins this version, ready to paste.
    ///
    /// ```swift
    /// print(schema.versionLockHint)   // versionLock: "e848b12bfe129192f35499c5ede88dca"
    /// ```
    public var versionLockHint: String { "versionLock: \"\(fingerprint)\"" }

    /// Whether the version lock, if any, still matches the entities.
    public var isVersionLockSatisfied: Bool { versionLock.map { $0 == fingerprint } ?? true }

    /// Traps in debug builds when the entities changed after the version was
    /// locked; release builds carry on (opening an older store then reports
    /// a schema mismatch instead).
    func checkVersionLock() {
        #if DEBUG
        if let versionLock, versionLock != fingerprint {
            assertionFailure(
                "Strata: schema \(version) was locked to fingerprint \(versionLock), but its entities "
                    + "now give \(fingerprint). A shipped version must not change: add a new version to "
                    + "the SchemaHistory (stores migrate to it). If \(version) never shipped, update the "
                    + "lock to \(versionLockHint).")
        }
        #endif
    }

    /// Throws the first mistake found in the schema, if any.
    ///
    /// - Throws: ``StrataError/invalidSchema(entity:field:reason:)`` naming the entity and field.
    public func validate() throws(StrataError) {
        if let problem = problems.first { throw problem }
    }

    /// Throws when an entity or field name is longer than the store's engine
    /// keeps an identifier whole: PostgreSQL cuts names past 63 bytes, and
    /// Strata does not store a name you declared under another. (Names
    /// Strata makes itself, such as link tables, are shortened instead:
    /// ``SQLDialect/storedName(_:)``.) SQLite takes any valid name.
    ///
    /// - Throws: ``StrataError/invalidSchema(entity:field:reason:)`` naming
    ///   the entity and field.
    func validateNames(for dialect: SQLDialect) throws(StrataError) {
        let limit = dialect.identifierLimit
        func tooLong(_ name: String) -> String? {
            guard name.utf8.count > limit else { return nil }
            return "'\(name)' is \(name.utf8.count) bytes long, and PostgreSQL identifiers are "
                + "at most \(limit) bytes; use a shorter name on a PostgreSQL store"
        }
        for entity in entities {
            if let reason = tooLong(entity.name) {
                throw .invalidSchema(entity: entity.name, field: nil, reason: reason)
            }
            for field in entity.fieldNames {
                guard let reason = tooLong(field) else { continue }
                throw .invalidSchema(entity: entity.name, field: field, reason: reason)
            }
        }
    }

    /// The names of the schema's entities, in declaration order.
    public var entityNames: [String] { entities.map(\.name) }

    func entity(named name: String) -> EntityDescription? { entitiesByName[name] }

    /// The classes of the entities that are `type` or inherit from it, by entity name.
    ///
    /// ```swift
    /// schema.entityTypesByName(for: ManagedObject.self)   // every entity's class
    /// ```
    public func entityTypesByName(for type: ManagedObject.Type) -> [String: ManagedObject.Type] {
        Dictionary(uniqueKeysWithValues: entities.filter { EntityClasses.isClass($0.type, within: type) }
            .map { ($0.name, $0.type) })
    }

    /// Up to this many entities, a class is found by comparing identifiers.
    private static let largestScannedSchema = 16

    /// The entity of the class `type`, or `nil` outside the schema.
    func entity(for type: ManagedObject.Type) -> EntityDescription? {
        let identifier = ObjectIdentifier(type)
        guard entityTypes.count > Self.largestScannedSchema else {
            // The first match, as the dictionary keeps the first.
            return entityTypes.firstIndex(of: identifier).map { entities[$0] }
        }
        return entitiesByType[identifier]
    }

    /// ``entity(for:)`` unretained, for `create`, which runs per object: the
    /// schema keeps its entities, and a returned entity cost a retain and a
    /// release.
    func unretainedEntity(for type: ManagedObject.Type) -> Unmanaged<EntityDescription>? {
        guard entityTypes.count > Self.largestScannedSchema else {
            guard let index = entityTypes.firstIndex(of: ObjectIdentifier(type)) else { return nil }
            return entities.withUnsafeBufferPointer { Unmanaged.passUnretained($0[index]) }
        }
        return entity(for: type).map(Unmanaged.passUnretained)
    }

    /// The entity an ID of `Object` reads: `Object`'s, or, when `Object` is
    /// a superclass that is no entity (`ManagedObject` in generic code), the
    /// one the ID names; `nil` when neither is in the schema.
    func entity<Object: ManagedObject>(reading id: ObjectID<Object>) -> EntityDescription? {
        entity(for: Object.self) ?? entity(named: id.entityName)
    }

    /// The entity of `type`; a type outside the schema is a programmer error.
    func entity<Object: ManagedObject>(of type: Object.Type) -> EntityDescription {
        guard let entity = entity(for: type) else {
            misuse(
                "Strata: \(type) is not an entity of schema \(version). "
                    + "Add Entity<\(type)>(\"\(type)\") to the Schema's entities.")
        }
        return entity
    }

    /// Every table the schema stores: one per entity outside an inheritance
    /// tree and one per tree, plus link tables.
    var tables: [TableDefinition] { entities.filter(\.ownsTable).map(\.table) + linkTables }

    /// Whether any entity is in an inheritance tree.
    var hasInheritance: Bool { entities.contains { $0.tree != nil } }

    /// The entity of table `table` that declares `fields` (the columns of a
    /// unique constraint): of the entities having all of them, the one whose
    /// parent entity does not. `nil` when no entity of the table has them.
    func entity(declaring fields: [String], inTable table: String) -> String? {
        let holders = entities.filter { entity in
            entity.tableName == table
                && fields.allSatisfy { field in entity.fieldAttributes.contains { $0.name == field } }
        }
        return holders.first { holder in !holders.contains { $0.name == holder.tree?.parentName } }?.name
    }
}
