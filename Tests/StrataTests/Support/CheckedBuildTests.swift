import Foundation
@testable import Strata
import Testing

/// What the checked build checks that an ordinary build does not: the same
/// unsafe operation traps in the one and passes in the other.
private func overlapValuesAccesses() {
    let object = ManagedObject()
    object.values = [.integer(1)]
    // A read of the object's values while a change of them is in progress.
    func change(_ values: inout ContiguousArray<StoredValue>) { _ = object.value(at: 0) }
    change(&object.values)
}

/// CI runs the suite as is and compiled with `-DSTRATA_CHECKED` (see "The
/// checked build" in Docs/Architecture.md), and sets `STRATA_EXPECT_CHECKED`
/// to `1` or `0` to say which it means; these tests prove the stage ran the
/// build it meant to, with the checks on.
@Suite("Checked build")
struct CheckedBuildTests {
    static let expectation = ProcessInfo.processInfo.environment["STRATA_EXPECT_CHECKED"]

    @Test(.enabled(if: expectation != nil, "set STRATA_EXPECT_CHECKED=1 or 0 to say which build you mean"))
    func theBuildIsCheckedExactlyWhenTheRunExpectsIt() {
        #expect(Strata.isCheckedBuild == (Self.expectation == "1"), "STRATA_EXPECT_CHECKED=\(Self.expectation ?? "")")
    }

    /// The object model's hot state opts out of exclusivity checks, but in the checked build.
    @Test
    func overlappingAccessesToAnObjectsStateTrapOnlyInTheCheckedBuild() async {
        if isCheckedBuild {
            await #expect(processExitsWith: .failure) { overlapValuesAccesses() }
        } else {
            await #expect(processExitsWith: .success) { overlapValuesAccesses() }
        }
    }

    /// A fetch hands out its objects by reinterpreting the array, but in the checked build.
    @Test(.enabled(if: isCheckedBuild, "unchecked, a wrong cast is undefined behaviour"))
    func aWrongArrayCastTrapsInTheCheckedBuild() async {
        await #expect(processExitsWith: .failure) {
            let objects: [AnyObject] = [ManagedObject()]
            _ = uncheckedDowncast(objects, to: [RowBatch].self).count
        }
    }
}
