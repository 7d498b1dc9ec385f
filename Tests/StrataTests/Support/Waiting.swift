/// Returns once `condition` holds, checking it every `interval` and letting
/// other main-actor jobs run between checks (merges, completions, the
/// followers' polls). No deadline: a loaded machine is slow, not wrong, and
/// a condition that never comes true is a hang, which `.ci/run`'s watch
/// reports with the test's name and every thread's stack.
///
/// ```swift
/// try await waitUntil { monitor.numberOfObjects() == 1 }
/// ```
@MainActor
func waitUntil(polling interval: Duration = .milliseconds(2), _ condition: () -> Bool) async throws {
    while !condition() { try await Task.sleep(for: interval) }
}
