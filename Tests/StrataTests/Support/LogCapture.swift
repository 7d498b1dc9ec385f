import Foundation
@testable import Strata

/// Captures `StrataLog` messages for one test while other tests run beside
/// it: the logger is installed once and hands every message to each open
/// capture (and warnings and errors to standard error, as the default does),
/// so no test swaps the global logger under another. Behind `Locked`: the
/// thread sanitizer does not see a `Mutex` on Linux.
final class LogCapture: Sendable {
    private static let open = Locked<[ObjectIdentifier: LogCapture]>([:])
    private static let installed: Void = {
        StrataLog.logger = { message in
            for capture in open.withLock({ Array($0.values) }) { capture.messages.withLock { $0.append(message) } }
            if message.level >= .warning {
                FileHandle.standardError.write(Data("\(message)\n".utf8))
            }
        }
    }()

    private let messages = Locked<[StrataLog.Message]>([])

    init() {
        _ = Self.installed
        Self.open.withLock { $0[ObjectIdentifier(self)] = self }
    }

    /// Stops capturing.
    func stop() {
        Self.open.withLock { $0[ObjectIdentifier(self)] = nil }
    }

    /// What was captured so far.
    var all: [StrataLog.Message] { messages.withLock { $0 } }
}
