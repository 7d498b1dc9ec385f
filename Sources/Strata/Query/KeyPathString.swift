// Clauses named by strings, as CoreStore's `KeyPathString`s name them:
// `OrderBy<Person>(.ascending("name"))`, `Select<Person, Int>(.maximum("age"))`,
// `Select("name", .count("pets"))`, `GroupBy<Person>("city")`. A string is
// resolved against the class's fields when the clause is made (and again
// when a list clause is applied to a fetch of a subclass: Swift makes an
// `OrderBy(.ascending("name"))` in a list one of `ManagedObject`), into the
// path the key-path spelling builds, so the two read, sort and group alike. A
// string that names nothing the clause can use makes an invalid clause, which
// the fetch, query or monitor using it reports by throwing
// ``StrataError/invalidValue(entity:field:reason:)``.

/// A field's name, or a dotted path through to-one relationships
/// (`"owner.name"`), resolved against `Object`'s fields.
struct NamedKeyPath<Object: ManagedObject> {
    let text: String
    /// What the caller wrote, for the error's reason: `OrderBy.ascending("nmae")`.
    let spelling: String

    /// What the text names: a stored field, a to-one relationship, or a to-many one.
    enum Target {
        case stored(ValuePath, valueType: Any.Type)
        case toOne(ValuePath)
        case toMany(String)
    }

    func resolve() -> Result<Target, StrataError> {
        let resolved: PredicateFormatParser.ResolvedPath
        do {
            resolved = try PredicateFormatParser.resolve(keyPath: text, root: Object.self)
        } catch {
            return .failure(invalid(error.message))
        }
        if case .count = resolved.end {
            return .failure(invalid("'\(text)' is an aggregate; name a field"))
        }
        if let toMany = resolved.toMany {
            // Only a to-many relationship of the class itself, named last: its count.
            guard case .object = resolved.end, resolved.path.field == nil, toMany.owner == ValuePath(field: nil)
            else {
                return .failure(invalid(
                    "'\(text)' passes through the to-many relationship '\(toMany.name)', which holds "
                        + "many values for one object"))
            }
            return .success(.toMany(toMany.name))
        }
        switch resolved.end {
        case .stored: return .success(.stored(resolved.path, valueType: resolved.valueType))
        case .object where resolved.path.field != nil: return .success(.toOne(resolved.path))
        case .object, .count: return .failure(invalid("'\(text)' names no field of \(Object.self)"))
        }
    }

    /// The path to a stored field, or the reason `text` is not one.
    func storedField(for use: String) -> Result<(ValuePath, valueType: Any.Type), StrataError> {
        resolve().flatMap { target in
            switch target {
            case let .stored(path, valueType): return .success((path, valueType))
            case .toOne, .toMany:
                return .failure(invalid("'\(text)' is a relationship; \(use) a field of it ('\(text).name')"))
            }
        }
    }

    func invalid(_ reason: String) -> StrataError {
        .invalidValue(entity: String(describing: Object.self), field: text, reason: "\(spelling): \(reason)")
    }
}

// MARK: OrderBy

extension OrderBy.SortKey {
    /// Sorts by the field `keyPath` names, smallest first, as CoreStore's
    /// `.ascending("name")`: a field's name or a dotted path through to-one
    /// relationships.
    ///
    /// ```swift
    /// OrderBy<Person>(.descending("rating"), .ascending("surname"))
    /// From<Pet>().orderBy(.ascending("owner.name"))
    /// ```
    ///
    /// A name that is not a stored field makes an invalid order, which the
    /// fetch or monitor using it reports by throwing
    /// ``StrataError/invalidValue(entity:field:reason:)``.
    public static func ascending(
        _ keyPath: String, _ options: TextOptions = [], nulls: OrderBy.NullPlacement = .automatic
    ) -> Self {
        named(keyPath, ascending: true, options, nulls)
    }

    /// Sorts by the field `keyPath` names, largest first, as CoreStore's
    /// `.descending("name")`.
    public static func descending(
        _ keyPath: String, _ options: TextOptions = [], nulls: OrderBy.NullPlacement = .automatic
    ) -> Self {
        named(keyPath, ascending: false, options, nulls)
    }

    static func named(
        _ keyPath: String, ascending: Bool, _ options: TextOptions, _ nulls: OrderBy.NullPlacement
    ) -> Self {
        let spelling = "OrderBy.\(ascending ? "ascending" : "descending")(\(String(reflecting: keyPath)))"
        switch NamedKeyPath<Object>(text: keyPath, spelling: spelling).storedField(for: "sort by") {
        case .success(let (path, _)):
            return Self(path: path, isAscending: ascending, options: options, nulls: nulls, keyName: keyPath)
        case .failure(let error):
            return Self(
                path: ValuePath(field: nil), isAscending: ascending, options: options, nulls: nulls,
                problem: error, keyName: keyPath)
        }
    }
}

// MARK: GroupBy

extension GroupBy {
    /// Groups by the fields `keyPaths` name, in order, as CoreStore's
    /// `GroupBy<Person>("age")`: fields' names or dotted paths through to-one
    /// relationships.
    ///
    /// ```swift
    /// let perAge = try stack.queryAttributes(
    ///     From<Person>(), Select("age", .count("age", as: "count")), GroupBy("age"))
    /// ```
    ///
    /// A name that is not a stored field makes an invalid grouping, which
    /// the query using it reports by throwing
    /// ``StrataError/invalidValue(entity:field:reason:)``.
    public init(_ keyPath: String, _ moreKeyPaths: String...) {
        self.init([keyPath] + moreKeyPaths)
    }

    /// Groups by the fields `keyPaths` name, in order.
    public init(_ keyPaths: [String]) {
        var paths: [ValuePath] = []
        var problem: StrataError?
        for keyPath in keyPaths {
            let named = NamedKeyPath<Object>(text: keyPath, spelling: "GroupBy(\(String(reflecting: keyPath)))")
            switch named.storedField(for: "group by") {
            case .success(let (path, _)): paths.append(path)
            case .failure(let error): problem = problem ?? error
            }
        }
        self.init(paths: paths, problem: problem)
        self.keyNames = keyPaths
    }
}

extension QueryChain {
    /// Groups the matching objects by the fields `keyPaths` name, as
    /// ``GroupBy/init(_:_:)-(String,String...)`` does; replaces an earlier grouping.
    ///
    /// ```swift
    /// From<Person>().select(.attribute("city"), .count()).groupBy("city")
    /// ```
    public func groupBy(_ keyPath: String, _ moreKeyPaths: String...) -> QueryChain {
        groupBy(GroupBy([keyPath] + moreKeyPaths))
    }
}

// MARK: SelectTerm

extension SelectTerm: ExpressibleByStringLiteral {
    /// The value of the field the literal names, as CoreStore's
    /// `Select<Person, Int>("age")` and `Select("name", "age")` read:
    /// ``attribute(_:as:)-(String,_)``.
    public init(stringLiteral keyPath: String) {
        self = .attribute(keyPath)
    }

    /// The value of the field `keyPath` names (a field's name or a dotted
    /// path through to-one relationships), named `keyPath` unless `as`
    /// names it.
    ///
    /// ```swift
    /// try stack.queryAttributes(From<Person>(), Select("name", "age"))
    /// try stack.queryValue(From<Person>().select(Int.self, .attribute("age")).where(\.$name == "Ann"))
    /// ```
    ///
    /// A name that is not a stored field makes an invalid term, which the
    /// query using it reports by throwing
    /// ``StrataError/invalidValue(entity:field:reason:)``.
    public static func attribute(_ keyPath: String, as alias: String? = nil) -> SelectTerm {
        named(.value, keyPath, alias, "", spelled: "attribute")
    }

    /// How many matching objects have a value at the field `keyPath` names;
    /// for a to-many relationship, as CoreStore's `.count("friends")`, how
    /// many objects each object's relationship holds (one per object, as
    /// ``count(_:as:)-(KeyPath<Object,Field.Relationship<Related>>,_)`` gives).
    /// Named `count(keyPath)` unless `as` names it.
    ///
    /// ```swift
    /// try stack.queryAttributes(From<Person>(), Select("name", .count("pets", as: "petCount")))
    /// ```
    public static func count(_ keyPath: String, as alias: String? = nil) -> SelectTerm {
        named(.count, keyPath, alias, "count", spelled: "count")
    }

    /// The sum of the values of the field `keyPath` names, as CoreStore's `.sum("age")`.
    public static func sum(_ keyPath: String, as alias: String? = nil) -> SelectTerm {
        named(.sum, keyPath, alias, "sum", spelled: "sum")
    }

    /// The mean of the values of the field `keyPath` names, as CoreStore's `.average("age")`.
    public static func average(_ keyPath: String, as alias: String? = nil) -> SelectTerm {
        named(.average, keyPath, alias, "average", spelled: "average")
    }

    /// The smallest value of the field `keyPath` names, as CoreStore's `.minimum("age")`.
    public static func minimum(_ keyPath: String, as alias: String? = nil) -> SelectTerm {
        named(.minimum, keyPath, alias, "min", spelled: "minimum")
    }

    /// The largest value of the field `keyPath` names, as CoreStore's `.maximum("age")`.
    ///
    /// ```swift
    /// let oldest = try stack.queryValue(From<Person>(), Select<Person, Int>(.maximum("age")))
    /// ```
    public static func maximum(_ keyPath: String, as alias: String? = nil) -> SelectTerm {
        named(.maximum, keyPath, alias, "max", spelled: "maximum")
    }

    /// The term `function` makes of the field `keyPath` names, named as the
    /// key-path spelling names it.
    private static func named(
        _ function: Function, _ keyPath: String, _ alias: String?, _ prefix: String, spelled: String
    ) -> SelectTerm {
        let named = NamedKeyPath<Object>(
            text: keyPath, spelling: "SelectTerm.\(spelled)(\(String(reflecting: keyPath)))")
        let name = alias ?? (prefix.isEmpty ? keyPath : "\(prefix)(\(keyPath))")
        switch named.resolve() {
        case let .success(.stored(path, valueType)):
            // As the key-path terms: a count's values are numbers, whatever it counts.
            let kind = function == .count ? ValueKind.other : ValueKind(valueType)
            return SelectTerm(function: function, path: path, name: name, valueKind: kind)
        case let .success(.toOne(path)) where function == .count:
            return SelectTerm(function: .count, path: path, name: name)
        case let .success(.toMany(relationship)) where function == .count:
            return SelectTerm(function: .relatedCount, path: ValuePath(field: relationship), name: name)
        case .success:
            let error = named.invalid(
                "'\(keyPath)' is a relationship; \(spelled) reads a field of it ('\(keyPath).name')")
            return SelectTerm(function: function, path: nil, name: name, problem: error)
        case .failure(let error):
            return SelectTerm(function: function, path: nil, name: name, problem: error)
        }
    }
}
