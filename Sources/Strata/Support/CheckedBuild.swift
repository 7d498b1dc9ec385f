// The checked build (`-Xswiftc -DSTRATA_CHECKED`, see Docs/Architecture.md):
// the object model's hot paths skip checks that cost more than the work
// itself, and this build puts them back, so that a test run proves the
// skipped checks would never have failed. Without the condition, every
// helper here compiles to exactly the unchecked operation.

/// Whether Strata was compiled with `STRATA_CHECKED`: checked casts, dynamic
/// exclusivity checks on the object model's hot state, and invariant checks
/// after each change of the identity map, row batches and list members.
#if STRATA_CHECKED
package let isCheckedBuild = true
#else
package let isCheckedBuild = false
#endif

/// `unsafeDowncast`, for a cast the caller knows holds; a checked cast in
/// the checked build.
@inline(__always)
func uncheckedDowncast<Target: AnyObject>(_ object: AnyObject, to type: Target.Type) -> Target {
    #if STRATA_CHECKED
    return object as! Target
    #else
    return unsafeDowncast(object, to: type)
    #endif
}

/// An array of objects reinterpreted as an array of a subclass, when the
/// caller knows every element is one; each element cast in the checked build.
@inline(__always)
func uncheckedDowncast<Source: AnyObject, Target: AnyObject>(
    _ objects: [Source], to type: [Target].Type
) -> [Target] {
    #if STRATA_CHECKED
    return objects.map { $0 as! Target }
    #else
    return unsafeBitCast(objects, to: type)
    #endif
}

/// Stops the program when an internal invariant does not hold, with a message
/// in every build (see ``misuse(_:file:line:)``): a bug in Strata, not misuse.
@inline(__always)
func checkInvariant(
    _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
    file: StaticString = #fileID, line: UInt = #line
) {
    if !condition() { fatalError("Strata: invariant broken: \(message())", file: file, line: line) }
}

#if STRATA_CHECKED
/// When a structure's full invariant check is due in the checked build: once
/// per as many changes as the structure has elements, so that checking costs
/// a constant factor on the work (a fetch of n objects makes n changes, and
/// a full check after each would cost n²). Each change still checks what it
/// touched at once.
struct InvariantCheckSchedule {
    private var changesSinceCheck = 0

    /// Counts one change; whether a full check of a structure of `size` elements is due.
    mutating func isFullCheckDue(size: Int) -> Bool {
        changesSinceCheck += 1
        guard changesSinceCheck >= size else { return false }
        changesSinceCheck = 0
        return true
    }
}
#endif
