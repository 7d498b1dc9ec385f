import Foundation
@testable import Strata
import Testing

/// The fuzz test's reads and watches, and the check after every step that
/// everything the stack shows is what the model holds.
extension FuzzRun {
    func reads() throws {
        action = "reads"
        for _ in 0..<3 {
            let query = FuzzQueries.petQuery(&random, window: true)
            let expected = query.rows(in: state, of: state.pets.keys)
            let fetched = try stack.fetchAll(query.from)
            expect(fetched.map(\.rowID) == expected, "pets \(query): fetched \(fetched.map(\.rowID)), the model \(expected)")
            for pet in fetched { compare(pet, with: state, "a fetched pet") }
            let ids = try stack.fetchObjectIDs(query.from).map(\.rowID)
            expect(ids == expected, "pet IDs \(query): \(ids), the model \(expected)")
            let count = try stack.fetchCount(query.from)
            expect(count == expected.count, "pet count \(query): \(count), the model \(expected.count)")
        }
        for _ in 0..<2 {
            let query = FuzzQueries.ownerQuery(&random, window: true)
            let expected = query.rows(in: state, of: state.owners.keys)
            let fetched = try stack.fetchAll(query.from)
            expect(fetched.map(\.rowID) == expected, "owners \(query): fetched \(fetched.map(\.rowID)), the model \(expected)")
            let count = try stack.fetchCount(query.from)
            expect(count == expected.count, "owner count \(query): \(count), the model \(expected.count)")
        }
    }

    func watchList() throws {
        let sectioned = draw(3) == 0
        if draw(3) > 0 {
            action = "watch a pet list"
            if petLists.count >= 5 { petLists.removeFirst() }
            let query = FuzzQueries.petQuery(&random, window: true)
            let monitor = sectioned
                ? try stack.monitorList(query.from.sectionBy(\.$name)) : try stack.monitorList(query.from)
            petLists.append(FuzzListWatch(
                monitor: monitor, checker: ReplayChecker(monitor), query: query, sectionedByName: sectioned))
        } else {
            action = "watch an owner list"
            if ownerLists.count >= 3 { ownerLists.removeFirst() }
            let query = FuzzQueries.ownerQuery(&random, window: true)
            let monitor = sectioned
                ? try stack.monitorList(query.from.sectionBy(\.$name)) : try stack.monitorList(query.from)
            ownerLists.append(FuzzListWatch(
                monitor: monitor, checker: ReplayChecker(monitor), query: query, sectionedByName: sectioned))
        }
    }

    func watchObject() throws {
        if draw(2) == 0, let id = state.pets.keys.sorted().randomElement(using: &random) {
            action = "watch pet #\(id)"
            if pets.count >= 8 { pets.removeFirst() }
            let object = try #require(try stack.fetchExisting(ObjectID<FuzzPet>(entityName: "FuzzPet", rowID: id)))
            let events = FuzzObjectEvents<FuzzPet>()
            let monitor = try stack.monitorObject(object)
            monitor.addObserver(events)
            pets.append(FuzzWatch(rowID: id, monitor: monitor, events: events, held: nil))
        } else if let id = state.owners.keys.sorted().randomElement(using: &random) {
            action = "watch owner #\(id)"
            if owners.count >= 8 { owners.removeFirst() }
            let object = try #require(try stack.fetchExisting(ObjectID<FuzzOwner>(entityName: "FuzzOwner", rowID: id)))
            let events = FuzzObjectEvents<FuzzOwner>()
            let monitor = try stack.monitorObject(object)
            monitor.addObserver(events)
            owners.append(FuzzWatch(rowID: id, monitor: monitor, events: events, held: nil))
        }
    }

    /// Keeps a few objects fetched now, to check later that they follow.
    func holdObjects() throws {
        action = "hold objects"
        for id in state.pets.keys.sorted().shuffled(using: &random).prefix(2) {
            let pet = try #require(try stack.fetchExisting(ObjectID<FuzzPet>(entityName: "FuzzPet", rowID: id)))
            pets.append(FuzzWatch(rowID: id, monitor: nil, events: nil, held: pet))
        }
        for id in state.owners.keys.sorted().shuffled(using: &random).prefix(2) {
            let owner = try #require(try stack.fetchExisting(ObjectID<FuzzOwner>(entityName: "FuzzOwner", rowID: id)))
            owners.append(FuzzWatch(rowID: id, monitor: nil, events: nil, held: owner))
        }
        if pets.count > 12 { pets.removeFirst(pets.count - 12) }
        if owners.count > 12 { owners.removeFirst(owners.count - 12) }
    }

    func check() throws {
        compareStore(stack, with: state, "the stack")
        for list in petLists {
            try check(list, ids: state.pets.keys, name: { self.state.pets[$0]!.name })
        }
        for list in ownerLists {
            try check(list, ids: state.owners.keys, name: { self.state.owners[$0]!.name })
        }
        for index in pets.indices {
            if state.pets[pets[index].rowID] == nil { pets[index].gone = true }
            check(pets[index]) { compare($0, with: state, $1) }
        }
        for index in owners.indices {
            if state.owners[owners[index].rowID] == nil { owners[index].gone = true }
            check(owners[index]) { compare($0, with: state, $1) }
        }
    }

    private func check<Object: ManagedObject>(
        _ list: FuzzListWatch<Object>, ids: some Sequence<Int64>, name: @escaping (Int64) -> String
    ) throws {
        var query = list.query
        if list.sectionedByName { query.modelKeys.insert((key: { _, id in FuzzKey.text(name(id)) }, ascending: true), at: 0) }
        let expected = query.rows(in: state, of: ids)
        let label = "\(list.sectionedByName ? "sectioned " : "")\(Object.self) list \(list.query)"
        let shown = list.monitor.objectsInAllSections().map(\.rowID)
        expect(shown == expected, "\(label) shows \(shown), the model \(expected)")
        let fresh = try stack.fetchAll(list.query.from.ordered(by: list.monitor.orderForFetch)).map(\.rowID)
        expect(fresh == expected, "\(label): a fresh fetch gives \(fresh), the model \(expected)")
        expect(list.checker.failures.isEmpty, "\(label): \(list.checker.failures)")
        list.monitor.members.checkInvariants()
        if list.sectionedByName {
            var runs: [String] = []
            for id in expected where runs.last != name(id) { runs.append(name(id)) }
            expect(list.monitor.sectionNames() == runs, "\(label) has sections \(list.monitor.sectionNames()), the model \(runs)")
        }
    }

    private func check<Object: ManagedObject>(_ watch: FuzzWatch<Object>, compare: (Object, String) -> Void) {
        let label = "\(Object.self) #\(watch.rowID)"
        if let monitor = watch.monitor, let events = watch.events {
            expect((monitor.object == nil) == watch.gone, "the monitor of \(label) has object \(monitor.object != nil), gone \(watch.gone)")
            expect(events.deleted == (watch.gone ? 1 : 0), "the monitor of \(label) reported \(events.deleted) deletions, gone \(watch.gone)")
            if let object = monitor.object { compare(object, "the monitored \(label)") }
        }
        if let held = watch.held {
            expect(held.isDeletedObject == watch.gone, "held \(label) is deleted \(held.isDeletedObject), gone \(watch.gone)")
            if !watch.gone && !held.isDeletedObject { compare(held, "held \(label)") }
        }
    }

    /// Every object `stack` holds is one of the model, with its fields and links.
    func compareStore(_ stack: DataStack, with state: FuzzState, _ label: String) {
        do {
            let pets = try stack.fetchAll(From<FuzzPet>())
            expect(Set(pets.map(\.rowID)) == Set(state.pets.keys),
                   "\(label) holds pets \(pets.map(\.rowID).sorted()), the model \(state.pets.keys.sorted())")
            for pet in pets { compare(pet, with: state, label) }
            let owners = try stack.fetchAll(From<FuzzOwner>())
            expect(Set(owners.map(\.rowID)) == Set(state.owners.keys),
                   "\(label) holds owners \(owners.map(\.rowID).sorted()), the model \(state.owners.keys.sorted())")
            for owner in owners { compare(owner, with: state, label) }
            let tags = try stack.fetchAll(From<FuzzTag>())
            expect(Set(tags.map(\.rowID)) == Set(state.tags.keys),
                   "\(label) holds tags \(tags.map(\.rowID).sorted()), the model \(state.tags.keys.sorted())")
            for tag in tags {
                let actual = FuzzState.Tag(rank: tag.rank, owners: Set(tag.owners.map(\.rowID)))
                expect(state.tags[tag.rowID] == actual, "\(label): tag #\(tag.rowID) is \(actual), the model \(String(describing: state.tags[tag.rowID]))")
            }
            let vaults = try stack.fetchAll(From<FuzzVault>())
            expect(Set(vaults.map(\.rowID)) == Set(state.vaults.keys),
                   "\(label) holds vaults \(vaults.map(\.rowID).sorted()), the model \(state.vaults.keys.sorted())")
            for vault in vaults {
                let actual = FuzzState.Vault(rank: vault.rank, keeper: vault.keeper?.rowID)
                expect(state.vaults[vault.rowID] == actual, "\(label): vault #\(vault.rowID) is \(actual), the model \(String(describing: state.vaults[vault.rowID]))")
            }
        } catch {
            expect(false, "\(label): reading everything threw \(error)")
        }
    }

    func compare(_ pet: FuzzPet, with state: FuzzState, _ label: String) {
        let actual = FuzzState.Pet(name: pet.name, rank: pet.rank, owner: pet.owner?.rowID)
        expect(state.pets[pet.rowID] == actual, "\(label): pet #\(pet.rowID) is \(actual), the model \(String(describing: state.pets[pet.rowID]))")
    }

    func compare(_ owner: FuzzOwner, with state: FuzzState, _ label: String) {
        let actual = FuzzState.Owner(name: owner.name, rank: owner.rank, code: owner.code)
        expect(state.owners[owner.rowID] == actual, "\(label): owner #\(owner.rowID) is \(actual), the model \(String(describing: state.owners[owner.rowID]))")
        let links = (pets: Set(owner.pets.map(\.rowID)), tags: Set(owner.tags.map(\.rowID)), vaults: Set(owner.vaults.map(\.rowID)))
        expect(links.pets == state.pets(of: owner.rowID), "\(label): owner #\(owner.rowID) has pets \(links.pets.sorted()), the model \(state.pets(of: owner.rowID).sorted())")
        expect(links.tags == state.tags(of: owner.rowID), "\(label): owner #\(owner.rowID) has tags \(links.tags.sorted()), the model \(state.tags(of: owner.rowID).sorted())")
        expect(links.vaults == state.vaults(of: owner.rowID), "\(label): owner #\(owner.rowID) has vaults \(links.vaults.sorted()), the model \(state.vaults(of: owner.rowID).sorted())")
    }
}
