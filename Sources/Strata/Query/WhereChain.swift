/// A query a `where` refines: ``From``, a ``QueryChain`` after `select`, and a
/// ``SectionedQuery`` after `sectionBy`. Each gets CoreStore's other spellings
/// of a chained `where`, all meaning `.where(_:)` of one predicate.
///
/// ```swift
/// From<Person>().where(combineByOr: \.$age < 18, \.$age >= 65)
/// From<Person>().where(format: "%K BEGINSWITH[c] %@", "name", "an")
/// ```
public protocol WhereChain<Object> {
    /// The entity queried.
    associatedtype Object: ManagedObject
    /// The query with `clause` added; several combine with `&&`.
    func `where`(_ clause: Where<Object>) -> Self
}

extension From: WhereChain {}
extension QueryChain: WhereChain {}
extension SectionedQuery: WhereChain {}

extension WhereChain {
    /// The query refined by every one of `clauses` (all objects for none), as
    /// CoreStore's `where(combineByAnd:)`.
    public func `where`(combineByAnd clauses: Where<Object>...) -> Self {
        self.where(clauses.combinedByAnd())
    }

    /// The query refined by any one of `clauses` (no object for none), as
    /// CoreStore's `where(combineByOr:)`.
    public func `where`(combineByOr clauses: Where<Object>...) -> Self {
        self.where(clauses.combinedByOr())
    }

    /// The query refined by a predicate in NSPredicate's format language (see
    /// ``Where/init(_:_:)``), as CoreStore's `where(format:_:)`. Bad input
    /// never traps: the fetch, count or monitor of the query throws
    /// ``StrataError/invalidValue(entity:field:reason:)``.
    ///
    /// ```swift
    /// try stack.fetchAll(From<Person>().where(format: "age > %d", 30))
    /// ```
    public func `where`(format: String, _ arguments: Any?...) -> Self {
        self.where(Where(parsing: format, arguments))
    }

    /// ``where(format:_:)`` with the arguments in an array, as CoreStore's
    /// `where(format:argumentArray:)`. Bad input makes the fetch, count or
    /// monitor of the query throw ``StrataError/invalidValue(entity:field:reason:)``.
    public func `where`(format: String, argumentArray: [Any]?) -> Self {
        self.where(Where(format, argumentArray: argumentArray))
    }
}
