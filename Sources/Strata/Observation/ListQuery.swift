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
