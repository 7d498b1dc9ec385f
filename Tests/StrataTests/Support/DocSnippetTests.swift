import Foundation
import Testing

/// Every ```swift block of the README and of `Docs/` type-checks against the
/// `Strata` module this test run was built with, so the documentation
/// cannot drift from the API (see `DocSnippets` for how a page gives its
/// snippets their context).
@Suite("Documentation snippets")
struct DocSnippetTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// README.md and every page of `Docs/`.
    static let documents: [String] = {
        let pages = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Docs").path))
            ?? []
        return ["README.md"] + pages.filter { $0.hasSuffix(".md") }.sorted().map { "Docs/\($0)" }
    }()

    @Test(arguments: documents)
    func everySwiftBlockTypeChecks(_ document: String) throws {
        let markdown = try String(contentsOf: Self.root.appendingPathComponent(document), encoding: .utf8)
        let snippets = DocSnippets(markdown: markdown)
        for source in snippets.sources where !snippets.blocks.isEmpty {
            for failure in try Self.typeCheck(source) {
                Issue.record("\(document):\(failure)")
            }
        }
    }

    @Test
    func theDocumentsAreFoundAndHaveSnippets() throws {
        #expect(Self.documents.contains("README.md"))
        #expect(Self.documents.contains("Docs/Querying.md"))
        let querying = try String(
            contentsOf: Self.root.appendingPathComponent("Docs/Querying.md"), encoding: .utf8)
        #expect(DocSnippets(markdown: querying).blocks.count >= 5)
    }

    @Test
    func declarationsGoToFileScopeAndStatementsToAFunction() {
        let lines = [
            "import Foundation",
            "@MainActor",
            "final class Person: ManagedObject {",
            "    @Field.Stored(\"name\") var name = \"}\"",
            "}",
            "let people = try stack.fetchAll(From<Person>())",
            "func greet(",
            "    _ person: Person",
            ") -> String {",
            "    \"hi\"",
            "}",
            "print(people.map(greet))",
        ]
        let (declarations, statements) = DocSnippets.split(lines)
        #expect(declarations == [0, 1, 2, 3, 4, 6, 7, 8, 9, 10])
        #expect(statements == [5, 11])
    }

    @Test
    func aPageWithoutSnippetsOrWithAnOwnFileBlockAssemblesItsSources() {
        let page = """
            # Title
            <!-- swift-prelude
            final class Item: ManagedObject {}
            -->
            ```swift
            let a = 1
            ```
            <!-- swift-snippet: own-file -->
            ```swift
            let b = 2
            ```
            """
        let snippets = DocSnippets(markdown: page)
        #expect(snippets.blocks.count == 2)
        #expect(snippets.prelude?.lines == ["final class Item: ManagedObject {}"])
        let sources = snippets.sources
        #expect(sources.count == 2)
        #expect(sources[0].text.contains("let a = 1") && !sources[0].text.contains("let b = 2"))
        #expect(sources[1].text.contains("let b = 2") && sources[1].text.contains("final class Item"))
        // The document line of each snippet line survives assembly.
        let line = sources[0].text.components(separatedBy: "\n").firstIndex(of: "let a = 1")!
        #expect(sources[0].documentLines[line] == 6)
    }

    /// The compiler's errors for `source`, as `line: message` in document lines.
    static func typeCheck(_ source: DocSnippets.Source) throws -> [String] {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("strata-snippets-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent(source.isPackageManifest ? "Package.swift" : "Snippets.swift")
        try source.text.write(to: file, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let modules = source.isPackageManifest
            ? ["-I", try manifestAPIFolder().path, "-package-description-version", "6.0"]
            : ["-I", try modulesFolder().path, "-I", root.appendingPathComponent("Sources/CSQLite").path]
        let mode = source.isPackageManifest ? [] : ["-parse-as-library"]
        process.arguments = ["swiftc", "-typecheck", "-swift-version", "6"] + mode + modules + [file.path]
        // The driver leaves a `TemporaryDirectory.*` folder in $TMPDIR each run; keep it in ours.
        process.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": folder.path]) { $1 }
        let output = Pipe()
        process.standardError = output
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus != 0 else { return [] }
        let errors = text.components(separatedBy: "\n").compactMap { line -> String? in
            guard line.hasPrefix(file.path + ":"), line.contains(": error: ") else { return nil }
            let parts = line.dropFirst(file.path.count + 1).split(separator: ":", maxSplits: 1)
            let generated = Int(parts[0]) ?? 0
            let documentLine = generated > 0 && generated <= source.documentLines.count
                ? source.documentLines[generated - 1].map(String.init) ?? "(generated line \(generated))"
                : "?"
            return "\(documentLine): \(parts.count > 1 ? String(parts[1]) : line)"
        }
        return errors.isEmpty ? ["swiftc failed: \(text)"] : errors
    }

    /// The folder of the built modules: beside the test bundle, whichever
    /// build path (plain, checked, sanitized) this run uses.
    static func modulesFolder() throws -> URL {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = folder.appendingPathComponent("Modules")
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("Strata.swiftmodule").path) {
                return candidate
            }
            folder.deleteLastPathComponent()
        }
        throw SnippetCheckError(reason: "no Modules/Strata.swiftmodule near \(CommandLine.arguments[0])")
    }
}

extension DocSnippetTests {
    /// The toolchain's `PackageDescription` module: `lib/swift/pm/ManifestAPI`
    /// beside the `swiftc` found on the `PATH`.
    static func manifestAPIFolder() throws -> URL {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for folder in path.split(separator: ":") {
            let swiftc = URL(fileURLWithPath: String(folder)).appendingPathComponent("swiftc")
            guard FileManager.default.fileExists(atPath: swiftc.path) else { continue }
            let api = swiftc.resolvingSymlinksInPath().deletingLastPathComponent()
                .appendingPathComponent("../lib/swift/pm/ManifestAPI").standardizedFileURL
            if FileManager.default.fileExists(atPath: api.path) { return api }
        }
        throw SnippetCheckError(reason: "no lib/swift/pm/ManifestAPI beside a swiftc on the PATH")
    }
}

private struct SnippetCheckError: Error, CustomStringConvertible {
    let reason: String
    var description: String { reason }
}
