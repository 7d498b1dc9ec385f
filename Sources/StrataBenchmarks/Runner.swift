import CSQLite
import Foundation

/// How many times each side runs.
struct RunnerSettings {
    /// Untimed runs before the timed ones (warm caches, page in code).
    var warmUps: Int
    /// Timed runs; the best is reported.
    var runs: Int

    var description: String {
        "best and median of \(runs) rounds after \(warmUps) warm-up, sides taking turns"
    }
}

/// Times scenarios with a monotonic clock, Strata and raw SQLite in turns.
///
/// Every round runs both sides once, the side that goes first alternating
/// from round to round, so that a change in the machine's load — or in the
/// allocator's state, which one side's run leaves to the other's — meets
/// both alike. Each run's peak resident memory is recorded too: how far it
/// rose above what the process held when the run started, and the peak itself.
@MainActor
struct Runner {
    let settings: RunnerSettings
    private let clock = ContinuousClock()

    /// Times both sides of `scenario` and checks they computed the same checksum.
    func run(_ scenario: Scenario) async throws -> ScenarioResult {
        var strata = Timings()
        var raw = Timings()
        for round in 0..<(settings.warmUps + settings.runs) {
            let timed = round >= settings.warmUps
            if round % 2 == 0 {
                try await strata.add(measure(scenario.strata), timed: timed)
                try await raw.add(measure(scenario.raw), timed: timed)
            } else {
                try await raw.add(measure(scenario.raw), timed: timed)
                try await strata.add(measure(scenario.strata), timed: timed)
            }
        }
        guard strata.checksum == raw.checksum else {
            throw BenchmarkError(description:
                "\(scenario.name): Strata checksum \(strata.checksum ?? 0) != raw \(raw.checksum ?? 0)")
        }
        // Round by round, the two sides met the same load: the medians of
        // their ratios, in elapsed time and in the process's CPU time (which
        // other programs on a shared machine change less).
        func medianRatio(_ strata: [Duration], _ raw: [Duration]) -> Double {
            median(zip(strata, raw).map { $0.milliseconds / $1.milliseconds })
        }
        return ScenarioResult(
            name: scenario.name, labels: scenario.labels, strata: strata, raw: raw,
            medianRatios: (medianRatio(strata.times, raw.times), medianRatio(strata.cpuTimes, raw.cpuTimes)),
            heldPerObject: try scenario.held.map { held in
                (try heldBytes(held.strata) / held.count, try heldBytes(held.raw) / held.count)
            })
    }

    /// The heap bytes (glibc's count of bytes handed out and not given
    /// back) that what `make` returns holds while it is kept.
    private func heldBytes(_ make: () throws -> Any) throws -> Int {
        let before = strata_heap_in_use()
        let result = try make()
        let after = strata_heap_in_use()
        withExtendedLifetime(result) {}
        return after - before
    }

    /// One run of `side`: its time, the process's CPU time, its peak memory, and its checksum.
    private func measure(_ side: Side) async throws -> Measurement {
        let run = try side.prepare()
        var result = 0
        ResidentMemory.reset()
        let residentBefore = ResidentMemory.current
        // Child processes a run starts and waits for (the writers benchmark's) count too.
        let cpuStart = processCPUTime() + finishedChildrenCPUTime()
        let elapsed = try clock.measure { result = try run.body() }
        let cpu = processCPUTime() + finishedChildrenCPUTime() - cpuStart
        let peak = ResidentMemory.peak
        try run.finish()
        // Let main-actor work queued by the run (e.g. Strata's merge task)
        // finish, so the next run starts from a quiet state.
        await Task.yield()
        return Measurement(
            elapsed: elapsed, cpu: cpu, peakGrowth: max(0, peak - residentBefore), peak: peak, checksum: result)
    }
}

/// The middle value of `values` (the upper one of an even count).
func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
}

/// One timed run.
private struct Measurement {
    let elapsed: Duration
    let cpu: Duration
    /// How far the resident memory rose above its size at the start of the run, in bytes.
    let peakGrowth: Int
    /// The largest resident size during the run, in bytes.
    let peak: Int
    let checksum: Int
}

/// The timed runs of one side, and the checksum they agreed on.
struct Timings {
    var times: [Duration] = []
    var cpuTimes: [Duration] = []
    var peakGrowths: [Int] = []
    var peaks: [Int] = []
    var checksum: Int?

    var best: Duration { times.min() ?? .zero }
    var medianMilliseconds: Double { median(times.map(\.milliseconds)) }
    /// The largest rise of resident memory over the timed runs, in bytes.
    var peakGrowth: Int { peakGrowths.max() ?? 0 }
    /// The largest resident size over the timed runs, in bytes.
    var peak: Int { peaks.max() ?? 0 }

    fileprivate mutating func add(_ run: Measurement, timed: Bool) throws {
        if let checksum, checksum != run.checksum {
            throw BenchmarkError(description: "checksum changed between runs: \(checksum) -> \(run.checksum)")
        }
        checksum = run.checksum
        guard timed else { return }
        times.append(run.elapsed)
        cpuTimes.append(run.cpu)
        peakGrowths.append(run.peakGrowth)
        peaks.append(run.peak)
    }
}

/// The outcome of one scenario.
struct ScenarioResult {
    let name: String
    /// What the line calls the two sides (``Scenario/labels``).
    let labels: (first: String, second: String)
    let strata: Timings
    let raw: Timings
    /// The medians of the rounds' ratios, in elapsed time and in CPU time.
    let medianRatios: (elapsed: Double, cpu: Double)
    /// The heap bytes each side's result held per object (``Scenario/held``).
    let heldPerObject: (strata: Int, raw: Int)?

    /// How many times slower Strata's best run is than raw SQLite's.
    var ratio: Double { strata.best.milliseconds / raw.best.milliseconds }

    /// `insert 100k (one transaction)   strata 123.4 ms (med 130.0)   raw 56.7 ms (med 60.1)   best 2.18x   median 2.16x (cpu 2.20x)   peak +40.1 MB / +12.0 MB (RSS 75.3 / 47.2 MB)`
    var line: String {
        let name = self.name.padding(toLength: 32, withPad: " ", startingAt: 0)
        func side(_ timings: Timings) -> String {
            "\(format(timings.best.milliseconds, 1)) ms (med \(format(timings.medianMilliseconds, 1)))"
        }
        func megabytes(_ bytes: Int) -> String { "\(format(Double(bytes) / 1_048_576, 1)) MB" }
        return "\(name)\(labels.first) \(side(strata))   \(labels.second) \(side(raw))   "
            + "best \(format(ratio, 2))x   "
            + "median \(format(medianRatios.elapsed, 2))x (cpu \(format(medianRatios.cpu, 2))x)   "
            + "peak +\(megabytes(strata.peakGrowth)) / +\(megabytes(raw.peakGrowth)) "
            + "(RSS \(megabytes(strata.peak)) / \(megabytes(raw.peak)))"
            + (heldPerObject.map { "   held \($0.strata) / \($0.raw) B an object" } ?? "")
            + (Self.showsCPU ? "   cpu med \(cpu(strata)) / \(cpu(raw)) ms" : "")
    }

    /// With `STRATA_BENCH_CPU` set, the line ends with each side's median
    /// CPU time: on a shared machine a ratio of two noisy figures hides
    /// which side moved.
    static let showsCPU = ProcessInfo.processInfo.environment["STRATA_BENCH_CPU"] != nil

    private func cpu(_ timings: Timings) -> String {
        format(median(timings.cpuTimes.map(\.milliseconds)), 1)
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
