extension Connection {
    /// The store's `_strata_meta` table as text by key (`version`,
    /// `fingerprint`, `generation`, …): what opening a store and checking a
    /// store that moved on both read.
    func storeMeta() throws -> [String: String] {
        let rows = try query("SELECT key, value FROM _strata_meta") { statement in
            (statement.value(at: 0), statement.value(at: 1))
        }
        var meta: [String: String] = [:]
        for case let (.text(key), value) in rows {
            switch value {
            case .text(let text): meta[key] = text
            case .integer(let number): meta[key] = String(number)
            default: break
            }
        }
        return meta
    }
}
