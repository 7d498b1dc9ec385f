import Foundation
import Testing

@testable import Strata

/// One report, as the test writes it down.
private struct Report: Equatable, CustomStringConvertible {
    var object: ObjectIdentifier
    var new: Int?
    var old: Int?
    var isPrior: Bool
    var description: String { "\(isPrior ? "prior " : "")\(old.map(String.init) ?? "-")->\(new.map(String.init) ?? "-")" }
}

/// CoreStore's `object.observe(\.$field, options:) { object, change in }`.
@MainActor
@Suite("Field observation with options: object.observe(\\.$field, options:)")
struct FieldObservationOptionsTests {
    /// For every combination of `.new`, `.old`, `.initial` and `.prior`, over
    /// random commits (the age changed, set to what it was, another field or
    /// another object changed): the reports are exactly those the options
    /// ask for, in order, each naming the observed object; an `.initial`
    /// report comes before `observe` returns, with the current value.
    @Test(arguments: [UInt64(0x0B5), 0x0B6])
    func reportsAreWhatTheOptionsAskFor(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let (stack, ann, bob) = try makeObservedPeople(.inMemory, in: directory)
        let person = try #require(try stack.fetchExisting(ann))
        let combinations = (0..<16).map { FieldObservationOptions(rawValue: $0) }
        var reports = Array(repeating: [Report](), count: combinations.count)
        var expected = reports
        var tokens: [FieldObservation] = []
        for (index, options) in combinations.enumerated() {
            tokens.append(person.observe(\.$age, options: options) { object, change in
                reports[index].append(Report(
                    object: ObjectIdentifier(object), new: change.newValue, old: change.oldValue,
                    isPrior: change.isPrior))
            })
            if options.contains(.initial) {
                expected[index].append(Report(
                    object: ObjectIdentifier(person), new: options.contains(.new) ? 31 : nil, old: nil,
                    isPrior: false))
            }
            #expect(reports[index] == expected[index], "\(options.rawValue): at once")
        }
        var age = 31
        for _ in 0..<20 {
            let change = random.next() % 4
            let newAge = change == 0 ? age : Int(random.next() % 5) + 30
            try stack.perform(synchronous: { tx in
                switch change {
                case 1: tx.edit(bob)!.age = newAge
                case 2: tx.edit(ann)!.name = "Ann \(newAge)"
                default: tx.edit(ann)!.age = newAge
                }
            })
            guard change == 0 || change == 3, newAge != age else { continue }
            for (index, options) in combinations.enumerated() {
                let old = options.contains(.old) ? age : nil
                if options.contains(.prior) {
                    expected[index].append(Report(object: ObjectIdentifier(person), new: nil, old: old, isPrior: true))
                }
                expected[index].append(Report(
                    object: ObjectIdentifier(person), new: options.contains(.new) ? newAge : nil, old: old,
                    isPrior: false))
            }
            age = newAge
        }
        for index in combinations.indices {
            #expect(reports[index] == expected[index], "options \(combinations[index].rawValue), seed \(seed)")
        }
        #expect(expected.allSatisfy { $0.count > 2 }, "the commits changed the age")
        tokens.forEach { $0.cancel() }
    }

    /// A coded field is observed the same way, its values decoded.
    @Test func codedFieldsReportTheirValues() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(codedObservationSchema, .inMemory, in: directory)
        let id = try stack.perform(synchronous: { tx in tx.create(Into<ObsProfile>()).objectID })
        let profile = try #require(try stack.fetchExisting(id))
        var moves: [String] = []
        let token = profile.observe(\.$home, options: [.old, .new, .initial]) { _, change in
            moves.append("\(change.oldValue??.city ?? "-")->\(change.newValue??.city ?? "-")")
        }
        try stack.perform(synchronous: { tx in tx.edit(id)!.home = ObsAddress(city: "Oslo", zip: 150) })
        try stack.perform(synchronous: { tx in tx.edit(id)!.home = ObsAddress(city: "Rome", zip: 100) })
        #expect(moves == ["-->-", "-->Oslo", "Oslo->Rome"])
        token.cancel()
    }
}
