import Foundation
import Testing

@testable import Strata

// MARK: Model

struct CSettings: Codable, Sendable, Equatable {
    var theme = ""
    var volume = 0
}

enum CLevel: String, Sendable {
    case low, mid, high
}

/// Coded fields with CoreStore's `customGetter` and `customSetter`, one per
/// way of declaring a coded field: JSON, a coder type, an optional coder,
/// a pair of closures, a dynamic initial value.
class CPost: ManagedObject {
    /// Stored as set, without repeats, in first-seen order; read sorted.
    @Field.Coded(
        "tags",
        customGetter: { (object: CPost, field) in field.primitiveValue.sorted() },
        customSetter: { (object: CPost, field, newValue) in
            var seen = Set<String>()
            field.primitiveValue = newValue.filter { seen.insert($0).inserted }
        })
    var tags: [String] = []

    /// An empty theme reads as "plain"; the volume is clamped when set.
    @Field.Coded(
        "settings", coder: FieldCoders.Json.self,
        customGetter: { (object: CPost, field) in
            var settings = field.primitiveValue
            if settings.theme.isEmpty { settings.theme = "plain" }
            return settings
        },
        customSetter: { (object: CPost, field, newValue) in
            var settings = newValue
            settings.volume = min(max(settings.volume, 0), 10)
            field.primitiveValue = settings
        })
    var settings: CSettings = CSettings()

    /// Reads as the post's title settings until set.
    @Field.Coded("draft", coder: FieldCoders.Json.self, customGetter: { (object: CPost, field) in
        field.primitiveValue ?? CSettings(theme: "draft", volume: -1)
    })
    var draft: CSettings?

    /// Never goes down.
    @Field.Coded(
        "level",
        coder: (
            encode: { Data($0.rawValue.utf8) },
            decode: { $0.flatMap { CLevel(rawValue: String(decoding: $0, as: UTF8.self)) } ?? .low }
        ),
        customSetter: { (object: CPost, field, newValue) in
            let order: [CLevel] = [.low, .mid, .high]
            let current = field.primitiveValue
            if order.firstIndex(of: newValue)! > order.firstIndex(of: current)! {
                field.primitiveValue = newValue
            }
        })
    var level: CLevel = .low

    @Field.Coded(
        "stamp", customGetter: { (object: CPost, field) in "#" + field.primitiveValue },
        dynamicInitialValue: { "s\(Int.random(in: 0..<1_000_000))" })
    var stamp: String

    @Field.Stored("title") var title: String = ""
}

/// The same coded field with and without custom accessors.
final class CPlainTags: ManagedObject {
    @Field.Coded("tags") var tags: [String] = []
}

final class CCustomTags: ManagedObject {
    @Field.Coded("tags", customGetter: { (object: CCustomTags, field) in field.primitiveValue.reversed() })
    var tags: [String] = []
}

let codedAccessorSchema = Schema("CA1", entities: [Entity<CPost>("CPost")])

/// A post's coded fields as stored, the model the tests check against.
private struct StoredPost: Equatable {
    var tags: [String] = []
    var settings = CSettings()
    var draft: CSettings?
    var level = CLevel.low

    /// What the post's getters read.
    var readTags: [String] { tags.sorted() }
    var readSettings: CSettings {
        settings.theme.isEmpty ? CSettings(theme: "plain", volume: settings.volume) : settings
    }
    var readDraft: CSettings { draft ?? CSettings(theme: "draft", volume: -1) }
}

// MARK: Tests

/// `@Field.Coded` with CoreStore's `customGetter` and `customSetter`.
@Suite("Coded fields: custom getters and setters")
struct FieldCodedAccessorsTests {
    @Test(arguments: StoreKind.allCases)
    @MainActor
    func theAccessorsRunThroughTheObjectAndEverythingElseSeesTheStoredValue(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(codedAccessorSchema, kind, in: directory)
        let id = try stack.perform(synchronous: { tx in
            let post = tx.create(Into<CPost>())
            post.tags = ["b", "a", "b"]
            #expect(post.tags == ["a", "b"])
            #expect(post.$tags.value == ["a", "b"])
            #expect(post.settings == CSettings(theme: "plain", volume: 0))
            post.settings = CSettings(theme: "", volume: 40)
            #expect(post.settings == CSettings(theme: "plain", volume: 10))
            #expect(post.draft == CSettings(theme: "draft", volume: -1))
            post.level = .high
            post.level = .mid
            #expect(post.level == .high)
            #expect(post.stamp.hasPrefix("#s"))
            return post.objectID
        })
        let post = try #require(try stack.fetchExisting(id))
        #expect(post.tags == ["a", "b"])
        #expect(post.settings == CSettings(theme: "plain", volume: 10))
        #expect(post.level == .high)
        let snapshot = try #require(post.asSnapshot(in: stack))
        #expect(snapshot.$tags == ["b", "a"])
        #expect(snapshot.$settings == CSettings(theme: "", volume: 10))
        #expect(snapshot.$draft == nil)
        #expect(!snapshot.$stamp.hasPrefix("#"))

        try stack.perform(synchronous: { tx in
            let edited = try #require(tx.edit(post))
            edited.draft = CSettings(theme: "dark", volume: 3)
            edited.level = .low
        })
        #expect(post.draft == CSettings(theme: "dark", volume: 3))
        #expect(post.level == .high)
    }

    /// An observation reports the stored value, not the getter's.
    @Test
    @MainActor
    func observationsReportTheStoredValue() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(codedAccessorSchema, .inMemory, in: directory)
        let id = try stack.perform(synchronous: { tx in tx.create(Into<CPost>()).objectID })
        let post = try #require(try stack.fetchExisting(id))
        var reported: [[String]] = []
        let observation = post.$tags.observe { _, new in reported.append(new) }
        try stack.perform(synchronous: { tx in try #require(tx.edit(post)).tags = ["z", "y", "z"] })
        #expect(reported == [["z", "y"]])
        #expect(post.tags == ["y", "z"])
        observation.cancel()
    }

    /// Random writes through the accessors and their `primitiveValue`, over
    /// several commits: every read equals the model's, in the transaction
    /// and after, and the stored values equal the model's as stored.
    @Test(arguments: StoreKind.allCases)
    @MainActor
    func readsAndStoredValuesFollowTheModelOnRandomWrites(_ kind: StoreKind) throws {
        var random = SplitMix64.random()
        let directory = TemporaryDirectory()
        let stack = try makeStack(codedAccessorSchema, kind, in: directory)
        let words = ["a", "b", "c", "é", ""]
        let levels: [CLevel] = [.low, .mid, .high]
        var model: [ObjectID<CPost>: StoredPost] = [:]
        for round in 0..<10 {
            let seed = "seed \(random.seed), round \(round)"
            model = try stack.perform(synchronous: { tx in
                var next = model
                var objects = try model.keys.map { try #require(tx.edit($0)) }
                if objects.isEmpty || Bool.random(using: &random) {
                    let object = tx.create(Into<CPost>())
                    objects.append(object)
                    next[object.objectID] = StoredPost()
                }
                for _ in 0..<Int.random(in: 1...10, using: &random) {
                    guard let object = objects.randomElement(using: &random) else { break }
                    var stored = next[object.objectID]!
                    switch Int.random(in: 0..<6, using: &random) {
                    case 0:
                        let tags = (0..<Int.random(in: 0...5, using: &random)).map { _ in
                            words.randomElement(using: &random)!
                        }
                        object.tags = tags
                        var seen = Set<String>()
                        stored.tags = tags.filter { seen.insert($0).inserted }
                    case 1:
                        let settings = CSettings(
                            theme: ["", "dark"].randomElement(using: &random)!,
                            volume: Int.random(in: -5...15, using: &random))
                        object.settings = settings
                        stored.settings = CSettings(
                            theme: settings.theme, volume: min(max(settings.volume, 0), 10))
                    case 2:
                        let draft = [nil, CSettings(theme: "x", volume: 1)].randomElement(using: &random)!
                        object.draft = draft
                        stored.draft = draft
                    case 3:
                        let level = levels.randomElement(using: &random)!
                        object.level = level
                        if levels.firstIndex(of: level)! > levels.firstIndex(of: stored.level)! {
                            stored.level = level
                        }
                    case 4:
                        #expect(object.$settings.value == stored.readSettings, "\(seed)")
                    default:
                        if Bool.random(using: &random) {
                            tx.delete(object)
                            objects.removeAll { $0 === object }
                            next[object.objectID] = nil
                            continue
                        }
                    }
                    next[object.objectID] = stored
                    #expect(object.tags == stored.readTags, "\(seed)")
                    #expect(object.settings == stored.readSettings, "\(seed)")
                    #expect(object.draft == stored.readDraft, "\(seed)")
                    #expect(object.level == stored.level, "\(seed)")
                }
                return next
            })
            for (id, stored) in model {
                let object = try #require(try stack.fetchExisting(id), "\(seed)")
                #expect(object.tags == stored.readTags, "\(seed)")
                #expect(object.settings == stored.readSettings, "\(seed)")
                #expect(object.draft == stored.readDraft, "\(seed)")
                #expect(object.level == stored.level, "\(seed)")
                let snapshot = try #require(object.asSnapshot(in: stack), "\(seed)")
                #expect(snapshot.$tags == stored.tags, "\(seed)")
                #expect(snapshot.$settings == stored.settings, "\(seed)")
                #expect(snapshot.$draft == stored.draft, "\(seed)")
                #expect(snapshot.$level == stored.level, "\(seed)")
            }
            #expect(try stack.fetchCount(From<CPost>()) == model.count, "\(seed)")
        }
    }

    @Test
    func onlyThePrototypeHoldsTheAccessors() {
        func held(_ object: ManagedObject) -> [Bool] {
            Mirror(reflecting: object).children.compactMap { child in
                (child.value as? Field.Coded<[String]>).map { $0.declaredField != nil }
            }
        }
        #expect(held(CPost()) == [false])
        #expect(held(DeclaredFields.prototype(of: CPost.self)) == [true])
        let tags = DeclaredFields.field(at: \CPost.$tags) as? DeclaredField<[String]>
        let title = DeclaredFields.field(at: \CPost.$title) as? DeclaredField<String>
        #expect(tags?.hasCustomAccessors == true)
        #expect(title?.hasCustomAccessors == false)
        #expect(String(keyPath: \CPost.$tags) == "tags")
    }

    @Test
    func accessorsLeaveTheFingerprintAsItWas() {
        #expect(
            Schema("A", entities: [Entity<CPlainTags>("Post")]).fingerprint
                == Schema("B", entities: [Entity<CCustomTags>("Post")]).fingerprint)
    }

    @Test
    func aMainContextObjectsSetterTrapsBeforeItRuns() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            try await MainActor.run {
                let directory = TemporaryDirectory()
                let stack = try makeStack(codedAccessorSchema, .inMemory, in: directory)
                let id = try stack.perform(synchronous: { tx in tx.create(Into<CPost>()).objectID })
                try stack.fetchExisting(id)?.level = .high
            }
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("cannot set CPost.level on an object of the main context"))
    }
}
