/// What an import call loads once for all its sources (the importer-data
/// step of ``ImportableObject/prepareImport(for:in:)``), and how its hooks read it.
extension BaseDataTransaction {
    /// What ``ImportableObject/prepareImport(for:in:)`` loaded for the import
    /// call of `type` that is running; read it in `shouldInsert`,
    /// `didInsert`, `shouldUpdate` and `update` (not in `uniqueID`, which runs
    /// before the sources are known).
    ///
    /// ```swift
    /// album = transaction.importData(for: Song.self)[source.albumID]
    /// ```
    ///
    /// Traps when no import call of `type` is running: load what you need
    /// with a fetch instead.
    public func importData<Object: ImportableObject>(for type: Object.Type) -> Object.ImportData {
        guard let data = preparedImports[ObjectIdentifier(type)] as? Object.ImportData else {
            misuse(
                "importData(for: \(type)) is only available inside the hooks of an import of "
                    + "\(type); outside one, fetch what you need instead")
        }
        return data
    }

    /// Runs `body` with `type.prepareImport(for: sources)` available through
    /// ``importData(for:)`` of `Object`, restoring what an enclosing import of
    /// the same type had prepared afterwards. `type` is the class the import
    /// creates (`Into`'s entity class), whose `class func` hooks may
    /// override `Object`'s.
    @inlinable
    func withImportData<Object: ImportableObject, Result>(
        _ type: Object.Type, for sources: [Object.ImportSource], _ body: () throws -> Result
    ) throws -> Result {
        let key = ObjectIdentifier(Object.self)
        let enclosing = preparedImports[key]
        preparedImports[key] = try type.prepareImport(for: sources, in: self)
        defer { preparedImports[key] = enclosing }
        return try body()
    }
}
