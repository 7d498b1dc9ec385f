// CoreStore's `SelectTerm.objectID()`: the ID of each object a query
// matches, as a column of `queryAttributes` rows or as the value
// `queryValue` returns, typed `ObjectID<Object>`.

extension SelectTerm {
    /// The object's ID, named `objectID` unless `as` names it, as
    /// CoreStore's `.objectID()`. `queryValue` returns the first matching
    /// object's ID as an `ObjectID<Object>` (and `nil` as any other type);
    /// in `queryAttributes` rows it is the ID's text, `.text("Person/42")`,
    /// which ``ObjectID/init(parsing:in:)`` reads back. An object of a
    /// subentity has the ID of its own entity (`"Dog/7"`), as
    /// ``FetchableSource/fetchObjectIDs(_:)`` gives it.
    ///
    /// ```swift
    /// let annID = try stack.queryValue(
    ///     From<Person>(), Select<Person, ObjectID<Person>>(.objectID()), Where<Person>(\.$name == "Ann"))
    /// let rows = try stack.queryAttributes(From<Person>(), Select("name", .objectID()))
    /// // [["name": .text("Ann"), "objectID": .text("Person/1")], ...]
    /// // SELECT t0."name" AS "name", t0._pk AS "objectID" FROM "Person" AS t0 ORDER BY t0._pk ASC
    /// ```
    ///
    /// An ID is one per object: a query that also groups or aggregates
    /// throws ``StrataError/invalidValue(entity:field:reason:)``, whose rows
    /// are not objects.
    public static func objectID(as alias: String? = nil) -> SelectTerm {
        SelectTerm(function: .objectID, path: nil, name: alias ?? "objectID")
    }
}

extension Select where Result == ObjectID<Object> {
    /// A selection of the object's ID, ``SelectTerm/objectID(as:)``, as
    /// CoreStore's `Select<NSManagedObjectID>()`.
    ///
    /// ```swift
    /// let firstAdult = try stack.queryValue(
    ///     From<Person>().where(\.$age >= 18).orderBy(.ascending(\.$name))
    ///         .select(Select<Person, ObjectID<Person>>()))
    /// ```
    public init() {
        self.init([.objectID()])
    }
}
