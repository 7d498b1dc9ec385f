import Foundation
import Testing

@testable import Strata

/// CoreStore's monitors and list publishers are `Hashable` by identity
/// (`lhs === rhs`): an app keeps them in sets and dictionaries and compares
/// the one a callback receives with the one it holds.
@MainActor
@Suite("CoreStore parity: monitors and publishers compare by identity")
struct CoreStoreParityMonitorTests {
    @Test(arguments: StoreKind.sqlite)
    func aMonitorOrPublisherEqualsItselfOnly(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let (stack, ann, bob) = try makeObservedPeople(kind, in: directory)
        let query = From<ObsPerson>().orderBy(.ascending(\.$name))

        let lists = [try stack.monitorList(query), try stack.monitorList(query)]
        #expect(lists[0] == lists[0] && lists[0] != lists[1])
        #expect(Set(lists + lists).count == 2)

        let publishers = [try stack.publishList(query), try stack.publishList(query)]
        #expect(publishers[0] == publishers[0] && publishers[0] != publishers[1])
        #expect(Set(publishers + publishers).count == 2)

        let objects = [try stack.monitorObject(ann), try stack.monitorObject(ann), try stack.monitorObject(bob)]
        #expect(objects[0] == objects[0] && objects[0] != objects[1] && objects[1] != objects[2])
        #expect(Set(objects + objects).count == 3)
        var seen: [ObjectMonitor<ObsPerson>: String] = [:]
        for monitor in objects { seen[monitor] = monitor.object?.name }
        #expect(seen[objects[2]] == "Bob" && seen.count == 3)
    }
}
