/// CoreStore's `monitorList(createAsynchronously:...)`: a monitor handed to
/// a closure later instead of returned.
///
/// In CoreStore the first fetch of such a monitor runs on a background
/// queue. A Strata monitor belongs to the main context, which is bound to the
/// main actor, so its first fetch runs there too: these methods return at
/// once, and a later job on the main actor makes the monitor, exactly as
/// ``monitorList(_:)`` does, and hands it to `createAsynchronously`. The
/// closure never runs before the call returns, and the monitor it receives
/// has its objects.
///
/// A first fetch that fails (no store added, say) is logged at
/// ``StrataLog/Level/error`` in ``StrataLog/Category/observation``, and the
/// closure is not called. (CoreStore traps then, with `try!`.)
///
/// ```swift
/// stack.monitorList(
///     createAsynchronously: { monitor in
///         self.monitor = monitor
///         monitor.addObserver(self)
///     },
///     From<Person>(), Where<Person>(\.$age >= 18), OrderBy<Person>(.ascending(\.$name)))
/// ```
extension DataStack {
    /// Makes a monitor of `query` in a later main-actor job and hands it to
    /// `createAsynchronously` (see above).
    ///
    /// ```swift
    /// stack.monitorList(
    ///     createAsynchronously: { self.monitor = $0 },
    ///     From<Person>().where(\.$age >= 18).orderBy(.ascending(\.$name)))
    /// ```
    @MainActor
    public func monitorList<Object: ManagedObject>(
        createAsynchronously: @escaping @MainActor (ListMonitor<Object>) -> Void,
        _ query: some ListQuery<Object>
    ) {
        deliverMonitor(of: query, by: "monitorList(createAsynchronously:_:)", to: createAsynchronously)
    }

    /// Makes a monitor of the objects the fetch and its clauses match in a
    /// later main-actor job and hands it to `createAsynchronously` (see above).
    @MainActor
    public func monitorList<Object: ManagedObject>(
        createAsynchronously: @escaping @MainActor (ListMonitor<Object>) -> Void,
        _ from: From<Object>, _ fetchClauses: any FetchClause...
    ) {
        monitorList(createAsynchronously: createAsynchronously, from, fetchClauses)
    }

    /// Makes a monitor of the objects the fetch and its clauses match in a
    /// later main-actor job and hands it to `createAsynchronously` (see above).
    @MainActor
    public func monitorList<Object: ManagedObject>(
        createAsynchronously: @escaping @MainActor (ListMonitor<Object>) -> Void,
        _ from: From<Object>, _ fetchClauses: [any FetchClause]
    ) {
        deliverMonitor(
            of: from.applying(fetchClauses), by: "monitorList(createAsynchronously:_:_:)",
            to: createAsynchronously)
    }

    /// Makes a monitor of the sectioned `query` in a later main-actor job and
    /// hands it to `createAsynchronously` (see above).
    ///
    /// ```swift
    /// stack.monitorSectionedList(
    ///     createAsynchronously: { self.monitor = $0 },
    ///     From<Person>().sectionBy(\.$city).orderBy(.ascending(\.$name)))
    /// ```
    @MainActor
    public func monitorSectionedList<Object: ManagedObject>(
        createAsynchronously: @escaping @MainActor (ListMonitor<Object>) -> Void,
        _ query: SectionedQuery<Object>
    ) {
        deliverMonitor(
            of: query, by: "monitorSectionedList(createAsynchronously:_:)", to: createAsynchronously)
    }

    /// Makes a monitor of the objects the fetch and its clauses match, in
    /// the sections `sectionBy` makes, in a later main-actor job and hands it
    /// to `createAsynchronously` (see above).
    @MainActor
    public func monitorSectionedList<Object: ManagedObject>(
        createAsynchronously: @escaping @MainActor (ListMonitor<Object>) -> Void,
        _ from: From<Object>, _ sectionBy: SectionBy<Object>, _ fetchClauses: any FetchClause...
    ) {
        monitorSectionedList(createAsynchronously: createAsynchronously, from, sectionBy, fetchClauses)
    }

    /// Makes a monitor of the objects the fetch and its clauses match, in
    /// the sections `sectionBy` makes, in a later main-actor job and hands it
    /// to `createAsynchronously` (see above).
    @MainActor
    public func monitorSectionedList<Object: ManagedObject>(
        createAsynchronously: @escaping @MainActor (ListMonitor<Object>) -> Void,
        _ from: From<Object>, _ sectionBy: SectionBy<Object>, _ fetchClauses: [any FetchClause]
    ) {
        deliverMonitor(
            of: from.applying(fetchClauses).sectionBy(sectionBy),
            by: "monitorSectionedList(createAsynchronously:_:_:_:)", to: createAsynchronously)
    }

    /// Makes the monitor of `query` in a main-actor job after this one and
    /// hands it to `body`; logs a failure instead.
    @MainActor
    private func deliverMonitor<Object: ManagedObject>(
        of query: some ListQuery<Object>, by function: String,
        to body: @escaping @MainActor (ListMonitor<Object>) -> Void
    ) {
        Task { @MainActor in
            let monitor: ListMonitor<Object>
            do {
                monitor = try self.monitorList(query)
            } catch {
                StrataLog.log(.error, .observation, "\(function) failed: \(error)")
                return
            }
            body(monitor)
        }
    }
}
