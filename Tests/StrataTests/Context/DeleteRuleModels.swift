import Strata

// A world for delete rules: every rule on both sides of to-one, one-to-one,
// unordered, ordered and many-to-many (ordered on one side) relationships, a self reference, a
// to-one without inverse, and a subentity that inherits its base's
// relationships and declares one of its own. Each object carries a `tag`
// unique across the world, which the model (`DeleteRuleModel`) names it by.

class RulePerson: ManagedObject {
    @Field.Stored("tag") var tag: Int = 0
    @Field.Relationship("passport", inverse: \RulePassport.$holder, deleteRule: .deny)
    var passport: RulePassport?
    @Field.Relationship("pets", inverse: \RulePet.$owner, deleteRule: .cascade) var pets: Set<RulePet>
    @Field.Relationship("cars", inverse: \RuleCar.$driver, deleteRule: .deny) var cars: [RuleCar]
    @Field.Relationship("clubs", inverse: \RuleClub.$members, deleteRule: .nullify) var clubs: Set<RuleClub>
    @Field.Relationship("mentor", inverse: \RulePerson.$mentees, deleteRule: .nullify) var mentor: RulePerson?
    @Field.Relationship("mentees", deleteRule: .deny) var mentees: Set<RulePerson>
}

final class RuleStaff: RulePerson {
    @Field.Relationship("desk", inverse: \RuleDesk.$user, deleteRule: .cascade) var desk: RuleDesk?
}

final class RulePassport: ManagedObject {
    @Field.Stored("tag") var tag: Int = 0
    @Field.Relationship("holder", deleteRule: .nullify) var holder: RulePerson?
}

final class RulePet: ManagedObject {
    @Field.Stored("tag") var tag: Int = 0
    @Field.Relationship("owner", deleteRule: .deny) var owner: RulePerson?
    @Field.Relationship("vet", deleteRule: .deny) var vet: RuleVet?
}

final class RuleCar: ManagedObject {
    @Field.Stored("tag") var tag: Int = 0
    @Field.Relationship("driver", deleteRule: .cascade) var driver: RulePerson?
}

final class RuleClub: ManagedObject {
    @Field.Stored("tag") var tag: Int = 0
    @Field.Relationship("members", deleteRule: .deny) var members: [RulePerson]
}

final class RuleVet: ManagedObject {
    @Field.Stored("tag") var tag: Int = 0
}

final class RuleDesk: ManagedObject {
    @Field.Stored("tag") var tag: Int = 0
    @Field.Relationship("user", deleteRule: .deny) var user: RuleStaff?
}

let deleteRuleSchema = Schema("DR1", entities: [
    Entity<RulePerson>("Person"), Entity<RuleStaff>("Staff"), Entity<RulePassport>("Passport"),
    Entity<RulePet>("Pet"), Entity<RuleCar>("Car"), Entity<RuleClub>("Club"), Entity<RuleVet>("Vet"),
    Entity<RuleDesk>("Desk"),
])

enum RuleKind: Int, CaseIterable, CustomStringConvertible {
    case person, staff, passport, pet, car, club, vet, desk

    var description: String { String(describing: type) }

    var type: ManagedObject.Type {
        switch self {
        case .person: RulePerson.self
        case .staff: RuleStaff.self
        case .passport: RulePassport.self
        case .pet: RulePet.self
        case .car: RuleCar.self
        case .club: RuleClub.self
        case .vet: RuleVet.self
        case .desk: RuleDesk.self
        }
    }

    static func of(_ object: ManagedObject) -> RuleKind {
        allCases.first { Swift.type(of: object) == $0.type }!
    }

    static let people: Set<RuleKind> = [.person, .staff]

    /// The kinds a fetch or a bulk delete names: a person's includes staff.
    static let roots: [RuleKind] = [.person, .passport, .pet, .car, .club, .vet, .desk]

    /// Every object of the kind, and of its subkinds.
    func fetchAll(_ source: some FetchableSource) throws -> [ManagedObject] {
        switch self {
        case .person: try source.fetchAll(From<RulePerson>())
        case .staff: try source.fetchAll(From<RuleStaff>())
        case .passport: try source.fetchAll(From<RulePassport>())
        case .pet: try source.fetchAll(From<RulePet>())
        case .car: try source.fetchAll(From<RuleCar>())
        case .club: try source.fetchAll(From<RuleClub>())
        case .vet: try source.fetchAll(From<RuleVet>())
        case .desk: try source.fetchAll(From<RuleDesk>())
        }
    }

    func create(in tx: BaseDataTransaction) -> ManagedObject {
        switch self {
        case .person: tx.create(Into<RulePerson>())
        case .staff: tx.create(Into<RuleStaff>())
        case .passport: tx.create(Into<RulePassport>())
        case .pet: tx.create(Into<RulePet>())
        case .car: tx.create(Into<RuleCar>())
        case .club: tx.create(Into<RuleClub>())
        case .vet: tx.create(Into<RuleVet>())
        case .desk: tx.create(Into<RuleDesk>())
        }
    }

    /// `deleteAll` of the kind's objects (and its subkinds') whose tags are in `tags`.
    func deleteAll(in tx: BaseDataTransaction, _ tags: Range<Int>) throws -> Int {
        let format = "tag >= %d AND tag < %d"
        return switch self {
        case .person: try tx.deleteAll(From<RulePerson>().where(Where(format, tags.lowerBound, tags.upperBound)))
        case .staff: try tx.deleteAll(From<RuleStaff>().where(Where(format, tags.lowerBound, tags.upperBound)))
        case .passport: try tx.deleteAll(From<RulePassport>().where(Where(format, tags.lowerBound, tags.upperBound)))
        case .pet: try tx.deleteAll(From<RulePet>().where(Where(format, tags.lowerBound, tags.upperBound)))
        case .car: try tx.deleteAll(From<RuleCar>().where(Where(format, tags.lowerBound, tags.upperBound)))
        case .club: try tx.deleteAll(From<RuleClub>().where(Where(format, tags.lowerBound, tags.upperBound)))
        case .vet: try tx.deleteAll(From<RuleVet>().where(Where(format, tags.lowerBound, tags.upperBound)))
        case .desk: try tx.deleteAll(From<RuleDesk>().where(Where(format, tags.lowerBound, tags.upperBound)))
        }
    }
}

/// One side of a relationship of the world: the links it reads are those
/// of `link`, from the side `forward` says.
struct RuleRole: Equatable, CustomStringConvertible {
    let link: Int
    let forward: Bool
    let entity: String
    let name: String
    let holders: Set<RuleKind>
    let partners: Set<RuleKind>
    let toOne: Bool
    let rule: DeleteRule
    var ordered = false

    var description: String { "\(entity).\(name)" }

    /// The world's roles; two with the same `link` are inverses.
    static let all: [RuleRole] = [
        RuleRole(link: 0, forward: true, entity: "Person", name: "passport", holders: RuleKind.people,
                 partners: [.passport], toOne: true, rule: .deny),
        RuleRole(link: 0, forward: false, entity: "Passport", name: "holder", holders: [.passport],
                 partners: RuleKind.people, toOne: true, rule: .nullify),
        RuleRole(link: 1, forward: true, entity: "Person", name: "pets", holders: RuleKind.people,
                 partners: [.pet], toOne: false, rule: .cascade),
        RuleRole(link: 1, forward: false, entity: "Pet", name: "owner", holders: [.pet],
                 partners: RuleKind.people, toOne: true, rule: .deny),
        RuleRole(link: 2, forward: true, entity: "Person", name: "cars", holders: RuleKind.people,
                 partners: [.car], toOne: false, rule: .deny, ordered: true),
        RuleRole(link: 2, forward: false, entity: "Car", name: "driver", holders: [.car],
                 partners: RuleKind.people, toOne: true, rule: .cascade),
        RuleRole(link: 3, forward: true, entity: "Person", name: "clubs", holders: RuleKind.people,
                 partners: [.club], toOne: false, rule: .nullify),
        RuleRole(link: 3, forward: false, entity: "Club", name: "members", holders: [.club],
                 partners: RuleKind.people, toOne: false, rule: .deny, ordered: true),
        RuleRole(link: 4, forward: true, entity: "Person", name: "mentor", holders: RuleKind.people,
                 partners: RuleKind.people, toOne: true, rule: .nullify),
        RuleRole(link: 4, forward: false, entity: "Person", name: "mentees", holders: RuleKind.people,
                 partners: RuleKind.people, toOne: false, rule: .deny),
        RuleRole(link: 5, forward: true, entity: "Pet", name: "vet", holders: [.pet],
                 partners: [.vet], toOne: true, rule: .deny),
        RuleRole(link: 6, forward: true, entity: "Staff", name: "desk", holders: [.staff],
                 partners: [.desk], toOne: true, rule: .cascade),
        RuleRole(link: 6, forward: false, entity: "Desk", name: "user", holders: [.desk],
                 partners: [.staff], toOne: true, rule: .deny),
    ]

    static let linkCount = 7

    var inverse: RuleRole? {
        RuleRole.all.first { $0.link == link && $0.forward != forward }
    }

    /// The role's objects, read from `object`.
    func read(_ object: ManagedObject) -> [ManagedObject] {
        switch (entity, name) {
        case ("Person", "passport"): [(object as! RulePerson).passport].compactMap { $0 }
        case ("Passport", "holder"): [(object as! RulePassport).holder].compactMap { $0 }
        case ("Person", "pets"): Array((object as! RulePerson).pets)
        case ("Pet", "owner"): [(object as! RulePet).owner].compactMap { $0 }
        case ("Person", "cars"): (object as! RulePerson).cars
        case ("Car", "driver"): [(object as! RuleCar).driver].compactMap { $0 }
        case ("Person", "clubs"): Array((object as! RulePerson).clubs)
        case ("Club", "members"): (object as! RuleClub).members
        case ("Person", "mentor"): [(object as! RulePerson).mentor].compactMap { $0 }
        case ("Person", "mentees"): Array((object as! RulePerson).mentees)
        case ("Pet", "vet"): [(object as! RulePet).vet].compactMap { $0 }
        case ("Staff", "desk"): [(object as! RuleStaff).desk].compactMap { $0 }
        case ("Desk", "user"): [(object as! RuleDesk).user].compactMap { $0 }
        default: fatalError("no role \(self)")
        }
    }

    /// Sets the role of `object` to `members` (a to-one: the first, or nil).
    func set(_ object: ManagedObject, to members: [ManagedObject]) {
        switch (entity, name) {
        case ("Person", "passport"): (object as! RulePerson).passport = members.first as! RulePassport?
        case ("Passport", "holder"): (object as! RulePassport).holder = members.first as! RulePerson?
        case ("Person", "pets"): (object as! RulePerson).pets = Set(members.map { $0 as! RulePet })
        case ("Pet", "owner"): (object as! RulePet).owner = members.first as! RulePerson?
        case ("Person", "cars"): (object as! RulePerson).cars = members.map { $0 as! RuleCar }
        case ("Car", "driver"): (object as! RuleCar).driver = members.first as! RulePerson?
        case ("Person", "clubs"): (object as! RulePerson).clubs = Set(members.map { $0 as! RuleClub })
        case ("Club", "members"): (object as! RuleClub).members = members.map { $0 as! RulePerson }
        case ("Person", "mentor"): (object as! RulePerson).mentor = members.first as! RulePerson?
        case ("Person", "mentees"): (object as! RulePerson).mentees = Set(members.map { $0 as! RulePerson })
        case ("Pet", "vet"): (object as! RulePet).vet = members.first as! RuleVet?
        case ("Staff", "desk"): (object as! RuleStaff).desk = members.first as! RuleDesk?
        case ("Desk", "user"): (object as! RuleDesk).user = members.first as! RuleStaff?
        default: fatalError("no role \(self)")
        }
    }
}
