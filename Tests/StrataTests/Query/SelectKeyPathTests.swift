import Foundation
import Testing

@testable import Strata

/// `From<T>().select(\.$field)`, CoreStore's `select(\.age)`: the field's
/// type binds the result, an optional field's to its wrapped type.
@MainActor
@Suite("Select by key path: the field's type is the result's")
struct SelectKeyPathTests {
    /// On random people, `queryValue` of a key-path query is the first
    /// matching person's value in the query's order, or `nil` when none
    /// matches or the value is NULL; `queryAttributes` gives one row per
    /// match named after the field, NULL values left out.
    @Test(arguments: StoreKind.allCases)
    func aKeyPathQueryReadsTheFirstMatchAsTheFieldsType(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(SelSchema.schema, kind, in: directory)
        var random = SplitMix64.random()
        let seed = random.seed
        let cities: [String?] = ["Lima", "Oslo", nil]
        let people = (0..<60).map { serial in
            (serial: serial, age: Int.random(in: 0..<90, using: &random),
             city: cities.randomElement(using: &random)!)
        }
        try stack.perform(synchronous: { tx in
            for person in people {
                let object = tx.create(Into<SelPerson>())
                object.serial = person.serial
                object.age = person.age
                object.city = person.city
            }
        })
        for _ in 0..<20 {
            let threshold = Int.random(in: 0..<100, using: &random)
            let matching = people.filter { $0.age >= threshold }.sorted { $0.serial < $1.serial }
            let query = From<SelPerson>().where(\.$age >= threshold).orderBy(.ascending(\.$serial))

            let age: Int? = try stack.queryValue(query.select(\.$age))
            #expect(age == matching.first?.age, "seed \(seed), age >= \(threshold)")
            let city: String? = try stack.queryValue(query.select(\.$city))
            #expect(city == matching.first?.city, "seed \(seed), age >= \(threshold)")

            let rows = try stack.queryAttributes(query.select(\.$city))
            #expect(rows.count == matching.count, "seed \(seed), age >= \(threshold)")
            #expect(
                rows.map { $0["city"].flatMap { try? String?(storedValue: $0) } ?? nil }
                    == matching.map(\.city),
                "seed \(seed), age >= \(threshold)")
        }
    }

    /// The chain goes on after the key path, as CoreStore's README writes it:
    /// `.select(\.age).where(\.name == "John Smith")`.
    @Test
    func theChainContinuesAfterTheKeyPath() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(SelSchema.schema, .file, in: directory)
        try stack.perform(synchronous: { tx in
            for (name, age) in [("Jane Doe", 22), ("John Smith", 30)] {
                let person = tx.create(Into<SelPerson>())
                person.name = name
                person.age = age
            }
        })
        let johnsAge = try stack.queryValue(
            From<SelPerson>().select(\.$age).where(\.$name == "John Smith"))
        #expect(johnsAge == 30)
        let nobody = try stack.queryValue(From<SelPerson>().select(\.$age).where(\.$name == "Nobody"))
        #expect(nobody == nil)
    }
}
