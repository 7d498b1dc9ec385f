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
        guard scenario.interleaved else {
            return ScenarioResult(name: scenario.name, strata: strata.best, raw: raw.best)
        }
        // Round by round, the two sides met the same load: the medians of
        // their ratios, in elapsed time and in the process's CPU time (which
        // other programs on a shared machine change less).
        func medianRatio(_ strata: [Duration], _ raw: [Duration]) -> Double {
            let ratios = zip(strata, raw).map { $0.milliseconds / $1.milliseconds }.sorted()
            return ratios[ratios.count / 2]
        }
        return ScenarioResult(
            name: scenario.name, strata: strata.best, raw: raw.best,
            medianRatios: (medianRatio(strata.times, raw.times), medianRatio(strata.cpuTimes, raw.cpuTimes)))
    }

    /// One run of `side`: its time, the process's CPU time, and its checksum.
    private func measure(_ side: Side) async throws -> Measurement {
        let run = try side.prepare()
        var result = 0
        let cpuStart = processCPUTime()
        let elapsed = try clock.measure { result = try run.body() }
        let cpu = processCPUTime() - cpuStart
        try run.finish()
        // Let main-actor work queued by the run (e.g. Strata's merge task)
        // finish, so the next run starts from a quiet state.
        await Task.yield()
        return Measurement(elapsed: elapsed, cpu: cpu, checksum: result)
    }
}

/// One timed run.
private struct Measurement {
    let elapsed: Duration
    let cpu: Duration
    let checksum: Int
}

/// The timed runs of one side, and the checksum they agreed on.
private struct Timings {
    var times: [Duration] = []
    var cpuTimes: [Duration] = []
    var checksum: Int?

    var best: Duration { times.min() ?? .zero }

    mutating func add(_ run: Measurement, timed: Bool) throws {
        if let checksum, checksum != run.checksum {
            throw BenchmarkError(description: "checksum changed between runs: \(checksum) -> \(run.checksum)")
        }
        checksum = run.checksum
        guard timed else { return }
        times.append(run.elapsed)
        cpuTimes.append(run.cpu)
    }
}

/// The outcome of one scenario.
struct ScenarioResult {
    let name: String
    let strata: Duration
    let raw: Duration
    /// For sides run in turns: the medians of the runs' ratios, in elapsed
    /// time and in CPU time.
    var medianRatios: (elapsed: Double, cpu: Double)? = nil

    /// How many times slower Strata is than raw SQLite.
    var ratio: Double { strata.milliseconds / raw.milliseconds }

    /// `insert 100k (one transaction)   strata 123.4 ms   raw sqlite 56.7 ms   2.18x`
    var line: String {
        let name = self.name.padding(toLength: 32, withPad: " ", startingAt: 0)
        return "\(name)strata \(format(strata.milliseconds, 1)) ms   "
            + "raw sqlite \(format(raw.milliseconds, 1)) ms   \(format(ratio, 2))x"
            + (medianRatios.map {
                "   (median of runs \(format($0.elapsed, 2))x, of their CPU time \(format($0.cpu, 2))x)"
            } ?? "")
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
