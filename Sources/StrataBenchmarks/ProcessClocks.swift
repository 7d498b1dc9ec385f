import Foundation

/// Nanoseconds on `CLOCK_MONOTONIC`. The clock is system-wide (on Linux and
/// on macOS), so a reading taken in one process can be subtracted from a
/// reading taken in another: the follow benchmark's writer stores its send
/// time in the row, the follower subtracts it from its own.
func sharedClockNanoseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
}

/// The CPU time this process has used so far, all threads, user plus system
/// (`getrusage(RUSAGE_SELF)`).
func processCPUTime() -> Duration {
    #if os(Linux)
    cpuTime(Int32(truncatingIfNeeded: RUSAGE_SELF.rawValue))
    #else
    cpuTime(RUSAGE_SELF)
    #endif
}

/// The CPU time this process's child processes used that have ended and
/// been waited for (`getrusage(RUSAGE_CHILDREN)`): the writer processes of
/// the PostgreSQL writers benchmark. Not the server's, which is no child.
func finishedChildrenCPUTime() -> Duration {
    #if os(Linux)
    cpuTime(Int32(truncatingIfNeeded: RUSAGE_CHILDREN.rawValue))
    #else
    cpuTime(RUSAGE_CHILDREN)
    #endif
}

private func cpuTime(_ who: Int32) -> Duration {
    var usage = rusage()
    getrusage(who, &usage)
    func microseconds(_ time: timeval) -> Int64 { Int64(time.tv_sec) * 1_000_000 + Int64(time.tv_usec) }
    return .microseconds(microseconds(usage.ru_utime) + microseconds(usage.ru_stime))
}

/// The CPU time the calling thread has used so far (`CLOCK_THREAD_CPUTIME_ID`).
func threadCPUTime() -> Duration {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    return .seconds(Int64(now.tv_sec)) + .nanoseconds(Int64(now.tv_nsec))
}

/// Latencies in nanoseconds, summarised by nearest-rank percentiles.
struct LatencySummary {
    private let sorted: [Int64]

    init(_ nanoseconds: [Int64]) {
        sorted = nanoseconds.sorted()
    }

    var count: Int { sorted.count }

    /// The `fraction` percentile (0.5 for the median) in milliseconds:
    /// the smallest latency at least that fraction of the samples do not exceed.
    func percentile(_ fraction: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        return Double(sorted[Swift.min(Swift.max(rank, 1), sorted.count) - 1]) / 1e6
    }

    /// The largest latency in milliseconds.
    var max: Double { percentile(1) }

    /// `p50 11.2   p90 19.0   p99 22.1   max 24.0 ms`
    var line: String {
        "p50 \(format(percentile(0.5), 1))   p90 \(format(percentile(0.9), 1))   "
            + "p99 \(format(percentile(0.99), 1))   max \(format(max, 1)) ms"
    }
}

/// The process's resident memory, and its high-water mark since the last
/// ``reset()``, from `/proc/self` (Linux; 0 elsewhere).
enum ResidentMemory {
    /// Restarts the high-water mark at the current resident size (writing
    /// `5` to `/proc/self/clear_refs`, Linux 4.0 and later).
    static func reset() {
        #if os(Linux)
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
        #endif
    }

    /// The resident size now, in bytes (`VmRSS`).
    static var current: Int { statusField("VmRSS:") }

    /// The largest resident size since ``reset()``, in bytes (`VmHWM`).
    static var peak: Int { statusField("VmHWM:") }

    private static func statusField(_ name: String) -> Int {
        #if os(Linux)
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name) }),
              let kilobytes = line.split(separator: " ").compactMap({ Int($0) }).first
        else { return 0 }
        return kilobytes * 1_024
        #else
        return 0
        #endif
    }
}
