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
        let strata = try await time(scenario.strata)
        let raw = try await time(scenario.raw)
        guard strata.checksum == raw.checksum else {
            throw BenchmarkError(description:
                "\(scenario.name): Strata checksum \(strata.checksum) != raw \(raw.checksum)")
        }
        return ScenarioResult(name: scenario.name, strata: strata.best, raw: raw.best)
    }

    /// The best time of `settings.runs` runs of `side`, and the checksum they agreed on.
    private func time(_ side: Side) async throws -> (best: Duration, checksum: Int) {
        var best = Duration.seconds(Int64.max)
        var checksum: Int?
        for index in 0..<(settings.warmUps + settings.runs) {
            let run = try side.prepare()
            var result = 0
            let elapsed = try clock.measure { result = try run.body() }
            try run.finish()
            // Let main-actor work queued by the run (e.g. Strata's merge task)
            // finish, so the next run starts from a quiet state.
            await Task.yield()
            if let checksum, checksum != result {
                throw BenchmarkError(description: "checksum changed between runs: \(checksum) -> \(result)")
            }
            checksum = result
            if index >= settings.warmUps { best = min(best, elapsed) }
        }
        return (best, checksum ?? 0)
    }
}

/// The outcome of one scenario.
struct ScenarioResult {
    let name: String
    let strata: Duration
    let raw: Duration

    /// How many times slower Strata is than raw SQLite.
    var ratio: Double { strata.milliseconds / raw.milliseconds }

    /// `insert 100k (one transaction)   strata 123.4 ms   raw sqlite 56.7 ms   2.18x`
    var line: String {
        let name = self.name.padding(toLength: 32, withPad: " ", startingAt: 0)
        return "\(name)strata \(format(strata.milliseconds, 1)) ms   "
            + "raw sqlite \(format(raw.milliseconds, 1)) ms   \(format(ratio, 2))x"
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
