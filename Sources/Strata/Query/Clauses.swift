/// A clause of CoreStore's list form of a fetch: `fetchAll(From<T>(), Where<T>(...),
/// OrderBy<T>(...), Tweak { ... })`. ``Where``, ``OrderBy`` and ``Tweak`` are
/// fetch clauses.
///
/// Each clause refines the ``From`` it is given, as the chained method of
/// the same name does, in the order the clauses come: several `Where`s
/// combine with `&&`, an `OrderBy` adds its keys after those already given,
/// and a `Tweak` changes only what its closure set. (CoreStore keeps only
/// the last `Where` and the last `OrderBy` of a list, with a warning; Strata
/// reads the list as the chain it spells.) So these two fetch the same:
///
/// ```swift
/// let a = try stack.fetchAll(
///     From<Person>(), Where<Person>(\.$age > 30), OrderBy<Person>(.ascending(\.$name)),
///     Tweak { $0.fetchLimit = 5 })
/// let b = try stack.fetchAll(
///     From<Person>().where(\.$age > 30).orderBy(.ascending(\.$name)).tweak { $0.fetchLimit = 5 })
/// ```
///
/// A clause built for a base entity applies to a fetch of a subentity
/// (`Where<Animal>` on `From<Dog>`); a clause of any other entity traps:
/// build it for the fetched entity.
public protocol FetchClause {
    /// `query` with this clause added.
    func applied<Object: ManagedObject>(to query: From<Object>) -> From<Object>
}

/// A clause of CoreStore's list form of a query: `queryValue(From<T>(),
/// Select<T, R>(...), Where<T>(...), GroupBy<T>(...))`. ``Where``,
/// ``OrderBy``, ``Tweak`` and ``GroupBy`` are query clauses; each refines the
/// query as the chained method of the same name does (see ``FetchClause``),
/// and a `GroupBy` replaces an earlier grouping.
///
/// ```swift
/// let rows = try stack.queryAttributes(
///     From<Person>(), Select<Person, [String: StoredValue]>(.attribute(\.$city), .count()),
///     GroupBy<Person>(\.$city), OrderBy<Person>(.ascending(\.$city)))
/// ```
public protocol QueryClause {
    /// `query` with this clause added.
    func applied<Object: ManagedObject, Result>(
        to query: QueryChain<Object, Result>
    ) -> QueryChain<Object, Result>
}

/// A clause of CoreStore's list form of a bulk delete: `deleteAll(From<T>(),
/// Where<T>(...))`. ``Where``, ``OrderBy`` and ``Tweak`` are delete clauses,
/// and mean what they mean in a fetch (see ``FetchClause``): with an order
/// and a limit, exactly the objects `fetchAll` returns are deleted.
///
/// ```swift
/// let removed = try tx.deleteAll(From<Person>(), Where<Person>(\.$age < 18))
/// ```
public protocol DeleteClause {
    /// `query` with this clause added.
    func applied<Object: ManagedObject>(to query: From<Object>) -> From<Object>
}

extension From {
    /// This fetch with `clause` added, as the chained method of the same
    /// name would add it: CoreStore's `appending(_:)`.
    ///
    /// ```swift
    /// let clause: any FetchClause = Tweak { $0.fetchLimit = 10 }
    /// try stack.fetchAll(From<Person>().appending(clause))
    /// ```
    public func appending(_ clause: any FetchClause) -> From {
        clause.applied(to: self)
    }

    /// This fetch with `clauses` added, in order: CoreStore's `appending(contentsOf:)`.
    public func appending(contentsOf clauses: some Sequence<any FetchClause>) -> From {
        applying(Array(clauses))
    }

    /// This fetch with `clauses` added, in order.
    func applying(_ clauses: [any FetchClause]) -> From {
        clauses.reduce(self) { $1.applied(to: $0) }
    }

    /// This fetch with `clauses` added, in order.
    func applying(_ clauses: [any DeleteClause]) -> From {
        clauses.reduce(self) { $1.applied(to: $0) }
    }
}

extension QueryChain {
    /// This query with `clause` added, as the chained method of the same
    /// name would add it: CoreStore's `appending(_:)`.
    public func appending(_ clause: any QueryClause) -> QueryChain {
        clause.applied(to: self)
    }

    /// This query with `clauses` added, in order: CoreStore's `appending(contentsOf:)`.
    public func appending(contentsOf clauses: some Sequence<any QueryClause>) -> QueryChain {
        applying(Array(clauses))
    }

    /// This query with `clauses` added, in order.
    func applying(_ clauses: [any QueryClause]) -> QueryChain {
        clauses.reduce(self) { $1.applied(to: $0) }
    }
}

// MARK: Conformances

extension Where: FetchClause, QueryClause, DeleteClause {
    /// `query.where(self)`: several predicates combine with `&&`.
    public func applied<Target: ManagedObject>(to query: From<Target>) -> From<Target> {
        query.where(Where<Target>(retyping: self))
    }

    /// `query.where(self)`: several predicates combine with `&&`.
    public func applied<Target: ManagedObject, Result>(
        to query: QueryChain<Target, Result>
    ) -> QueryChain<Target, Result> {
        query.where(Where<Target>(retyping: self))
    }
}

extension OrderBy: FetchClause, QueryClause, DeleteClause {
    /// `query.orderBy(self)`: the keys come after those already given.
    public func applied<Target: ManagedObject>(to query: From<Target>) -> From<Target> {
        query.orderBy(OrderBy<Target>(retyping: self))
    }

    /// `query.orderBy(self)`: the keys come after those already given.
    public func applied<Target: ManagedObject, Result>(
        to query: QueryChain<Target, Result>
    ) -> QueryChain<Target, Result> {
        query.orderBy(OrderBy<Target>(retyping: self))
    }
}

extension GroupBy: QueryClause {
    /// `query.groupBy(self)`: replaces an earlier grouping.
    public func applied<Target: ManagedObject, Result>(
        to query: QueryChain<Target, Result>
    ) -> QueryChain<Target, Result> {
        query.groupBy(GroupBy<Target>(retyping: self))
    }
}

extension Tweak: FetchClause, QueryClause, DeleteClause {
    /// The query with the options this tweak set (all of them for a tweak
    /// made with ``init(fetchLimit:fetchOffset:includesSubentities:)``, only
    /// those its closure set for one made with ``init(_:)``).
    public func applied<Object: ManagedObject>(to query: From<Object>) -> From<Object> {
        query.tweak { $0 = applied(to: $0) }
    }

    /// The query with the options this tweak set; limit and offset count
    /// the rows the query returns.
    public func applied<Object: ManagedObject, Result>(
        to query: QueryChain<Object, Result>
    ) -> QueryChain<Object, Result> {
        query.tweak { $0 = applied(to: $0) }
    }
}

// MARK: Re-typing

// A clause names fields by name, so a clause of a base entity reads the same
// fields on a subentity: `Where<Animal>` filters `From<Dog>` as `Where<Dog>`
// would. Any other pairing names fields the fetched entity may not have.

/// Traps unless a clause built for `Clause` can refine a fetch of `Target`:
/// `Target` is `Clause` or one of its subclasses.
private func checkClauseEntity<Clause: ManagedObject, Target: ManagedObject>(
    _ kind: String, _: Clause.Type, _: Target.Type
) {
    checkUsage(
        Target.self is Clause.Type,
        "Strata: a \(kind)<\(Clause.self)> clause cannot refine a fetch of \(Target.self), "
            + "which is not \(Clause.self) nor a subclass of it; build it as \(kind)<\(Target.self)>.")
}

extension Where {
    /// `clause` as a predicate on `Object`, a subclass of its entity (or the
    /// entity itself); traps for another entity.
    init<Clause>(retyping clause: Where<Clause>) {
        checkClauseEntity("Where", Clause.self, Object.self)
        if let deferred = clause.deferred, Object.self != ManagedObject.self {
            self = deferred.retyped(as: Object.self)
        } else {
            self.init(unchecked: clause.predicate, depth: clause.depth)
        }
    }
}

extension OrderBy {
    /// `order` as an order of `Object`, a subclass of its entity (or the
    /// entity itself); traps for another entity.
    init<Clause>(retyping order: OrderBy<Clause>) {
        checkClauseEntity("OrderBy", Clause.self, Object.self)
        self.init(order.keys.map { key in
            let nulls: NullPlacement
            switch key.nulls {
            case .automatic: nulls = .automatic
            case .first: nulls = .first
            case .last: nulls = .last
            }
            // A key named by a string names the field of `Object` now.
            if let name = key.keyName {
                return SortKey.named(name, ascending: key.isAscending, key.options, nulls)
            }
            return SortKey(path: key.path, isAscending: key.isAscending, options: key.options, nulls: nulls)
        })
    }
}

extension GroupBy {
    /// `groupBy` as a grouping of `Object`, a subclass of its entity (or the
    /// entity itself); traps for another entity.
    init<Clause>(retyping groupBy: GroupBy<Clause>) {
        checkClauseEntity("GroupBy", Clause.self, Object.self)
        if let names = groupBy.keyNames {
            self.init(names)  // named by strings: the fields of `Object` now
        } else {
            self.init(paths: groupBy.paths)
        }
    }
}
