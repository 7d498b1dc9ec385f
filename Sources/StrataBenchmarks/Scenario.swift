/// A workload timed twice: once through Strata, once through raw SQLite.
///
/// Add a scenario by writing a `static func` on `Scenario` that builds any
/// shared fixture (untimed) and returns the two sides, then list it in
/// ``BenchmarkMain``.
@MainActor
struct Scenario {
    /// The label printed at the start of the result line.
    let name: String
    /// The Strata side.
    let strata: Side
    /// The raw SQLite side: the same work through the C API.
    let raw: Side
    /// What the result line calls the two sides: Strata and raw SQLite,
    /// unless the scenario compares two other things.
    var labels = (first: "strata", second: "raw")
    /// For a scenario whose sides make objects (rows) that the caller
    /// keeps, the same work once more on each side after the timed rounds,
    /// untimed, returning what it made: the line then says how many heap
    /// bytes each side's result held, per one of its `count` objects.
    var held: HeldResults? = nil
}

/// What ``Scenario/held`` runs: each side's work, its result returned to be held.
struct HeldResults {
    let count: Int
    let strata: () throws -> Any
    let raw: () throws -> Any
}

/// One side of a scenario. `prepare` runs untimed before every run and
/// returns the run; only `Run.body` is timed.
@MainActor
struct Side {
    let prepare: () throws -> Run
}

/// One timed run and its untimed aftermath.
@MainActor
struct Run {
    /// The timed work. It returns a checksum of what it did, so the work
    /// cannot be optimised away and the two sides can be compared.
    let body: () throws -> Int
    /// Untimed: checks the outcome and frees what `prepare` made.
    var finish: () throws -> Void = {}
}

/// A benchmark's setup went wrong, or the two sides disagree.
struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
}
