/// Stops the program for a programmer error, with a message that says what
/// to do instead — in every build. `preconditionFailure` prints nothing in
/// an optimized build (a bare "illegal instruction"); `fatalError` prints its
/// message in debug and release alike.
///
/// Bad input never comes here: it gets a typed ``StrataError``. This is for
/// misuse the type system cannot rule out (writing to a main-context object,
/// using an object of another context, reading a field that is not declared).
@inline(never)
func misuse(_ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) -> Never {
    fatalError(message(), file: file, line: line)
}

/// Checks a condition a caller must meet, with ``misuse(_:file:line:)``'s
/// message when it does not hold, in every build.
@inline(__always)
func checkUsage(
    _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
    file: StaticString = #fileID, line: UInt = #line
) {
    if !condition() { misuse(message(), file: file, line: line) }
}
