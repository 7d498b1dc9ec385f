import Foundation
import Testing
import ThrowawayPostgreSQL

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The throwaway server the tests start (`ThrowawayPostgreSQL`).
@Suite(.enabled(if: PostgreSQLServer.isEnabled, "STRATA_POSTGRESQL=off"))
struct PostgreSQLServerTests {
    /// A server outlives the test that starts it, so it must hold none of the
    /// descriptors its process had open: a pipe another test reads to its end
    /// (a compiler's output, an exit test's back channel) would never end while
    /// the server runs, and that test would hang.
    @Test
    func aStartedServerHoldsNoDescriptorOfTheProcessThatStartedIt() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]) }
        let server: PostgreSQLServer
        do {
            server = try PostgreSQLServer.start()
        } catch {
            close(ends[1])
            throw error
        }
        defer { server.stop() }
        // The server runs, so a restart (a new postmaster) is tried too.
        try server.restart()
        close(ends[1])
        _ = fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK)
        var byte: UInt8 = 0
        let count = read(ends[0], &byte, 1)
        // 0: every write end is closed. -1 with EAGAIN: someone still holds one.
        #expect(count == 0, "read gave \(count), errno \(errno): a process the server started holds the pipe")
    }
}
