/// One side's contexts over every store of a stack — the main actor's, or a
/// transaction's — in the order the stores were added, and where each
/// operation goes among them.
///
/// A stack of one store (the common case) has one context, and every
/// operation goes straight to it. With several stores (configurations), an
/// object lives in the store its ``Into`` named, a fetch reads the stores
/// its ``From`` names (every store holding the entity by default) and merges
/// their rows, and an ID or an object names its store by its configuration.
///
/// A class: every read on the main actor takes the stack's, and copying a
/// struct holding the whole ``Schema`` retained and released each of its
/// parts (3% of a lookup by unique field).
final class StoreContexts {
    /// One context per store, in the order the stores were added; never empty.
    let all: [ObjectContext]
    /// The stack's whole schema, to tell a class outside it (a programmer
    /// error) from one no added store holds (a typed error).
    let schema: Schema

    init(_ all: [ObjectContext], schema: Schema) {
        precondition(!all.isEmpty, "a stack's contexts cover at least one store")
        self.all = all
        self.schema = schema
        if all.count > 1, all[0].kind == .transaction {
            let writers = WriterSet(all)
            for context in all { context.writerSet = writers }
        }
    }

    /// The first store's context: the one store of a one-store stack.
    var primary: ObjectContext { all[0] }

    /// The context of the store whose objects are of `configuration`, if the stack has one.
    func context(ofConfiguration configuration: String?) -> ObjectContext? {
        if all.count == 1 { return all[0].schema.configuration == configuration ? all[0] : nil }
        return all.first { $0.schema.configuration == configuration }
    }

    /// The context of the store `object` lives in, among these; `nil` for an
    /// object of a store these do not read (another stack's file), whatever
    /// its row ID names here.
    func context(of object: ManagedObject) -> ObjectContext? {
        guard let entity = object.entity, let home = object.context,
              let context = context(ofConfiguration: entity.configuration),
              context.readsStore(of: home)
        else { return nil }
        return context
    }

    /// The contexts of the stores a query over `Object` reads: those of
    /// `configurations` (`nil`: every store) that hold the entity.
    ///
    /// - Throws: ``StrataError/storeNotFound(entity:configuration:)`` when none does.
    func holding<Object: ManagedObject>(
        _ type: Object.Type, in configurations: [String?]?
    ) throws -> [ObjectContext] {
        if all.count == 1, configurations == nil, all[0].schema.entity(for: type) != nil { return all }
        let found = all.filter { context in
            context.schema.entity(for: type) != nil
                && (configurations?.contains(context.schema.configuration) ?? true)
        }
        guard found.isEmpty else { return found }
        let entity = schema.entity(of: type)  // traps for a class outside the schema
        throw StrataError.storeNotFound(entity: entity.name, configuration: configurations?.first ?? nil)
    }

    /// The one context a query over `Object` reads, for what must run in one
    /// store (`purpose`, say "a monitor follows one store"): a `Select`'s aggregates
    /// run in SQL, and a monitor follows one store's generations.
    ///
    /// - Throws: ``StrataError/storeNotFound(entity:configuration:)`` when no
    ///   store holds the entity, and ``StrataError/invalidValue(entity:field:reason:)``
    ///   when several do and `configurations` names no one of them.
    func oneHolding<Object: ManagedObject>(
        _ type: Object.Type, in configurations: [String?]?, for purpose: String
    ) throws -> ObjectContext {
        let contexts = try holding(type, in: configurations)
        guard contexts.count == 1 else {
            throw StrataError.invalidValue(
                entity: schema.entity(of: type).name, field: "configuration",
                reason: "\(purpose), and \(contexts.count) stores hold the entity; "
                    + "name one configuration, as From<\(Object.self)>(\"Configuration\")")
        }
        return contexts[0]
    }

    /// Calls `body` with what ``creationTarget(for:)`` finds, borrowed: the
    /// contexts keep the context, and its schema the entity, while the
    /// transaction lives. Returned as a pair, the two were retained and
    /// released once per created object.
    ///
    /// - Throws: what ``creationTarget(for:)`` throws; `body` throws nothing.
    func withCreationTarget<Object: ManagedObject, Result>(
        for into: Into<Object>, _ body: (ObjectContext, EntityDescription) -> Result
    ) throws -> Result {
        if into.infersStore, all.count == 1 {
            let only = Unmanaged.passUnretained(all[0])
            let entity = only._withUnsafeGuaranteedRef { context in
                context.schema.unretainedEntity(for: into.entityClass)
            }
            if let entity {
                return only._withUnsafeGuaranteedRef { context in
                    entity._withUnsafeGuaranteedRef { entity in body(context, entity) }
                }
            }
        }
        let found = try creationTarget(for: into)
        return body(found.context, found.entity)
    }

    /// The context an object created with `into` goes to, and the entity of
    /// `Object` in its store: the one look-up that finds the store is the
    /// one that finds the entity.
    ///
    /// - Throws: ``StrataError/storeNotFound(entity:configuration:)`` when no
    ///   store of the named configuration holds the entity. Traps when `into`
    ///   names none and several stores hold it, as CoreStore does.
    func creationTarget<Object: ManagedObject>(
        for into: Into<Object>
    ) throws -> (context: ObjectContext, entity: EntityDescription) {
        let type = into.entityClass
        if into.infersStore, all.count == 1, let entity = all[0].schema.entity(for: type) {
            return (all[0], entity)
        }
        guard into.infersStore else {
            guard let context = context(ofConfiguration: into.configuration),
                  let entity = context.schema.entity(for: type)
            else {
                throw StrataError.storeNotFound(
                    entity: schema.entity(of: type).name, configuration: into.configuration)
            }
            return (context, entity)
        }
        let candidates = try holding(type, in: nil)
        if candidates.count > 1 {
            misuse(
                "Strata: several stores hold \(type) (configurations "
                    + candidates.map { $0.schema.configuration ?? "nil" }.joined(separator: ", ")
                    + "); name one with Into<\(type)>(\"Configuration\"), or Into<\(type)>(nil) "
                    + "for the default configuration's store.")
        }
        return (candidates[0], candidates[0].entity(type))
    }
}
