import Foundation
import Testing

@testable import Strata

/// A value a coded field holds: its JSON has keys to sort.
struct ObsAddress: Codable, Sendable, Equatable {
    var city: String
    var zip: Int
}

final class ObsProfile: ManagedObject {
    @Field.Stored("label") var label: String = ""
    @Field.Coded("home") var home: ObsAddress? = nil
    @Field.Coded("tags") var tags: [String] = []
}

let codedObservationSchema = Schema("ObsCoded1", entities: [Entity<ObsProfile>("ObsProfile")])

/// CoreStore observes any property of an object with `observe(...)`, coded
/// (transformable) ones too; so does Strata, `object.$field.observe`.
@MainActor
@Suite("Field observation of coded fields")
struct CodedFieldObservationTests {
    static let homes: [ObsAddress?] = [
        nil, ObsAddress(city: "Oslo", zip: 150), ObsAddress(city: "Rome", zip: 100),
        ObsAddress(city: "Oslo", zip: 151),
    ]
    static let tagLists: [[String]] = [[], ["a"], ["a", "b"], ["b", "a"]]

    /// Random commits set the coded fields (often to the value they hold) or
    /// another field; each observation hears exactly the changes of its own
    /// field, with the values before and after, in commit order.
    @Test(arguments: StoreKind.allCases)
    func observersHearEachChangeOfTheirCodedField(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(codedObservationSchema, kind, in: directory)
        var random = SplitMix64.random()
        let id = try stack.perform(synchronous: { tx in tx.create(Into<ObsProfile>()).objectID })
        let profile = try #require(try stack.fetchExisting(id))
        var heardHomes: [[ObsAddress?]] = []
        var heardTags: [[[String]]] = []
        let homeToken = profile.$home.observe { old, new in heardHomes.append([old, new]) }
        let tagsToken = profile.$tags.observe { old, new in heardTags.append([old, new]) }

        var home: ObsAddress? = nil
        var tags: [String] = []
        var expectedHomes: [[ObsAddress?]] = []
        var expectedTags: [[[String]]] = []
        for step in 0..<40 {
            let newHome = Self.homes.randomElement(using: &random)!
            let newTags = Self.tagLists.randomElement(using: &random)!
            let label = "step \(step)"
            switch Int.random(in: 0..<3, using: &random) {
            case 0:
                try stack.perform(synchronous: { tx in tx.edit(id)?.home = newHome })
                if newHome != home { expectedHomes.append([home, newHome]) }
                home = newHome
            case 1:
                try stack.perform(synchronous: { tx in tx.edit(id)?.tags = newTags })
                if newTags != tags { expectedTags.append([tags, newTags]) }
                tags = newTags
            default:
                try stack.perform(synchronous: { tx in tx.edit(id)?.label = label })
            }
            #expect(heardHomes == expectedHomes, "seed \(random.seed), step \(step)")
            #expect(heardTags == expectedTags, "seed \(random.seed), step \(step)")
        }
        #expect(homeToken.isActive && tagsToken.isActive)
        tagsToken.cancel()
        try stack.perform(synchronous: { tx in tx.edit(id)?.tags = ["cancelled"] })
        #expect(heardTags == expectedTags)
        try stack.perform(synchronous: { tx in tx.delete(id) })
        #expect(!homeToken.isActive)
        #expect(heardHomes == expectedHomes)
    }

    @Test func observingACodedFieldOfATransactionsObjectTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            try await MainActor.run {
                let directory = TemporaryDirectory()
                let stack = try makeStack(codedObservationSchema, .inMemory, in: directory)
                let profile = try stack.perform(synchronous: { tx in tx.create(Into<ObsProfile>()) })
                _ = profile.$home.observe { _, _ in }
            }
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("observe 'home' on an object of the stack's main context"))
    }
}
