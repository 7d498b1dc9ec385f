// CoreStore's format-string `Where`, in NSPredicate's format language.
//
// There is no NSPredicate here: the format is parsed into the same tree the
// key-path operators build (see `PredicateFormatParser`), so a fetch compiles
// it to SQL and a monitor evaluates it in memory, with the answers of the
// key-path `Where` for the same condition. Arguments are converted to stored
// values (or row IDs) while the `Where` is built, by the field each one is
// compared with, and never kept: the `Where` stays `Sendable`.

extension Where {
    /// A predicate written in NSPredicate's format language, as CoreStore's
    /// `Where<T>("age > %d", 30)`.
    ///
    /// ```swift
    /// Where<Person>("age > %d", 30)
    /// Where<Person>("%K BEGINSWITH[cd] %@", "name", "an")
    /// Where<Person>("ANY pets.name == %@ AND NOT (email == nil)", "Rex")
    /// Where<Pet>("owner == %@ OR owner.age BETWEEN {18, 65}", ann)
    /// ```
    ///
    /// Supported: `==` `=` `!=` `<>` `<` `<=` `=<` `>` `>=` `=>`, `BETWEEN`,
    /// `IN`, `BEGINSWITH` `ENDSWITH` `CONTAINS` `LIKE` with `[c]` `[d]` `[cd]`
    /// (also on `==` and `!=` with text), `AND` `&&` `OR` `||` `NOT` `!`,
    /// parentheses, `TRUEPREDICATE` `FALSEPREDICATE`, `nil` `NULL` `YES` `NO`
    /// `TRUE` `FALSE`, numbers, quoted strings, `{ … }` lists; key paths as
    /// names, `%K`, `SELF`, dotted to-one paths (`owner.name`); `ANY` `SOME`
    /// `ALL` `NONE` over one to-many relationship (`ANY pets.name == "Rex"`)
    /// and `pets.@count`; the specifiers `%@`, `%K`, `%d` `%i` `%u` (with `l`,
    /// `ll`, `h`, `q` sizes), `%f` `%g` `%e`, and positional `%1$@`. Refused:
    /// `MATCHES`, `SUBQUERY`, functions, arithmetic, `$VARIABLES`, aggregates
    /// other than `@count`, comparing two key paths (see `Docs/Querying.md`).
    ///
    /// An argument is stored as the field it is compared with stores it: a
    /// `Date`, `UUID`, `Decimal`, `Data`, `Bool` or enum in its own stored
    /// form, a number of the field's numeric class when it converts exactly;
    /// a relationship or `SELF` takes an object, an `ObjectID` or `nil`.
    ///
    /// Nothing here throws or traps: bad input (a syntax error, an unknown
    /// field, a missing or extra argument, an argument of the wrong type, an
    /// unsupported operator) makes an invalid predicate, and the fetch,
    /// count or monitor that uses it throws
    /// ``StrataError/invalidValue(entity:field:reason:)`` whose field is
    /// `format` and whose reason names the problem and its column.
    public init(_ format: String, _ arguments: Any?...) {
        self.init(parsing: format, arguments)
    }

    /// A predicate in NSPredicate's format language with its arguments in an
    /// array, as CoreStore's `Where<T>(_:argumentArray:)`; see ``init(_:_:)``.
    ///
    /// ```swift
    /// Where<Person>("name IN %@ AND age >= %d", argumentArray: [["Ann", "Bob"], 18])
    /// ```
    ///
    /// Bad input makes an invalid predicate, which the fetch, count or monitor
    /// using it reports by throwing ``StrataError/invalidValue(entity:field:reason:)``.
    public init(_ format: String, argumentArray: [Any]?) {
        self.init(parsing: format, (argumentArray ?? []).map { $0 })
    }

    /// NSPredicate's spelling of ``init(_:argumentArray:)``: the same predicate.
    ///
    /// ```swift
    /// Where<Person>(format: "age > %d", argumentArray: [30])
    /// ```
    ///
    /// Bad input makes an invalid predicate, which the fetch, count or monitor
    /// using it reports by throwing ``StrataError/invalidValue(entity:field:reason:)``.
    public init(format: String, argumentArray: [Any]?) {
        self.init(format, argumentArray: argumentArray)
    }

    /// Objects whose value at `keyPath`, a field's name or a dotted path
    /// through to-one relationships, equals `value`, as CoreStore's
    /// `Where<T>("name", isEqualTo: "Ann")`: the format `%K == %@`. `nil`
    /// matches NULL (and a nil link); a relationship takes an object or an
    /// `ObjectID`.
    ///
    /// ```swift
    /// Where<Person>("name", isEqualTo: "Ann")
    /// Where<Person>("email", isEqualTo: nil)
    /// Where<Pet>("owner.name", isEqualTo: "Ann")
    /// ```
    ///
    /// An unknown field or a value the field cannot hold makes an invalid
    /// predicate, which the fetch, count or monitor using it reports by
    /// throwing ``StrataError/invalidValue(entity:field:reason:)``.
    public init(_ keyPath: String, isEqualTo value: Any?) {
        self.init(
            parsing: "%K == %@", [keyPath, value],
            spelled: "Where(\(String(reflecting: keyPath)), isEqualTo:)")
    }

    /// Objects whose value at `keyPath` equals one of `list`, as CoreStore's
    /// `Where<T>("name", isMemberOf: ["Ann", "Bob"])`: the format `%K IN %@`.
    /// An empty list matches nothing.
    ///
    /// ```swift
    /// Where<Person>("age", isMemberOf: [30, 40])
    /// Where<Pet>("owner", isMemberOf: [ann, bob])
    /// ```
    ///
    /// An unknown field or a value the field cannot hold makes an invalid
    /// predicate, which the fetch, count or monitor using it reports by
    /// throwing ``StrataError/invalidValue(entity:field:reason:)``.
    public init<List: Sequence>(_ keyPath: String, isMemberOf list: List) {
        self.init(
            parsing: "%K IN %@", [keyPath, list.map { $0 as Any }],
            spelled: "Where(\(String(reflecting: keyPath)), isMemberOf:)")
    }

    /// The predicate `format` states with `arguments`, or an invalid one
    /// whose reason names the problem in `spelling` (what the caller wrote,
    /// when it was not the format itself) or at its column of `format`.
    init(parsing format: String, _ arguments: [Any?], spelled spelling: String? = nil) {
        do {
            self.init(
                try PredicateFormatParser.predicate(format, arguments: arguments, root: Object.self)
            )
        } catch {
            let place = spelling
                ?? (error.column.map { "column \($0) of " } ?? "") + String(reflecting: format)
            self.init(
                .invalid(
                    .invalidValue(
                        entity: String(describing: Object.self), field: "format",
                        reason: "\(place): \(error.message)")))
            // In a clause list nothing names the class of a `Where` written
            // without one, and Swift makes it `ManagedObject`, which has no
            // fields: the format is parsed again for the class it filters.
            if Object.self == ManagedObject.self {
                deferred = .format(DeferredFormat(format: format, arguments: arguments, spelling: spelling))
            }
        }
    }
}

/// A `Where` written without its class (`Where("age > %d", 30)` in a clause
/// list, alone or combined with others by `&&`, `||` and `!`), kept to be
/// built again when the list applies it to a fetch of a class
/// (``Where/init(retyping:)``). Each format in it is parsed again for that
/// class; a part that names no field is kept as built.
indirect enum DeferredWhere: Sendable {
    case format(DeferredFormat)
    /// A part that parsed without a class: a constant or raw SQL.
    case built(WherePredicate, depth: Int)
    case combined([DeferredWhere], conjunction: Bool)
    case negated(DeferredWhere)

    /// `operand`'s deferred form, or its predicate as built.
    init<Object>(_ operand: Where<Object>) {
        self = operand.deferred ?? .built(operand.predicate, depth: operand.depth)
    }

    /// The predicate built again for `Object`.
    func retyped<Object>(as _: Object.Type) -> Where<Object> {
        switch self {
        case .format(let format):
            return Where(parsing: format.format, format.arguments, spelled: format.spelling)
        case let .built(predicate, depth):
            return Where(unchecked: predicate, depth: depth)
        case let .combined(operands, conjunction):
            return .combining(operands.map { $0.retyped(as: Object.self) }, conjunction: conjunction)
        case .negated(let operand):
            return operand.retyped(as: Object.self).negated
        }
    }
}

/// A format `Where` written without its class, with its arguments.
struct DeferredFormat: @unchecked Sendable {
    let format: String
    /// The arguments with every object replaced by its `ObjectID`: values of
    /// the types a format takes (numbers, text, dates, IDs, lists of them),
    /// which nothing mutates; `@unchecked` because `Any` cannot say so.
    let arguments: [Any?]
    let spelling: String?

    init(format: String, arguments: [Any?], spelling: String?) {
        self.format = format
        self.arguments = arguments.map { $0.map(Self.detached) }
        self.spelling = spelling
    }

    /// `value` with objects, also inside a list, replaced by their IDs.
    private static func detached(_ value: Any) -> Any {
        if let object = value as? any ManagedObjectIdentifiable, object.entity != nil {
            func id(of object: some ManagedObjectIdentifiable) -> Any { object.objectID }
            return id(of: object)
        }
        guard let list = PredicateFormatValue.elements(of: value) else {
            return value
        }
        return list.map { element -> Any? in
            guard case .argument(let argument) = element else { return nil }
            return detached(argument)
        }
    }
}
