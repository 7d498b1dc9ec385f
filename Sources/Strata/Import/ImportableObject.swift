/// An object a transaction can create from a source value, such as a decoded
/// JSON record, with ``BaseDataTransaction/importObject(_:source:)``
/// or ``BaseDataTransaction/importObjects(_:sourceArray:)``.
///
/// ```swift
/// struct PersonJSON: Decodable { var name: String }
///
/// extension Person: ImportableObject {
///     typealias ImportSource = PersonJSON
///     func didInsert(from source: PersonJSON, in transaction: BaseDataTransaction) throws {
///         name = source.name
///     }
/// }
/// ```
public protocol ImportableObject: ManagedObject {
    /// The value one object is imported from; any type, `Decodable` ones included.
    associatedtype ImportSource

    /// What every source of one import call needs, such as related objects
    /// by ID, loaded once by ``prepareImport(for:in:)`` before any source is
    /// processed. `Void` unless you declare it.
    associatedtype ImportData = Void

    /// Loads what the sources of one import call need, once, before the first
    /// of them is processed (the importer-data pattern). The hooks read it
    /// with ``BaseDataTransaction/importData(for:)``. Defaults to nothing when
    /// ``ImportData`` is `Void`.
    ///
    /// ```swift
    /// static func prepareImport(for sources: [SongJSON], in transaction: BaseDataTransaction)
    ///     throws -> [Int: Album]
    /// {
    ///     let ids = Set(sources.map(\.albumID))
    ///     let albums = try transaction.fetchAll(From<Album>().where(Where(\.$remoteID, in: Array(ids))))
    ///     return Dictionary(albums.map { ($0.remoteID, $0) }, uniquingKeysWith: { first, _ in first })
    /// }
    ///
    /// func didInsert(from source: SongJSON, in transaction: BaseDataTransaction) throws {
    ///     title = source.title
    ///     album = transaction.importData(for: Song.self)[source.albumID]
    /// }
    /// ```
    ///
    /// - Parameter sources: the sources the call will process: for a unique
    ///   import, those left after `nil` IDs, duplicates and `preProcess`.
    /// - Throws: any error of your own; the import call rethrows it before it
    ///   inserts or updates anything.
    static func prepareImport(for sources: [ImportSource], in transaction: BaseDataTransaction)
        throws -> ImportData

    /// Whether `source` should become a new object; `false` skips it.
    /// Defaults to `true`; for an ``ImportableUniqueObject``, to what its
    /// `static` ``ImportableUniqueObject/shouldUpdate(from:in:)`` answers.
    static func shouldInsert(from source: ImportSource, in transaction: BaseDataTransaction) -> Bool

    /// Fills in a new object (or, with `importObject(_:source:)`, an existing
    /// one) from `source`.
    ///
    /// - Throws: any error of your own; the import call rethrows it unchanged.
    func didInsert(from source: ImportSource, in transaction: BaseDataTransaction) throws
}

extension ImportableObject where ImportData == Void {
    /// Nothing to load.
    public static func prepareImport(
        for sources: [ImportSource], in transaction: BaseDataTransaction
    ) {}
}

extension ImportableObject {
    /// Every source is inserted.
    public static func shouldInsert(from source: ImportSource, in transaction: BaseDataTransaction)
        -> Bool
    {
        true
    }
}

/// An object identified by a unique ID in its source, so that importing the
/// same record again updates the object instead of duplicating it; see
/// ``BaseDataTransaction/importUniqueObjects(_:sourceArray:preProcess:)``.
///
/// Declare the ID field `.unique` (or at least `.indexed`): each batch of an
/// import looks its IDs up with one `IN (...)` query on that column.
///
/// ```swift
/// final class Person: ManagedObject {
///     @Field.Stored("remoteID", .unique) var remoteID: Int = 0
///     @Field.Stored("name") var name: String = ""
/// }
///
/// extension Person: ImportableUniqueObject {
///     typealias ImportSource = PersonJSON
///     static var uniqueIDKeyPath: KeyPath<Person, Field.Stored<Int>> { \.$remoteID }
///     static func uniqueID(from source: PersonJSON, in transaction: BaseDataTransaction) -> Int? {
///         source.id
///     }
///     func update(from source: PersonJSON, in transaction: BaseDataTransaction) throws {
///         name = source.name
///     }
/// }
/// ```
public protocol ImportableUniqueObject: ImportableObject {
    /// The type of the unique ID, stored in the field at ``uniqueIDKeyPath``.
    associatedtype UniqueIDType: FieldStorable & Hashable

    /// The field that holds the unique ID, such as `\.$remoteID`.
    static var uniqueIDKeyPath: KeyPath<Self, Field.Stored<UniqueIDType>> { get }

    /// The unique ID of `source`; `nil` skips the source, and so does an ID
    /// of `nil` when the ID field is optional (`UniqueIDType` is `Int?`).
    ///
    /// - Throws: any error of your own; the import rethrows it before it
    ///   inserts or updates anything.
    static func uniqueID(from source: ImportSource, in transaction: BaseDataTransaction) throws
        -> UniqueIDType?

    /// Whether the existing object with `source`'s ID should be updated from
    /// it; `false` skips the source. CoreStore's `static` hook, asked first,
    /// before the object is looked at. Defaults to `true`; the default
    /// ``ImportableObject/shouldInsert(from:in:)`` of a unique object asks it
    /// too, as CoreStore's does.
    ///
    /// ```swift
    /// static func shouldUpdate(from source: SongJSON, in transaction: BaseDataTransaction) -> Bool {
    ///     !source.title.isEmpty
    /// }
    /// ```
    static func shouldUpdate(from source: ImportSource, in transaction: BaseDataTransaction) -> Bool

    /// Whether this existing object should be updated from `source`, asked
    /// after the `static` hook agreed; `false` skips the source. Strata's
    /// addition: it can compare the object with the source (a version
    /// field, say). Defaults to `true`.
    func shouldUpdate(from source: ImportSource, in transaction: BaseDataTransaction) -> Bool

    /// Updates this object, which already holds the source's unique ID, from `source`.
    ///
    /// - Throws: any error of your own; the import call rethrows it unchanged.
    func update(from source: ImportSource, in transaction: BaseDataTransaction) throws
}

extension ImportableUniqueObject {
    /// Every source with an existing object updates it.
    public static func shouldUpdate(from source: ImportSource, in transaction: BaseDataTransaction)
        -> Bool
    {
        true
    }

    /// A source becomes a new object when the `static`
    /// ``shouldUpdate(from:in:)`` accepts it, as in CoreStore: a model that
    /// declines stale records there declines them whether or not their
    /// object exists. Declare `shouldInsert` to decide new objects apart.
    public static func shouldInsert(from source: ImportSource, in transaction: BaseDataTransaction)
        -> Bool
    {
        Self.shouldUpdate(from: source, in: transaction)
    }

    /// Every existing object is updated.
    public func shouldUpdate(from source: ImportSource, in transaction: BaseDataTransaction) -> Bool
    {
        true
    }

    /// A new object, which already holds the source's unique ID, is filled in
    /// by ``update(from:in:)``, so one method describes both cases.
    public func didInsert(from source: ImportSource, in transaction: BaseDataTransaction) throws {
        try update(from: source, in: transaction)
    }

    /// The object's unique ID: the value of the field at ``uniqueIDKeyPath``,
    /// read and set as that field's own accessor does, as CoreStore's
    /// default `uniqueIDValue`. An import sets it before `didInsert`.
    ///
    /// ```swift
    /// let ids = people.map(\.uniqueIDValue)
    /// ```
    public var uniqueIDValue: UniqueIDType {
        get { storedField(at: Self.uniqueIDKeyPath, Self.uniqueIDField) }
        set { setStoredField(newValue, at: Self.uniqueIDKeyPath, Self.uniqueIDField) }
    }

    /// The unique-ID field's declaration, found once per import call.
    @inlinable
    static var uniqueIDField: DeclaredField<UniqueIDType> {
        DeclaredFields.field(at: uniqueIDKeyPath, of: UniqueIDType.self)
    }
}
