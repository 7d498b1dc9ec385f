/// Groups a monitored list into sections by a field, with a closure that
/// names each section from the field's value.
///
/// ```swift
/// stack.monitorList(
///     From<Person>().orderBy(.ascending(\.$name))
///         .sectionBy(SectionBy(\.$age) { age in "\(age / 10 * 10)s" }))
/// ```
///
/// Objects are ordered by the section field first (ascending), then by the
/// list's own order, so that each section is one run of the list. Sections
/// whose names come out equal for different values are one section only if
/// their values are adjacent in that order.
///
/// A monitor remembers the name of each integer or text value it has seen,
/// so the closure must name a value the same way every time (no clock or
/// changing settings in it); a monitor made again calls it afresh.
///
/// Each section can also have an index title, for a table view's section
/// index (``ListMonitor/sectionIndexTitles()``, ``ListSnapshot/sectionIndexTitles()``):
/// what ``sectionIndexTransformer`` returns for its name. As in CoreStore,
/// the transformer answers `nil` unless you give one, so a list sectioned
/// without one has no section index; a `nil` or "" title leaves a section
/// out of the index.
///
/// ```swift
/// let byAge = try stack.monitorSectionedList(
///     From<Person>(), SectionBy(\.$age, sectionIndexTransformer: { $0.map { "\($0)+" } }),
///     OrderBy<Person>(.ascending(\.$name)))
/// byAge.sectionIndexTitles()   // ["30+", "41+"]
/// ```
///
/// A `SectionBy` is not `Equatable`, as CoreStore's is not: it holds
/// closures (the section name and the index title), which cannot be
/// compared, and two sectionings by one field that name or title sections
/// differently are not the same.
public struct SectionBy<Object: ManagedObject>: Sendable {
    let path: ValuePath
    let name: @Sendable (StoredValue) -> String
    /// The index title of a section named `sectionName`, as CoreStore's:
    /// the closure given to the initializer, or `{ _ in nil }` (no title)
    /// without one. Strata always passes the section's name, never `nil`;
    /// a `nil` or "" answer leaves the section out of the section index.
    ///
    /// ```swift
    /// SectionBy<Person>("age").sectionIndexTransformer("31")   // nil
    /// SectionBy<Person>("age", sectionIndexTransformer: { $0.map { "\($0)+" } })
    ///     .sectionIndexTransformer("31")                        // "31+"
    /// ```
    public let sectionIndexTransformer: @Sendable (_ sectionName: String?) -> String?
    /// Why the sectioning, named by a string that names no stored field, is
    /// invalid: the monitor using it throws this.
    var problem: StrataError? = nil
    /// The string such an invalid sectioning was named by, which
    /// ``sectionKeyPath`` still answers, as CoreStore's does.
    private var unresolvedKeyPath: String? = nil

    /// The name of the field the sections are by, a path's joined by dots
    /// (`"owner.name"`), as CoreStore's `sectionKeyPath`.
    /// A string that names no stored field is answered as given.
    public var sectionKeyPath: String { unresolvedKeyPath ?? path.description }

    /// Sections by the field at `keyPath`, named by `sectionName`
    /// (by default the value's description, unwrapped; `nil` is named ""),
    /// each with the index title `sectionIndexTransformer` gives its name
    /// (by default none; see ``SectionBy``).
    ///
    /// ```swift
    /// SectionBy(\.$age) { age in "\(age / 10 * 10)s" }                    // "30s", no index
    /// SectionBy(\.$age, sectionIndexTransformer: { $0.map { "\($0)+" } })  // "31", index "31+"
    /// SectionBy(\.$age, { "\($0 / 10 * 10)s" }, sectionIndexTransformer: { $0?.first.map(String.init) })
    /// ```
    ///
    /// `sectionIndexTransformer` takes a `String?`, as CoreStore's does;
    /// Strata always passes the section's name.
    public init<Value: FieldStorable>(
        _ keyPath: KeyPath<Object, Field.Stored<Value>>,
        _ sectionName: @escaping @Sendable (Value) -> String = defaultSectionName,
        sectionIndexTransformer:
            @escaping @Sendable (_ sectionName: String?) -> String? = { _ in nil }
    ) {
        self.path = ValuePath(keyPath)
        self.name = Self.naming(Value.self, sectionName)
        self.sectionIndexTransformer = sectionIndexTransformer
    }

    /// Sections by a value reached through to-one relationships, each
    /// section with the index title `sectionIndexTransformer` gives its name.
    ///
    /// ```swift
    /// SectionBy(\.$owner ~ \.$name, sectionIndexTransformer: { $0?.isEmpty == false ? "•" : nil })
    /// ```
    public init<Value: FieldStorable>(
        _ expression: Where<Object>.Expression<Value>,
        _ sectionName: @escaping @Sendable (Value) -> String = defaultSectionName,
        sectionIndexTransformer:
            @escaping @Sendable (_ sectionName: String?) -> String? = { _ in nil }
    ) {
        self.path = expression.path
        self.name = Self.naming(Value.self, sectionName)
        self.sectionIndexTransformer = sectionIndexTransformer
    }

    /// Sections by the field `keyPath` names, as CoreStore's
    /// `SectionBy<Person>("age")`: a field's name or a dotted path through
    /// to-one relationships. Each section is named by the value's
    /// description (``defaultSectionName(_:)``).
    ///
    /// ```swift
    /// let byAge = try stack.monitorSectionedList(
    ///     From<Person>(), SectionBy<Person>("age"), OrderBy<Person>(.ascending("name")))
    /// let titled = SectionBy<Person>("age", sectionIndexTransformer: { $0.map { "Age \($0)" } })
    /// ```
    ///
    /// Each section's index title is what `sectionIndexTransformer`, as
    /// CoreStore's, gives its name (by default none; see ``SectionBy``).
    ///
    /// A name that is not a stored field makes an invalid sectioning, which
    /// the monitor or publisher using it reports by throwing
    /// ``StrataError/invalidValue(entity:field:reason:)``.
    public init(
        _ keyPath: String,
        sectionIndexTransformer:
            @escaping @Sendable (_ sectionName: String?) -> String? = { _ in nil }
    ) {
        self.sectionIndexTransformer = sectionIndexTransformer
        let named = NamedKeyPath<Object>(text: keyPath, spelling: "SectionBy(\(String(reflecting: keyPath)))")
        switch named.storedField(for: "section by") {
        case let .success((path, valueType)):
            self.path = path
            if let storable = valueType as? any FieldStorable.Type {
                self.name = Self.naming(storable, defaultSectionName)
            } else {
                self.name = { _ in "" }
            }
        case .failure(let error):
            self.path = ValuePath(field: nil)
            self.name = { _ in "" }
            self.problem = error
            self.unresolvedKeyPath = keyPath
        }
    }

    /// The index title of the section named `name`: the transformer's
    /// answer, or `nil` (none) when that is `nil` or "". The one place
    /// monitors and snapshots title a section.
    func indexTitle(ofSectionNamed name: String) -> String? {
        sectionIndexTransformer(name).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// A section's name from its stored value: `sectionName` of the value
    /// as `Value`, or "" for a value that does not convert.
    private static func naming<Value: FieldStorable>(
        _: Value.Type, _ sectionName: @escaping @Sendable (Value) -> String
    ) -> @Sendable (StoredValue) -> String {
        { stored in (try? Value(storedValue: stored)).map(sectionName) ?? "" }
    }
}

/// The default section name: the value's description, with an optional
/// unwrapped (`"home"`, not `Optional("home")`) and `nil` named "".
@Sendable
public func defaultSectionName<Value>(_ value: Value) -> String {
    (value as? any UnwrappableSectionName)?.unwrappedSectionName ?? "\(value)"
}

/// An optional's section name: its wrapped value's description, or "".
private protocol UnwrappableSectionName {
    var unwrappedSectionName: String { get }
}

extension Optional: UnwrappableSectionName {
    fileprivate var unwrappedSectionName: String { map { "\($0)" } ?? "" }
}

/// One section of a monitored list. Two infos are equal when they have the
/// same name, index title and objects (the same instances) in the same
/// order, so the info a `didInsertSection` callback receives equals
/// `monitor.sectionInfo(at:)` of its index.
public struct ListSectionInfo<Object: ManagedObject>: Equatable {
    /// The section's name (the SectionBy closure's result).
    public let name: String
    /// The section's objects, in order.
    public let objects: [Object]
    /// The section's title in a section index: what the SectionBy's
    /// `sectionIndexTransformer` gives its name; "" when it has none
    /// (CoreStore's `nil`), as every section has without a transformer and
    /// in an unsectioned list.
    public let indexTitle: String
    /// How many objects the section holds.
    public var numberOfObjects: Int { objects.count }
}
