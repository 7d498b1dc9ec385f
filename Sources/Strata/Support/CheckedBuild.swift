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
