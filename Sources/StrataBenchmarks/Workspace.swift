import Foundation

/// A temporary folder for the benchmark's database files, removed at the end.
@MainActor
final class Workspace {
    let directory: URL
    private var counter = 0

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

    /// Removes the folder and everything in it.
    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}
