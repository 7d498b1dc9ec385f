/// Reads on the main context: every fetch and query of ``FetchableSource``
/// and ``QueryableSource``, on the main actor only. The conformance is
/// isolated to the main actor (SE-0470), so the compiler refuses
/// `stack.fetchAll(...)` anywhere else; objects returned are read-only
/// (change them inside a transaction with `tx.edit(object)`).
extension DataStack: @MainActor QueryableSource {
    /// The main contexts of the stack's stores.
    ///
    /// - Throws: ``StrataError/storeNotAdded`` before a store is added.
    @MainActor
    public func sourceContext() throws(StrataError) -> SourceContext {
        try SourceContext(mains())
    }

    /// The generation of the last commit of the first store (the default
    /// configuration's, when added) merged into the main context.
    @MainActor
    public var mergedGeneration: UInt64 { mainContexts.first?.generation ?? 0 }
}
