import Foundation

@testable import Strata

/// The tests an optional field takes beyond `==`, `!=` and the order
/// comparisons: ranges with a non-optional bound, and memberships of any
/// sequence of the wrapped type (ranges, sets, lazy sequences), on fields and
/// on paths, so that SQL and memory must treat a NULL alike in each.
extension ProbeGenerator {
    mutating func optionalItemLeaf() -> DescribedWhere<ProbeItem> {
        switch random.below(12) {
        case 0:
            let range = integerRange()
            return DescribedWhere(
                Where(\.$maybe, between: range), "Where(\\.$maybe, between: \(range))")
        case 1:
            let range = realRange()
            return DescribedWhere(
                Where(\.$ratio, between: range), "Where(\\.$ratio, between: \(range))")
        case 2:
            let range = stringRange()
            return DescribedWhere(
                Where(\.$note, between: range),
                "Where(\\.$note, between: \(probeDescription(range)))")
        case 3:
            let range = realRange()
            return DescribedWhere(
                Where(\ProbeItem.$group ~ \.$weight, between: range),
                "Where(\\.$group ~ \\.$weight, between: \(range))")
        case 4:
            let range = stringRange()
            return DescribedWhere(
                Where(\ProbeItem.$group ~ \.$parent ~ \.$name, between: range),
                "Where(\\.$group ~ \\.$parent ~ \\.$name, between: \(probeDescription(range)))")
        case 5:
            let range = integerRange(span: 6)
            return DescribedWhere(Where(\.$maybe, in: range), "Where(\\.$maybe, in: \(range))")
        case 6:
            let range = integerRange(span: 6)
            return DescribedWhere(range ~= \ProbeItem.$maybe, "\(range) ~= \\.$maybe")
        case 7:
            // Distinct values in a fixed order: a `Set`'s order differs from
            // one instance to the next, and a seed must build the same tree.
            let values = Set((0..<random.below(5)).map { _ in random.string() }).sorted()
            return DescribedWhere(
                Where(\.$note, in: values), "Where(\\.$note, in: \(values))")
        case 8:
            let values = (0..<random.below(40)).map { _ in random.real() }
            return DescribedWhere(
                Where(\ProbeItem.$group ~ \.$weight, in: values.lazy.map { $0 }),
                "Where(\\.$group ~ \\.$weight, in: \(values).lazy)")
        case 9:
            return probeCompare(
                \ProbeItem.$ratio, "ratio", op(), random.chance(0.3) ? nil : random.real())
        case 10:
            let flag: Bool? = random.chance(0.3) ? nil : random.chance(0.5)
            return probeCompare(\ProbeItem.$flag, "flag", op(), flag)
        default:
            let values = (0..<random.below(4)).map { _ in
                random.chance(0.3) ? nil : random.chance(0.5)
            }
            return DescribedWhere(Where(\.$flag, in: values), "Where(\\.$flag, in: \(values))")
        }
    }

    mutating func optionalGroupLeaf() -> DescribedWhere<ProbeGroup> {
        switch random.below(3) {
        case 0:
            let range = realRange()
            return DescribedWhere(
                Where(\.$weight, between: range), "Where(\\.$weight, between: \(range))")
        case 1:
            let range = stringRange()
            return DescribedWhere(
                Where(\.$name, between: range),
                "Where(\\.$name, between: \(probeDescription(range)))")
        default:
            let range = integerRange(span: 4)
            let reals = range.map(Double.init)
            return DescribedWhere(
                Where(\.$weight, in: reals.lazy.map { $0 }), "Where(\\.$weight, in: \(reals))")
        }
    }

    /// A range of two random integers; with `span`, one no wider than it
    /// (a membership lists every value of its range).
    private mutating func integerRange(span: Int? = nil) -> ClosedRange<Int> {
        let a = random.integer()
        guard let span else {
            let b = random.integer()
            return min(a, b)...max(a, b)
        }
        let low = max(a, Int.min + span)  // so that `low - span` cannot overflow below
        return (low - random.below(span))...low
    }

    private mutating func realRange() -> ClosedRange<Double> {
        let (a, b) = (random.real(), random.real())
        return min(a, b)...max(a, b)
    }

    private mutating func stringRange() -> ClosedRange<String> {
        let (a, b) = (random.string(), random.string())
        return min(a, b)...max(a, b)
    }
}
