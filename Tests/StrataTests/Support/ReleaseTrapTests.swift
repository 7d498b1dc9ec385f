import Foundation
import Testing

/// The release build of `StrataTrapProbe` beside this test bundle's debug
/// build, which `.ci/run` makes before the tests (`swift build -c release
/// --product StrataTrapProbe`).
private let releaseProbe: URL? = {
    let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.path
    guard let range = bundle.range(of: "/debug/", options: .backwards) else { return nil }
    let probe = bundle.replacingCharacters(in: range, with: "/release/")
        .components(separatedBy: "/release/").first.map { $0 + "/release/StrataTrapProbe" }
    return probe.flatMap { FileManager.default.isExecutableFile(atPath: $0) ? URL(fileURLWithPath: $0) : nil }
}()

@Suite("Misuse traps print their message in release builds")
struct ReleaseTrapTests {
    @Test(
        .enabled(if: releaseProbe != nil, "build it: swift build -c release --product StrataTrapProbe"),
        arguments: [
            ("write-main-context-object", "read-only"),
            ("write-detached-object", "create(Into<ProbeItem>())"),
        ])
    func anOptimizedBuildSaysWhatToDoInstead(misuse: String, expected: String) throws {
        let probe = try #require(releaseProbe)
        let process = Process()
        process.executableURL = probe
        process.arguments = [misuse]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let output = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal, "it traps: \(output)")
        #expect(output.contains(expected), "the message survives -O: \(output)")
    }
}
