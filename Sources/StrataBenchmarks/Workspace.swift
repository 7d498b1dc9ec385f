import Foundation

/// A temporary folder for the benchmark's database files, removed at the
/// end, and anything else a scenario made that `remove()` must undo (the
/// PostgreSQL scenarios' schemas).
@MainActor
final class Workspace {
    let directory: URL
    private var counter = 0
    private var cleanUps: [() -> Void] = []

    init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("strata-bench-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// A path for a new database file that does not exist yet.
    func newFile(_ prefix: String) -> URL {
        counter += 1
        return directory.appendingPathComponent("\(prefix)-\(counter).sqlite")
    }

    /// Runs `cleanUp` when the workspace is removed, before the folder goes.
    func onRemove(_ cleanUp: @escaping () -> Void) {
        cleanUps.append(cleanUp)
    }

    /// Undoes what was registered with ``onRemove(_:)``, then removes the folder and everything in it.
    func remove() {
        for cleanUp in cleanUps.reversed() { cleanUp() }
        cleanUps.removeAll()
        try? FileManager.default.removeItem(at: directory)
    }
}
