/// The classes of the entities of every schema built in this process, by
/// class name: what lets an ID read without a schema (``ObjectID/init(parsing:in:)``,
/// decoding) know that `"Dog/3"` names a subclass of `Animal`, so that an
/// `ObjectID<Animal>` of a dog reads back as it was written. The name alone
/// cannot say it, and Swift finds no class by its bare name.
enum EntityClasses {
    private static let byName = Locked<[String: [ManagedObject.Type]]>([:])

    /// Records the classes of `entities` (a schema being built).
    static func register(_ entities: [any AnyEntity]) {
        byName.withLock { known in
            for entity in entities {
                let type = entity.objectType
                let name = String(describing: type)
                if known[name]?.contains(where: { $0 == type }) != true {
                    known[name, default: []].append(type)
                }
            }
        }
    }

    /// Whether an entity class named `name` (its class name) is `Object` or
    /// one of its subclasses.
    static func isClass<Object: ManagedObject>(named name: String, kindOf _: Object.Type) -> Bool {
        byName.withLock { known in known[name]?.contains { $0 is Object.Type } ?? false }
    }

    /// Whether `type` is `ancestor` or one of its subclasses.
    static func isClass(_ type: AnyClass, within ancestor: AnyClass) -> Bool {
        var current: AnyClass? = type
        while let candidate = current {
            if candidate == ancestor { return true }
            current = _getSuperclass(candidate)
        }
        return false
    }
}
