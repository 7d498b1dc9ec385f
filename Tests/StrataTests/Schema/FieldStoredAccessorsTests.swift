import Foundation
import Testing

@testable import Strata

// MARK: Model

/// Stored fields with CoreStore's `customGetter` and `customSetter`: both,
/// a getter only, a setter only, and a getter over a dynamic initial value,
/// beside a plain field that keeps the fast path.
class SAccount: ManagedObject {
    /// Stored trimmed; read lower-cased.
    @Field.Stored(
        "email", .unique,
        customGetter: { (object: SAccount, field) in field.primitiveValue.lowercased() },
        customSetter: { (object: SAccount, field, newValue) in
            field.primitiveValue = newValue.trimmingCharacters(in: .whitespaces)
        })
    var email: String = ""

    @Field.Stored("name") var name: String = ""

    /// Reads as the name until a nickname is set.
    @Field.Stored("nickname", customGetter: { (object: SAccount, field) in
        field.primitiveValue ?? object.name
    })
    var nickname: String?

    /// Never goes down.
    @Field.Stored("visits", .indexed, customSetter: { (object: SAccount, field, newValue) in
        field.primitiveValue = max(newValue, field.primitiveValue)
    })
    var visits: Int = 0

    /// Refuses negative scores by leaving the stored value as it was.
    @Field.Stored("score", customSetter: { (object: SAccount, field, newValue) in
        if newValue >= 0 { field.primitiveValue = newValue }
    })
    var score: Int = 0

    @Field.Stored(
        "token", customGetter: { (object: SAccount, field) in "tok-" + field.primitiveValue },
        dynamicInitialValue: { "t\(Int.random(in: 0..<1_000_000))" })
    var token: String

}

/// A subclass: the superclass's closures run for its objects, imports' included.
final class SAdmin: SAccount, ImportableUniqueObject {
    @Field.Stored("level") var level: Int = 0

    typealias ImportSource = [String: String]

    static var uniqueIDKeyPath: KeyPath<SAdmin, Field.Stored<String>> { \.$email }

    static func uniqueID(
        from source: [String: String], in transaction: BaseDataTransaction
    ) throws -> String? {
        source["email"]
    }

    func update(from source: [String: String], in transaction: BaseDataTransaction) throws {
        name = source["name"] ?? name
        visits = Int(source["visits"] ?? "") ?? visits
    }
}

/// The same stored field with and without custom accessors.
final class SPlainEmail: ManagedObject {
    @Field.Stored("email", .unique) var email: String = ""
}

final class SCustomEmail: ManagedObject {
    @Field.Stored("email", .unique, customGetter: { (object: SCustomEmail, field) in
        field.primitiveValue + "!"
    })
    var email: String = ""
}

/// A getter that names a class the field's class is not: a programmer error.
final class SMistyped: ManagedObject {
    @Field.Stored("n", customGetter: { (object: SAdmin, field) in field.primitiveValue }) var n: Int = 0
}

let accessorSchema = Schema(
    "SA1",
    entities: [Entity<SAccount>("SAccount"), Entity<SAdmin>("SAdmin"), Entity<SMistyped>("SMistyped")])

/// An account's fields as stored, the model the tests check against.
private struct StoredAccount: Equatable {
    var email = ""
    var name = ""
    var nickname: String?
    var visits = 0

    /// What the account's accessors read.
    var read: (email: String, nickname: String, visits: Int) {
        (email.lowercased(), nickname ?? name, visits)
    }
}

// MARK: Tests

/// `@Field.Stored` with CoreStore's `customGetter` and `customSetter`.
@Suite("Stored fields: custom getters and setters")
struct FieldStoredAccessorsTests {
    @Test(arguments: StoreKind.allCases)
    @MainActor
    func theAccessorsRunThroughTheObjectAndEverythingElseSeesTheStoredValue(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(accessorSchema, kind, in: directory)
        let id = try stack.perform(synchronous: { tx in
            let ann = tx.create(Into<SAccount>())
            ann.email = "  Ann@Example.ORG "
            ann.name = "Ann"
            #expect(ann.email == "ann@example.org")
            #expect(ann.$email.value == "ann@example.org")
            #expect(ann.nickname == "Ann")
            ann.visits = 5
            ann.visits = 3
            #expect(ann.visits == 5)
            ann.score = 2
            ann.score = -1
            #expect(ann.score == 2)
            #expect(ann.token.hasPrefix("tok-t"))
            // A query inside the transaction compares the stored value.
            let asStored = try tx.fetchCount(From<SAccount>().where(\.$email == "Ann@Example.ORG"))
            let asRead = try tx.fetchCount(From<SAccount>().where(\.$email == "ann@example.org"))
            #expect(asStored == 1 && asRead == 0)
            return ann.objectID
        })
        let ann = try #require(try stack.fetchExisting(id))
        #expect(ann.email == "ann@example.org")
        #expect(ann.visits == 5)
        let stored = try stack.queryValue(From<SAccount>().select(String.self, .attribute(\.$email)))
        #expect(stored == "Ann@Example.ORG")
        #expect(try stack.fetchOne(From<SAccount>().where(\.$nickname == nil)) === ann)
        let snapshot = try #require(ann.asSnapshot(in: stack))
        #expect(snapshot.$email == "Ann@Example.ORG")
        #expect(snapshot.$token.hasPrefix("t"))
        #expect(!snapshot.$token.hasPrefix("tok-"))

        try stack.perform(synchronous: { tx in
            let edited = try #require(tx.edit(ann))
            edited.nickname = "Annie"
            edited.visits = 4
        })
        #expect(ann.nickname == "Annie")
        #expect(ann.visits == 5)
    }

    @Test
    @MainActor
    func aSubclassRunsItsSuperclasssAccessors() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(accessorSchema, .inMemory, in: directory)
        try stack.perform(synchronous: { tx in
            let admin = tx.create(Into<SAdmin>())
            admin.email = " Root@Host "
            admin.level = 3
            admin.visits = 9
            admin.visits = 1
        })
        let admin = try #require(try stack.fetchOne(From<SAdmin>()))
        #expect(admin.email == "root@host")
        #expect(admin.visits == 9)
        #expect(admin.level == 3)
        #expect(try stack.fetchCount(From<SAccount>().where(\.$email == "Root@Host")) == 1)
    }

    /// An import's unique ID is matched and set as stored; its `update`
    /// sets fields through their accessors, as any code does.
    @Test
    @MainActor
    func anImportMatchesTheStoredIDAndUpdatesThroughTheSetters() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(accessorSchema, .inMemory, in: directory)
        try stack.perform(synchronous: { tx in
            _ = try tx.importUniqueObjects(Into<SAdmin>(), sourceArray: [
                ["email": "Bo@X", "name": "Bo", "visits": "7"],
                ["email": "cy@x", "name": "Cy", "visits": "2"],
            ])
        })
        try stack.perform(synchronous: { tx in
            _ = try tx.importUniqueObjects(Into<SAdmin>(), sourceArray: [
                ["email": "Bo@X", "name": "Bob", "visits": "1"],
                ["email": "bo@x", "name": "Other"],
            ])
        })
        let admins = try stack.fetchAll(From<SAdmin>().orderBy(.ascending(\.$name)))
        #expect(admins.map(\.name) == ["Bob", "Cy", "Other"])
        #expect(admins.map(\.visits) == [7, 2, 0])
        #expect(admins.map(\.email) == ["bo@x", "cy@x", "bo@x"])
        let bobs = try stack.queryValue(
            From<SAdmin>().select(String.self, .attribute(\.$email)).where(\.$name == "Bob"))
        #expect(bobs == "Bo@X")
    }

    /// Random writes through the accessors and their `primitiveValue`, over
    /// several commits: every read equals the model's, in the transaction
    /// and after, and the stored values equal the model's as stored.
    @Test(arguments: StoreKind.allCases)
    @MainActor
    func readsAndStoredValuesFollowTheModelOnRandomWrites(_ kind: StoreKind) throws {
        var random = SplitMix64.random()
        let directory = TemporaryDirectory()
        let stack = try makeStack(accessorSchema, kind, in: directory)
        let emails = ["a@x", "A@x", "B@y", "", "é@Z"]
        let spaces = ["", " ", "  "]
        var model: [ObjectID<SAccount>: StoredAccount] = [:]
        var emailsSet = 0
        for round in 0..<12 {
            let seed = "seed \(random.seed), round \(round)"
            model = try stack.perform(synchronous: { tx in
                var next = model
                var objects = try model.keys.map { try #require(tx.edit($0)) }
                if objects.isEmpty || Bool.random(using: &random) {
                    let object = tx.create(Into<SAccount>())
                    emailsSet += 1
                    object.email = " new\(emailsSet)@x "
                    objects.append(object)
                    next[object.objectID] = StoredAccount(email: "new\(emailsSet)@x")
                }
                for _ in 0..<Int.random(in: 1...10, using: &random) {
                    guard let object = objects.randomElement(using: &random) else { break }
                    var stored = next[object.objectID]!
                    switch Int.random(in: 0..<6, using: &random) {
                    case 0:
                        emailsSet += 1
                        let (lead, base, trail) = (
                            spaces.randomElement(using: &random)!, emails.randomElement(using: &random)!,
                            spaces.randomElement(using: &random)!)
                        let email = lead + base + "\(emailsSet)" + trail
                        object.email = email
                        stored.email = email.trimmingCharacters(in: .whitespaces)
                    case 1:
                        let name = ["Al", "Bea", ""].randomElement(using: &random)!
                        object.name = name
                        stored.name = name
                    case 2:
                        let nickname = ["Ace", nil].randomElement(using: &random)!
                        object.nickname = nickname
                        stored.nickname = nickname
                    case 3:
                        let visits = Int.random(in: 0...20, using: &random)
                        object.visits = visits
                        stored.visits = max(visits, stored.visits)
                    case 4:
                        let visits = Int.random(in: 0...20, using: &random)
                        #expect(object.$visits.value == stored.visits, "\(seed)")
                        object.visits = visits
                        stored.visits = max(visits, stored.visits)
                    default:
                        if Bool.random(using: &random) {
                            tx.delete(object)
                            objects.removeAll { $0 === object }
                            next[object.objectID] = nil
                            continue
                        }
                    }
                    next[object.objectID] = stored
                    #expect(object.email == stored.read.email, "\(seed)")
                    #expect(object.nickname == stored.read.nickname, "\(seed)")
                    #expect(object.visits == stored.read.visits, "\(seed)")
                }
                return next
            })
            for (id, stored) in model {
                let object = try #require(try stack.fetchExisting(id), "\(seed)")
                #expect(object.email == stored.read.email, "\(seed)")
                #expect(object.nickname == stored.read.nickname, "\(seed)")
                #expect(object.visits == stored.read.visits, "\(seed)")
                let snapshot = try #require(object.asSnapshot(in: stack), "\(seed)")
                #expect(snapshot.$email == stored.email, "\(seed)")
                #expect(snapshot.$nickname == stored.nickname, "\(seed)")
                #expect(snapshot.$visits == stored.visits, "\(seed)")
            }
            #expect(try stack.fetchCount(From<SAccount>()) == model.count, "\(seed)")
        }
    }

    @Test
    func onlyThePrototypeHoldsTheAccessors() {
        func held(_ object: ManagedObject) -> [Bool] {
            Mirror(reflecting: object).children.compactMap { child in
                (child.value as? Field.Stored<String>).map { $0.declaredField != nil }
            }
        }
        #expect(held(SAccount()) == [false, false, false])
        #expect(held(DeclaredFields.prototype(of: SAccount.self)) == [true, true, true])
        let email = DeclaredFields.field(at: \SAccount.$email) as? DeclaredField<String>
        let name = DeclaredFields.field(at: \SAccount.$name) as? DeclaredField<String>
        #expect(email?.hasCustomAccessors == true)
        #expect(name?.hasCustomAccessors == false)
        #expect(String(keyPath: \SAccount.$email) == "email")
    }

    @Test
    func accessorsLeaveTheFingerprintAsItWas() {
        #expect(
            Schema("A", entities: [Entity<SPlainEmail>("Account")]).fingerprint
                == Schema("B", entities: [Entity<SCustomEmail>("Account")]).fingerprint)
    }

    @Test
    func misusesTrapSayingWhatToDo() async {
        let mistyped = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            try await MainActor.run {
                let directory = TemporaryDirectory()
                let stack = try makeStack(accessorSchema, .inMemory, in: directory)
                try stack.perform(synchronous: { tx in _ = tx.create(Into<SMistyped>()).n })
            }
        }
        // The setter of a main-context object is not run: the write traps first.
        let mainSetter = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            try await MainActor.run {
                let directory = TemporaryDirectory()
                let stack = try makeStack(accessorSchema, .inMemory, in: directory)
                let id = try stack.perform(synchronous: { tx in tx.create(Into<SAccount>()).objectID })
                try stack.fetchExisting(id)?.visits = 3
            }
        }
        // Also when the setter would not have written anything.
        let mainIgnored = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            try await MainActor.run {
                let directory = TemporaryDirectory()
                let stack = try makeStack(accessorSchema, .inMemory, in: directory)
                let id = try stack.perform(synchronous: { tx in tx.create(Into<SAccount>()).objectID })
                try stack.fetchExisting(id)?.score = -1
            }
        }
        func message(_ result: ExitTest.Result?) -> String {
            String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        }
        #expect(message(mistyped).contains("the customGetter of SMistyped.n takes a SAdmin"))
        #expect(message(mainSetter).contains("cannot set SAccount.visits on an object of the main context"))
        #expect(message(mainIgnored).contains("cannot set SAccount.score on an object of the main context"))
    }
}
