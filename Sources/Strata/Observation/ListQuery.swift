/// What a live list shows: a fetch, and how it is sectioned. The one value
/// ``DataStack/monitorList(_:)``, ``DataStack/publishList(_:)`` and the
/// `refetch(_:)` of monitors and publishers take.
///
/// Two types are list queries: a ``From`` is a list in one section, and
/// `From.sectionBy(...)` makes a ``SectionedQuery``. Fetches take a `From`
/// only, so a sectioning can never be handed to a call where it would mean
/// nothing.
///
/// ```swift
/// let people = try stack.monitorList(From<Person>().orderBy(.ascending(\.$name)))
/// let byCity = try stack.monitorList(
///     From<Person>().sectionBy(\.$city).orderBy(.ascending(\.$name)))
/// ```
public protocol ListQuery<Object>: Sendable {
    /// The entity listed.
    associatedtype Object: ManagedObject
    /// The fetch: the entity, predicate, order and tweak.
    var from: From<Object> { get }
    /// How the list is sectioned; `nil` for one section.
    var sectionBy: SectionBy<Object>? { get }
}

extension From: ListQuery {
    /// The fetch itself.
    public var from: From<Object> { self }
    /// `nil`: a plain fetch lists its objects in one section. Make sections
    /// with ``sectionBy(_:_:)``.
    public var sectionBy: SectionBy<Object>? { nil }
}

/// A fetch with a ``SectionBy``: a ``ListQuery`` whose list comes in
/// sections. Made by `From.sectionBy(...)`; refine it with `where`,
/// `orderBy` and `tweak` in any order, as CoreStore's chain allows.
///
/// ```swift
/// let monitor = try stack.monitorList(
///     From<Person>().sectionBy(\.$city).where(\.$age >= 18).orderBy(.ascending(\.$name)))
/// ```
///
/// It is not a ``From``, so fetches, which have no sections, do not take it.
public struct SectionedQuery<Object: ManagedObject>: ListQuery {
    /// The fetch: the entity, predicate, order and tweak.
    public let from: From<Object>
    let sections: SectionBy<Object>

    /// How the list is sectioned; never `nil`.
    public var sectionBy: SectionBy<Object>? { sections }

    init(from: From<Object>, sectionBy: SectionBy<Object>) {
        self.from = from
        self.sections = sectionBy
    }

    /// Adds a predicate; several `where` calls combine with `&&`.
    public func `where`(_ clause: Where<Object>) -> SectionedQuery {
        SectionedQuery(from: from.where(clause), sectionBy: sections)
    }

    /// Adds sort keys after those already given. Sections always order
    /// first, by their key ascending; these order objects within a section.
    public func orderBy(_ keys: OrderBy<Object>.SortKey...) -> SectionedQuery {
        orderBy(OrderBy(keys))
    }

    /// Adds the keys of `order` after those already given.
    public func orderBy(_ order: OrderBy<Object>) -> SectionedQuery {
        SectionedQuery(from: from.orderBy(order), sectionBy: sections)
    }

    /// Adjusts the fetch: its limit and offset, and whether subentities' objects
    /// are members (``Tweak/includesSubentities``).
    public func tweak(_ adjust: (inout Tweak) -> Void) -> SectionedQuery {
        SectionedQuery(from: from.tweak(adjust), sectionBy: sections)
    }
}

extension From {
    /// Sections the list by the field at `keyPath`, each named by
    /// `sectionName` and titled in a section index by `sectionIndexTransformer`
    /// (by default not titled: no section index; see ``SectionBy``).
    ///
    /// ```swift
    /// From<Person>().orderBy(.ascending(\.$name)).sectionBy(\.$age) { "\($0 / 10 * 10)s" }
    /// From<Person>().sectionBy(\.$age, sectionIndexTransformer: { $0.map { "\($0)+" } })
    /// ```
    public func sectionBy<Value: FieldStorable>(
        _ keyPath: KeyPath<Object, Field.Stored<Value>>,
        _ sectionName: @escaping @Sendable (Value) -> String = defaultSectionName,
        sectionIndexTransformer:
            @escaping @Sendable (_ sectionName: String?) -> String? = { _ in nil }
    ) -> SectionedQuery<Object> {
        SectionedQuery(
            from: self,
            sectionBy: SectionBy(keyPath, sectionName, sectionIndexTransformer: sectionIndexTransformer))
    }

    /// Sections the list by the field `keyPath` names, as CoreStore's
    /// `.sectionBy("age")` and `.sectionBy("age", sectionIndexTransformer:)`
    /// (see ``SectionBy/init(_:sectionIndexTransformer:)``).
    ///
    /// ```swift
    /// From<Person>().orderBy(.ascending("name")).sectionBy("age")
    /// ```
    public func sectionBy(
        _ keyPath: String,
        sectionIndexTransformer:
            @escaping @Sendable (_ sectionName: String?) -> String? = { _ in nil }
    ) -> SectionedQuery<Object> {
        SectionedQuery(
            from: self, sectionBy: SectionBy(keyPath, sectionIndexTransformer: sectionIndexTransformer))
    }

    /// Sections the list as `sectionBy` says (by a path through to-one
    /// relationships, for example).
    ///
    /// ```swift
    /// From<Pet>().sectionBy(SectionBy(\.$owner ~ \.$name))
    /// ```
    public func sectionBy(_ sectionBy: SectionBy<Object>) -> SectionedQuery<Object> {
        SectionedQuery(from: self, sectionBy: sectionBy)
    }
}
