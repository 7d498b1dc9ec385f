import Foundation

/// Runs every job on a thread of its own, for tasks that block their thread.
///
/// Swift Testing's exit tests wait for their child process with blocking
/// reads of its pipes inside tasks. On the cooperative pool, one thread a
/// core (two here), a few exit tests at once leave no thread for anything
/// else: the test's own sleeps and its stacks' polling stall until the
/// children exit, and a parent meant to commit and follow while its children
/// run does neither. Started with this executor as their preference
/// (`group.addTask(executorPreference: ThreadPerJobExecutor.shared)`), the
/// exit tests' tasks block threads of their own.
final class ThreadPerJobExecutor: TaskExecutor {
    static let shared = ThreadPerJobExecutor()

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        Thread { job.runSynchronously(on: self.asUnownedTaskExecutor()) }.start()
    }
}
