import Foundation
import Synchronization

/// Where Strata reports what it recovered from without failing (a stored
/// value that did not decode and fell back to the field's default, for example).
///
/// ```swift
/// StrataLog.handler = { message in myLogger.warning(message) }
/// ```
public enum StrataLog {
    private static let storage = Mutex<@Sendable (String) -> Void>({ message in
        FileHandle.standardError.write(Data("[Strata] \(message)\n".utf8))
    })

    /// Receives each message. The default writes to standard error.
    public static var handler: @Sendable (String) -> Void {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }

    static func warning(_ message: @autoclosure () -> String) {
        handler(message())
    }
}
