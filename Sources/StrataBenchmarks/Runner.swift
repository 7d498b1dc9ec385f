import Foundation

/// How many times each side runs.
struct RunnerSettings {
    /// Untimed runs before the timed ones (warm caches, page in code).
    var warmUps: Int
    /// Timed runs; the best is reported.
    var runs: Int

    var description: String { "best of \(runs) runs after \(warmUps) warm-up" }
}

/// Times scenarios with a monotonic clock.
@MainActor
struct Runner {
    let settings: RunnerSettings
    private let clock = ContinuousClock()

    /// Times both sides of `scenario` and checks they computed the same checksum.
    func run(_ scenario: Scenario) async throws -> ScenarioResult {
        var strata = Timings()
        var raw = Timings()
        let rounds = settings.warmUps + settings.runs
        if scenario.interleaved {
            for index in 0..<rounds {
                try await strata.add(measure(scenario.strata), timed: index >= settings.warmUps)
                try await raw.add(measure(scenario.raw), timed: index >= settings.warmUps)
            }
        } else {
            for index in 0..<rounds {
                try await strata.add(measure(scenario.strata), timed: index >= settings.warmUps)
            }
            for index in 0..<rounds {
                try await raw.add(measure(scenario.raw), timed: index >= settings.warmUps)
            }
        }
        guard strata.checksum == raw.checksum else {
            throw BenchmarkError(description:
                "\(scenario.name): Strata checksum \(strata.checksum ?? 0) != raw \(raw.checksum ?? 0)")
        }
        // Round by round, the two sides met the same load: the median of their ratios.
        let ratios = zip(strata.times, raw.times).map { $0.milliseconds / $1.milliseconds }.sorted()
        return ScenarioResult(
            name: scenario.name, strata: strata.best, raw: raw.best,
            medianRatio: scenario.interleaved ? ratios[ratios.count / 2] : nil)
    }

    /// One run of `side`: its time and checksum.
    private func measure(_ side: Side) async throws -> (elapsed: Duration, checksum: Int) {
        let run = try side.prepare()
        var result = 0
        let elapsed = try clock.measure { result = try run.body() }
        try run.finish()
        // Let main-actor work queued by the run (e.g. Strata's merge task)
        // finish, so the next run starts from a quiet state.
        await Task.yield()
        return (elapsed, result)
    }
}

/// The timed runs of one side, and the checksum they agreed on.
private struct Timings {
    var times: [Duration] = []
    var checksum: Int?

    var best: Duration { times.min() ?? .zero }

    mutating func add(_ run: (elapsed: Duration, checksum: Int), timed: Bool) throws {
        if let checksum, checksum != run.checksum {
            throw BenchmarkError(description: "checksum changed between runs: \(checksum) -> \(run.checksum)")
        }
        checksum = run.checksum
        if timed { times.append(run.elapsed) }
    }
}

/// The outcome of one scenario.
struct ScenarioResult {
    let name: String
    let strata: Duration
    let raw: Duration
    /// For sides run in turns: the median of the runs' ratios.
    var medianRatio: Double? = nil

    /// How many times slower Strata is than raw SQLite.
    var ratio: Double { strata.milliseconds / raw.milliseconds }

    /// `insert 100k (one transaction)   strata 123.4 ms   raw sqlite 56.7 ms   2.18x`
    var line: String {
        let name = self.name.padding(toLength: 32, withPad: " ", startingAt: 0)
        return "\(name)strata \(format(strata.milliseconds, 1)) ms   "
            + "raw sqlite \(format(raw.milliseconds, 1)) ms   \(format(ratio, 2))x"
            + (medianRatio.map { "   (median of runs \(format($0, 2))x)" } ?? "")
    }
}

extension Duration {
    /// The duration in milliseconds.
    var milliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1_000 + Double(attoseconds) / 1e15
    }
}

/// `value` with exactly `decimals` digits after the point.
func format(_ value: Double, _ decimals: Int) -> String {
    String(format: "%.\(decimals)f", value)
}
