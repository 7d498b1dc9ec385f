import Strata

// The models of the undo tests (UndoTests, UndoModelTests), and the plain
// Swift model the random workloads are checked against.

final class UndoPerson: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("age") var age: Int = 0
    @Field.Relationship("pets", inverse: \UndoPet.$owner, deleteRule: .cascade)
    var pets: Set<UndoPet>
    @Field.Relationship("queue", inverse: \UndoPet.$queuedAt) var queue: [UndoPet]
    @Field.Relationship("clubs", inverse: \UndoClub.$members) var clubs: Set<UndoClub>
    /// One-to-one: both sides keep a key.
    @Field.Relationship("partner", inverse: \UndoPet.$buddy) var partner: UndoPet?
    /// Ordered on both sides: a link row keeps a position for each.
    @Field.Relationship("lineups", inverse: \UndoClub.$lineup) var lineups: [UndoClub]
}

final class UndoPet: ManagedObject {
    @Field.Stored("name") var name: String = ""
    /// Set to NaN by the tests of invalid values, which only a flush refuses.
    @Field.Stored("weight") var weight: Double = 0
    @Field.Relationship("owner") var owner: UndoPerson?
    @Field.Relationship("queuedAt") var queuedAt: UndoPerson?
    @Field.Relationship("buddy") var buddy: UndoPerson?
}

final class UndoClub: ManagedObject {
    @Field.Stored("title") var title: String = ""
    @Field.Relationship("members") var members: Set<UndoPerson>
    /// Ordered, many-to-many, without inverse: a deleted person leaves it
    /// by the clearing of incoming references.
    @Field.Relationship("ranking") var ranking: [UndoPerson]
    @Field.Relationship("lineup") var lineup: [UndoPerson]
}

let undoSchema = Schema("U1", entities: [
    Entity<UndoPerson>("UndoPerson"), Entity<UndoPet>("UndoPet"), Entity<UndoClub>("UndoClub"),
])

/// What the transaction should show, in plain Swift: objects by their
/// index in the order they were created; relationships stored once (a
/// pet's owner, a person's queue, a club's members and ranking), the other
/// sides derived.
struct UndoModelState: Equatable {
    struct Person: Equatable {
        var name = ""
        var age = 0
        var queue: [Int] = []
        var partner: Int?
        var lineups: [Int] = []
    }
    struct Pet: Equatable {
        var name = ""
        var owner: Int?
        /// The weight, `nil` for NaN: a value only a flush refuses.
        var weight: Int? = 0
        /// How many times NaN was assigned: each is a change (NaN equals nothing).
        var invalidAssignments = 0
    }
    struct Club: Equatable {
        var title = ""
        var members: Set<Int> = []
        var ranking: [Int] = []
        var lineup: [Int] = []
    }

    var people: [Int: Person] = [:]
    var pets: [Int: Pet] = [:]
    var clubs: [Int: Club] = [:]

    /// Whether an existing pet holds NaN, which fails every flush and commit.
    var holdsInvalidValue: Bool { pets.values.contains { $0.weight == nil } }

    func pets(of person: Int) -> Set<Int> { Set(pets.filter { $0.value.owner == person }.keys) }
    func queuedAt(_ pet: Int) -> Int? { people.first { $0.value.queue.contains(pet) }?.key }
    func clubs(of person: Int) -> Set<Int> { Set(clubs.filter { $0.value.members.contains(person) }.keys) }
    func buddy(of pet: Int) -> Int? { people.first { $0.value.partner == pet }?.key }

    /// Pairs `person` with `pet`, or unpairs whichever is given, one to one.
    mutating func pair(_ person: Int?, _ pet: Int?) {
        for other in people.keys where pet != nil && people[other]!.partner == pet { people[other]!.partner = nil }
        if let person { people[person]!.partner = pet }
    }

    mutating func setQueue(of person: Int, to queue: [Int]) {
        for other in people.keys where other != person {
            people[other]!.queue.removeAll { queue.contains($0) }
        }
        people[person]!.queue = queue
    }

    /// Sets a club's lineup: a person it gains puts the club last in theirs.
    mutating func setLineup(of club: Int, to lineup: [Int]) {
        for person in clubs[club]!.lineup where !lineup.contains(person) {
            people[person]!.lineups.removeAll { $0 == club }
        }
        for person in lineup where !clubs[club]!.lineup.contains(person) {
            people[person]!.lineups.append(club)
        }
        clubs[club]!.lineup = lineup
    }

    /// Sets a person's lineups: a club it gains puts the person last in its lineup.
    mutating func setLineups(of person: Int, to lineups: [Int]) {
        for club in people[person]!.lineups where !lineups.contains(club) {
            clubs[club]!.lineup.removeAll { $0 == person }
        }
        for club in lineups where !people[person]!.lineups.contains(club) {
            clubs[club]!.lineup.append(person)
        }
        people[person]!.lineups = lineups
    }

    mutating func deleteClub(_ club: Int) {
        clubs[club] = nil
        for person in people.keys { people[person]!.lineups.removeAll { $0 == club } }
    }

    mutating func deletePerson(_ person: Int) {
        people[person] = nil
        for pet in pets(of: person) { deletePet(pet) }
        for club in clubs.keys {
            clubs[club]!.members.remove(person)
            clubs[club]!.ranking.removeAll { $0 == person }
            clubs[club]!.lineup.removeAll { $0 == person }
        }
        for pet in pets.keys where pets[pet]!.owner == person { pets[pet]!.owner = nil }
    }

    mutating func deletePet(_ pet: Int) {
        pets[pet] = nil
        for person in people.keys { people[person]!.queue.removeAll { $0 == pet } }
        pair(nil, pet)
    }
}

/// The model's undo and redo stacks: whole states, a group's start kept
/// when its first change comes.
struct UndoModel {
    var current = UndoModelState()
    var committed = UndoModelState()
    var groupStart: UndoModelState?
    var undoStack: [UndoModelState] = []
    var redoStack: [UndoModelState] = []

    var canUndo: Bool { groupStart != nil || !undoStack.isEmpty }
    var canRedo: Bool { !redoStack.isEmpty }

    /// Applies a change; a change that changes nothing opens no group.
    mutating func change(_ body: (inout UndoModelState) -> Void) {
        var next = current
        body(&next)
        guard next != current else { return }
        if groupStart == nil {
            groupStart = current
            redoStack.removeAll()
        }
        current = next
    }

    mutating func endGroup() {
        if let groupStart { undoStack.append(groupStart) }
        groupStart = nil
    }

    mutating func undo() {
        endGroup()
        guard let state = undoStack.popLast() else { return }
        redoStack.append(current)
        current = state
    }

    mutating func redo() {
        guard let state = redoStack.popLast() else { return }
        undoStack.append(current)
        current = state
    }

    mutating func commit() {
        endGroup()
        committed = current
    }

    mutating func rollback() {
        current = committed
        groupStart = nil
        undoStack.removeAll()
        redoStack.removeAll()
    }
}

/// Both sides deny: deleting a team and its players, the commit removes the
/// link rows between them, which no delete rule did.
final class UndoTeam: ManagedObject {
    @Field.Relationship("players", inverse: \UndoPlayer.$teams, deleteRule: .deny)
    var players: Set<UndoPlayer>
}

final class UndoPlayer: ManagedObject {
    @Field.Relationship("teams", deleteRule: .deny) var teams: Set<UndoTeam>
}

let undoDenySchema = Schema("UD1", entities: [Entity<UndoTeam>("UndoTeam"), Entity<UndoPlayer>("UndoPlayer")])
