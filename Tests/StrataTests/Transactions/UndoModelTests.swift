import Strata
import Testing

/// Transactions.md, Rule 12a: random edits, creations, deletions
/// (with cascade and nullify rules), relationship changes on both sides,
/// flushes, commits, undos, redos and rollbacks, each followed by a check of
/// the transaction's reads — and after a commit the main context's —
/// against a plain model with undo and redo stacks of whole states.
@Suite("Unsafe transactions: undo and redo against a model")
struct UndoModelTests {
    @Test(arguments: StoreKind.allCases)
    @MainActor
    func randomWorkloadsMatchTheModel(_ kind: StoreKind) throws {
        var random = SplitMix64.random()
        let steps = kind == .postgreSQL ? 200 : 800
        let directory = TemporaryDirectory()
        let stack = try makeStack(undoSchema, kind, in: directory)
        var run = UndoModelRun(stack: stack, tx: try stack.beginUnsafe(supportsUndo: true))
        // A second stack on the same store follows the commits through the
        // log: undone creations must reach it as deletions, undone
        // deletions as insertions with their IDs.
        if kind != .inMemory { run.follower = try makeStack(undoSchema, kind, in: directory) }
        var actions: [String] = []
        for step in 0..<steps {
            // Relationship reads and fetches flush; checking without them at
            // some steps leaves unwritten changes for the next steps to undo.
            let reading = Bool.random(using: &random)
            let mismatches: [String]
            do {
                actions.append(try run.step(&random))
                mismatches = try run.mismatches(reading: reading)
            } catch {
                mismatches = ["\(error)"]
            }
            #expect(
                mismatches.isEmpty,
                "seed \(random.seed) (STRATA_TEST_SEED), step \(step): \(mismatches), after \(actions)")
            if !mismatches.isEmpty { break }
        }
    }
}

@MainActor
struct UndoModelRun {
    let stack: DataStack
    let tx: UnsafeDataTransaction
    var follower: DataStack?
    var model = UndoModel()
    var people: [UndoPerson] = []
    var pets: [UndoPet] = []
    var clubs: [UndoClub] = []

    init(stack: DataStack, tx: UnsafeDataTransaction) {
        self.stack = stack
        self.tx = tx
    }

    /// Does one random thing to the transaction and the model alike; returns what.
    mutating func step(_ random: inout SplitMix64) throws -> String {
        func pick(_ keys: some Collection<Int>) -> Int? {
            keys.isEmpty ? nil : keys.sorted()[Int.random(in: 0..<keys.count, using: &random)]
        }
        func subset(_ keys: some Collection<Int>) -> [Int] {
            keys.sorted().filter { _ in Bool.random(using: &random) }.shuffled(using: &random)
        }
        let state = model.current
        let name = "n\(Int.random(in: 0..<4, using: &random))"
        let roll = Int.random(in: 0..<100, using: &random)
        // Relationship changes and deletions read, and a read flushes, which
        // a pending invalid value fails (the change is then not made).
        if state.holdsInvalidValue, (22..<25).contains(roll) || (29..<69).contains(roll) {
            return "nothing (an invalid value is pending)"
        }
        switch roll {
        case 0..<6:
            people.append(tx.create(Into<UndoPerson>()))
            people.last!.name = name
            let index = people.count - 1
            model.change { $0.people[index] = .init(name: name) }
            return "create person \(index)"
        case 6..<12:
            pets.append(tx.create(Into<UndoPet>()))
            let index = pets.count - 1
            model.change { $0.pets[index] = .init() }
            return "create pet \(index)"
        case 12..<15:
            clubs.append(tx.create(Into<UndoClub>()))
            let index = clubs.count - 1
            model.change { $0.clubs[index] = .init() }
            return "create club \(index)"
        case 15..<22:
            guard let person = pick(state.people.keys) else { return "nothing" }
            let age = Int.random(in: 0..<3, using: &random)
            people[person].name = name
            people[person].age = age
            model.change {
                $0.people[person]!.name = name
                $0.people[person]!.age = age
            }
            return "person \(person) named \(name), aged \(age)"
        case 25..<27:
            guard let pet = pick(state.pets.keys) else { return "nothing" }
            switch Int.random(in: 0..<4, using: &random) {
            case 0:
                pets[pet].weight = .nan
                model.change {
                    $0.pets[pet]!.weight = nil
                    $0.pets[pet]!.invalidAssignments += 1
                }
                return "pet \(pet) weighs NaN"
            case 1:
                let weight = Int.random(in: 0..<2, using: &random)
                pets[pet].weight = Double(weight)
                model.change { $0.pets[pet]!.weight = weight }
                return "pet \(pet) weighs \(weight)"
            default:
                pets[pet].name = name
                model.change { $0.pets[pet]!.name = name }
                return "pet \(pet) named \(name)"
            }
        case 27..<29:
            guard let club = pick(state.clubs.keys) else { return "nothing" }
            clubs[club].title = name
            model.change { $0.clubs[club]!.title = name }
            return "club \(club) titled \(name)"
        case 29..<35:
            guard let pet = pick(state.pets.keys) else { return "nothing" }
            let owner = Bool.random(using: &random) ? pick(state.people.keys) : nil
            pets[pet].owner = owner.map { people[$0] }
            model.change { $0.pets[pet]!.owner = owner }
            return "pet \(pet) owned by \(owner.map(String.init) ?? "nobody")"
        case 35..<40:
            guard let person = pick(state.people.keys) else { return "nothing" }
            let owned = subset(state.pets.keys)
            people[person].pets = Set(owned.map { pets[$0] })
            model.change { model in
                for pet in model.pets.keys {
                    if owned.contains(pet) {
                        model.pets[pet]!.owner = person
                    } else if model.pets[pet]!.owner == person {
                        model.pets[pet]!.owner = nil
                    }
                }
            }
            return "person \(person) owns \(owned.sorted())"
        case 40..<45:
            guard let person = pick(state.people.keys) else { return "nothing" }
            let queue = subset(state.pets.keys)
            people[person].queue = queue.map { pets[$0] }
            model.change { $0.setQueue(of: person, to: queue) }
            return "person \(person) queues \(queue)"
        case 45..<50:
            guard let pet = pick(state.pets.keys) else { return "nothing" }
            let person = Bool.random(using: &random) ? pick(state.people.keys) : nil
            pets[pet].queuedAt = person.map { people[$0] }
            model.change { model in
                guard model.queuedAt(pet) != person else { return }
                for other in model.people.keys { model.people[other]!.queue.removeAll { $0 == pet } }
                if let person { model.people[person]!.queue.append(pet) }
            }
            return "pet \(pet) queued at \(person.map(String.init) ?? "nobody")"
        case 50..<54:
            guard let club = pick(state.clubs.keys) else { return "nothing" }
            let members = subset(state.people.keys)
            clubs[club].members = Set(members.map { people[$0] })
            model.change { $0.clubs[club]!.members = Set(members) }
            return "club \(club) has members \(members.sorted())"
        case 54..<55:
            guard let person = pick(state.people.keys) else { return "nothing" }
            let joined = subset(state.clubs.keys)
            people[person].clubs = Set(joined.map { clubs[$0] })
            model.change { model in
                for club in model.clubs.keys {
                    if joined.contains(club) {
                        model.clubs[club]!.members.insert(person)
                    } else {
                        model.clubs[club]!.members.remove(person)
                    }
                }
            }
            return "person \(person) joins \(joined.sorted())"
        case 55..<57:
            guard let person = pick(state.people.keys) else { return "nothing" }
            let pet = Bool.random(using: &random) ? pick(state.pets.keys) : nil
            people[person].partner = pet.map { pets[$0] }
            model.change { $0.pair(person, pet) }
            return "person \(person) paired with \(pet.map(String.init) ?? "nobody")"
        case 57..<59:
            guard let pet = pick(state.pets.keys) else { return "nothing" }
            let person = Bool.random(using: &random) ? pick(state.people.keys) : nil
            pets[pet].buddy = person.map { people[$0] }
            model.change { model in
                if let person { model.pair(person, pet) } else { model.pair(nil, pet) }
            }
            return "pet \(pet) paired with \(person.map(String.init) ?? "nobody")"
        case 59..<60:
            guard let club = pick(state.clubs.keys) else { return "nothing" }
            let ranking = subset(state.people.keys)
            clubs[club].ranking = ranking.map { people[$0] }
            model.change { $0.clubs[club]!.ranking = ranking }
            return "club \(club) ranks \(ranking)"
        case 22..<25, 60..<61:
            if Bool.random(using: &random) {
                guard let club = pick(state.clubs.keys) else { return "nothing" }
                let lineup = subset(state.people.keys)
                clubs[club].lineup = lineup.map { people[$0] }
                model.change { $0.setLineup(of: club, to: lineup) }
                return "club \(club) lines up \(lineup)"
            }
            guard let person = pick(state.people.keys) else { return "nothing" }
            let lineups = subset(state.clubs.keys)
            people[person].lineups = lineups.map { clubs[$0] }
            model.change { $0.setLineups(of: person, to: lineups) }
            return "person \(person) lines up in \(lineups)"
        case 61..<64:
            guard let person = pick(state.people.keys) else { return "nothing" }
            tx.delete(people[person])
            model.change { $0.deletePerson(person) }
            return "delete person \(person)"
        case 64..<67:
            guard let pet = pick(state.pets.keys) else { return "nothing" }
            tx.delete(pets[pet])
            model.change { $0.deletePet(pet) }
            return "delete pet \(pet)"
        case 67..<69:
            guard let club = pick(state.clubs.keys) else { return "nothing" }
            tx.delete(clubs[club])
            model.change { $0.deleteClub(club) }
            return "delete club \(club)"
        case 69..<76:
            // The group ends even when the flush refuses an invalid value.
            if state.holdsInvalidValue {
                #expect(throws: StrataError.self) { try tx.flush() }
                model.endGroup()
                return "flush (refused)"
            }
            try tx.flush()
            model.endGroup()
            return "flush"
        case 76..<81:
            // A refused commit rolls back, and ends the history.
            if state.holdsInvalidValue {
                #expect(throws: StrataError.self) { try tx.commitAndWait() }
                model.rollback()
                return "commit (refused)"
            }
            try tx.commitAndWait()
            model.commit()
            return "commit"
        case 81..<92:
            tx.undo()
            model.undo()
            return "undo"
        case 92..<99:
            tx.redo()
            model.redo()
            return "redo"
        default:
            tx.rollback()
            model.rollback()
            return "rollback"
        }
    }

    /// Where the transaction (and, once nothing is pending, the main
    /// context) disagrees with the model; empty when they agree. Without
    /// `reading`, only what reads nothing from the store: which objects
    /// exist, their fields, and the stacks.
    func mismatches(reading: Bool) throws -> [String] {
        var found: [String] = []
        let state = model.current
        func expect(_ condition: Bool, _ what: @autoclosure () -> String) {
            if !condition { found.append(what()) }
        }
        let peopleIndex = Dictionary(uniqueKeysWithValues: people.enumerated().map { (ObjectIdentifier($1), $0) })
        let petIndex = Dictionary(uniqueKeysWithValues: pets.enumerated().map { (ObjectIdentifier($1), $0) })
        let clubIndex = Dictionary(uniqueKeysWithValues: clubs.enumerated().map { (ObjectIdentifier($1), $0) })
        func indices(_ objects: some Sequence<ManagedObject>, _ index: [ObjectIdentifier: Int]) -> [Int] {
            objects.map { index[ObjectIdentifier($0)] ?? -1 }
        }

        expect(tx.canUndo == model.canUndo, "canUndo \(tx.canUndo)")
        expect(tx.canRedo == model.canRedo, "canRedo \(tx.canRedo)")
        // (An invalid value alone is no change `hasChanges` sees: its object's values are as they were.)
        if state != model.committed, !state.holdsInvalidValue {
            expect(tx.hasChanges, "hasChanges false with changes")
        }
        for (index, person) in people.enumerated() {
            guard let expected = state.people[index] else {
                expect(person.isDeletedObject, "person \(index) exists")
                continue
            }
            expect(!person.isDeletedObject, "person \(index) deleted")
            expect(person.name == expected.name && person.age == expected.age, "person \(index) fields")
            guard reading, !state.holdsInvalidValue else { continue }
            expect(Set(indices(person.pets, petIndex)) == state.pets(of: index), "person \(index) pets")
            expect(indices(person.queue, petIndex) == expected.queue, "person \(index) queue")
            expect(Set(indices(person.clubs, clubIndex)) == state.clubs(of: index), "person \(index) clubs")
            expect(
                person.partner.flatMap { petIndex[ObjectIdentifier($0)] } == expected.partner,
                "person \(index) partner")
            expect(indices(person.lineups, clubIndex) == expected.lineups, "person \(index) lineups")
        }
        for (index, pet) in pets.enumerated() {
            guard let expected = state.pets[index] else {
                expect(pet.isDeletedObject, "pet \(index) exists")
                continue
            }
            expect(!pet.isDeletedObject && pet.name == expected.name, "pet \(index)")
            expect(
                expected.weight.map { pet.weight == Double($0) } ?? pet.weight.isNaN,
                "pet \(index) weighs \(pet.weight), not \(expected.weight.map(String.init) ?? "NaN")")
            // Every read flushes, which an invalid value fails.
            guard reading, !state.holdsInvalidValue else { continue }
            expect(pet.owner.flatMap { peopleIndex[ObjectIdentifier($0)] } == expected.owner, "pet \(index) owner")
            expect(
                pet.queuedAt.flatMap { peopleIndex[ObjectIdentifier($0)] } == state.queuedAt(index),
                "pet \(index) queuedAt")
            expect(pet.buddy.flatMap { peopleIndex[ObjectIdentifier($0)] } == state.buddy(of: index), "pet \(index) buddy")
        }
        for (index, club) in clubs.enumerated() {
            guard let expected = state.clubs[index] else {
                expect(club.isDeletedObject, "club \(index) exists")
                continue
            }
            expect(!club.isDeletedObject && club.title == expected.title, "club \(index)")
            guard reading, !state.holdsInvalidValue else { continue }
            expect(Set(indices(club.members, peopleIndex)) == expected.members, "club \(index) members")
            expect(indices(club.ranking, peopleIndex) == expected.ranking, "club \(index) ranking")
            expect(indices(club.lineup, peopleIndex) == expected.lineup, "club \(index) lineup")
        }
        guard reading, !state.holdsInvalidValue else { return found }
        expect(
            Set(indices(try tx.fetchAll(From<UndoPerson>()), peopleIndex)) == Set(state.people.keys),
            "fetched people")
        let fetchedPets = Set(indices(try tx.fetchAll(From<UndoPet>()), petIndex))
        expect(fetchedPets == Set(state.pets.keys), "fetched pets \(fetchedPets.sorted()) of \(state.pets.keys.sorted())")
        expect(try tx.fetchCount(From<UndoClub>()) == state.clubs.count, "club count")
        if state == model.committed {
            found += try mainContextMismatches(of: stack)
            if let follower { found += try mainContextMismatches(of: follower).map { "follower: " + $0 } }
        }
        return found
    }

    /// Where the main context's reads of `stack` disagree with the committed model.
    private func mainContextMismatches(of stack: DataStack) throws -> [String] {
        var found: [String] = []
        let state = model.committed
        // By the objects that exist: a rollback gives the IDs of the objects it
        // discards to the next ones created.
        let personIDs = Dictionary(uniqueKeysWithValues: state.people.keys.map { (people[$0].objectID, $0) })
        let petIDs = Dictionary(uniqueKeysWithValues: state.pets.keys.map { (pets[$0].objectID, $0) })
        let clubIDs = Dictionary(uniqueKeysWithValues: state.clubs.keys.map { (clubs[$0].objectID, $0) })
        let shownPeople = try stack.fetchAll(From<UndoPerson>())
        if Set(shownPeople.compactMap { personIDs[$0.objectID] }) != Set(state.people.keys) {
            found.append("main context people")
        }
        for person in shownPeople {
            guard let index = personIDs[person.objectID], let expected = state.people[index] else { continue }
            if person.name != expected.name || person.age != expected.age
                || person.queue.compactMap({ petIDs[$0.objectID] }) != expected.queue
                || Set(person.pets.compactMap { petIDs[$0.objectID] }) != state.pets(of: index)
                || person.partner.flatMap({ petIDs[$0.objectID] }) != expected.partner
            {
                found.append(
                    "main context person \(index): \(person.name) \(person.age) "
                        + "queue \(person.queue.map { petIDs[$0.objectID] ?? -1 }) "
                        + "pets \(person.pets.map { petIDs[$0.objectID] ?? -1 }.sorted()), expected "
                        + "\(expected) pets \(state.pets(of: index).sorted())")
            }
        }
        let shownPets = try stack.fetchAll(From<UndoPet>())
        if Set(shownPets.compactMap { petIDs[$0.objectID] }) != Set(state.pets.keys) {
            found.append("main context pets")
        }
        for club in try stack.fetchAll(From<UndoClub>()) {
            guard let index = clubIDs[club.objectID], let expected = state.clubs[index] else {
                found.append("main context club")
                continue
            }
            if Set(club.members.compactMap { personIDs[$0.objectID] }) != expected.members
                || club.ranking.compactMap({ personIDs[$0.objectID] }) != expected.ranking
                || club.lineup.compactMap({ personIDs[$0.objectID] }) != expected.lineup
            {
                found.append("main context club \(index)")
            }
        }
        return found
    }
}
