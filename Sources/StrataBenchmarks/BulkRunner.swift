import Foundation

/// A bulk-write benchmark: one or more Strata variants beside several raw
/// SQLite ways of doing the same work, each raw way labelled for the ratio
/// columns.
@MainActor
struct BulkScenario {
    /// The first line of the printed block.
    let title: String
    let strata: [BulkSide]
    let raw: [BulkSide]
}

/// One variant of a bulk scenario. `prepare` (untimed) builds the round's
/// fresh data; the `Run`'s body is timed; its `finish` (untimed) checks the
/// outcome.
@MainActor
struct BulkSide {
    /// What the line says, e.g. `raw DELETE … RETURNING _pk`.
    let label: String
    /// The raw side's name in the ratio columns, e.g. `RETURNING`.
    var column = ""
    /// Anything else the variant measured, printed at the end of its line.
    var note: () -> String = { "" }
    let prepare: () throws -> Run
}

/// Runs a bulk scenario's variants round by round, in one process: each
/// round runs every variant once, in an order rotated by one each round, so
/// that a change in the machine's load reaches all variants alike.
@MainActor
struct BulkRunner {
    let settings: RunnerSettings
    private let clock = ContinuousClock()

    /// Times every variant and prints one block: each variant's best time
    /// (and median), and each Strata variant's ratio to each raw one (of the
    /// best times). Every variant must return the same checksum every round.
    ///
    /// `BULK_SIDES=label|label` in the environment runs only the variants
    /// with those labels, as printed (say, one side under a profiler); it
    /// then says on stderr when the rounds start and waits `BULK_PAUSE`
    /// seconds, for a profiler to attach (`perf record -p`).
    func run(_ scenario: BulkScenario) async throws {
        var scenario = scenario
        if let only = ProcessInfo.processInfo.environment["BULK_SIDES"]?.split(separator: "|") {
            func wanted(_ side: BulkSide) -> Bool { only.contains { side.label == $0 } }
            scenario = BulkScenario(
                title: scenario.title, strata: scenario.strata.filter(wanted), raw: scenario.raw.filter(wanted))
        }
        let sides = scenario.strata + scenario.raw
        if ProcessInfo.processInfo.environment["BULK_SIDES"] != nil {
            // For a profiler to attach once the templates are built.
            FileHandle.standardError.write(Data("bulk: rounds start\n".utf8))
            if let pause = Double(ProcessInfo.processInfo.environment["BULK_PAUSE"] ?? "") {
                try await Task.sleep(for: .seconds(pause))
            }
        }
        var times = Array(repeating: [Duration](), count: sides.count)
        var cpuTimes = Array(repeating: [Duration](), count: sides.count)
        var checksum: Int?
        for round in 0..<(settings.warmUps + settings.runs) {
            for step in sides.indices {
                let index = (step + round) % sides.count
                let run = try sides[index].prepare()
                var result = 0
                let cpuStart = processCPUTime()
                let elapsed = try clock.measure { result = try run.body() }
                let cpu = processCPUTime() - cpuStart
                try run.finish()
                await Task.yield()  // Let main-actor work queued by the run finish.
                if let checksum, checksum != result {
                    throw BenchmarkError(description:
                        "\(sides[index].label): checksum \(result), others \(checksum)")
                }
                checksum = result
                if round >= settings.warmUps {
                    times[index].append(elapsed)
                    cpuTimes[index].append(cpu)
                }
            }
        }
        print("\(scenario.title): best of \(settings.runs) interleaved rounds (median; median CPU time "
              + "of the process), after \(settings.warmUps) warm-up")
        let best = times.map { $0.min()!.milliseconds }
        for (index, side) in sides.enumerated() {
            let middle = median(times[index].map(\.milliseconds))
            let cpu = median(cpuTimes[index].map(\.milliseconds))
            var line = "  " + side.label.padding(toLength: 48, withPad: " ", startingAt: 0)
                + "\(format(best[index], 1)) ms (\(format(middle, 1)); cpu \(format(cpu, 1)))"
            if index < scenario.strata.count {
                for (rawIndex, raw) in scenario.raw.enumerated() {
                    line += "   \(format(best[index] / best[scenario.strata.count + rawIndex], 2))x \(raw.column)"
                }
            }
            let note = side.note()
            print(note.isEmpty ? line : line + "   " + note)
        }
    }
}
