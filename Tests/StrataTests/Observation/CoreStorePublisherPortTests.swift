import Foundation
import Testing

@testable import Strata

/// Runs CoreStore's `perform(asynchronous:success:failure:)` and waits for
/// its completion: the value `body` returned (`tx.hasChanges` in CoreStore's
/// tests), `nil` after a failure, which it records. No deadline: on a loaded
/// machine the completion comes late, not never; one that never comes is a
/// hang, which CI's watch reports by name.
@MainActor
func portCommit<Result: Sendable>(
    _ stack: DataStack, _ body: @escaping @Sendable (AsynchronousDataTransaction) throws -> Result
) async throws -> Result? {
    let outcome = PortOutcome<Result>()
    stack.perform(
        asynchronous: body,
        success: { value in outcome.finish(value: value, error: nil) },
        failure: { error in outcome.finish(value: nil, error: error) })
    await outcome.completion()
    #expect(outcome.error == nil, "the transaction failed")
    return outcome.value
}

/// What a ``portCommit(_:_:)`` completion delivered.
@MainActor
final class PortOutcome<Value> {
    private(set) var value: Value?
    private(set) var error: StrataError?
    private var done = false
    private var waiter: CheckedContinuation<Void, Never>?

    /// Keeps what the completion delivered and resumes its waiter.
    func finish(value: Value?, error: StrataError?) {
        #expect(!done, "a completion ran twice")
        self.value = value
        self.error = error
        done = true
        waiter?.resume()
        waiter = nil
    }

    /// Returns once a completion has run.
    func completion() async {
        guard !done else { return }
        await withCheckedContinuation { waiter = $0 }
    }
}

/// Counts a publisher's closure calls and keeps what the closure read from
/// the publisher at each call, as CoreStore's tests assert inside it.
@MainActor
final class PortPublisherLog<Reading> {
    var readings: [Reading] = []
}

/// CoreStore's `ListPublisherTests`, ported: the same list as its
/// `ListObserverTests`, published as snapshots of IDs. CoreStore calls the
/// closure once per commit and expects exactly one call; so does the port.
@MainActor
@Suite("CoreStore port: ListPublisherTests")
struct CoreStoreListPublisherPortTests {
    /// What CoreStore's closures read from the snapshot.
    struct Reading: Equatable {
        var hasSections: Bool
        var numberOfSections: Int
        var hasItems: Bool
        var itemsPerSection: [Int]

        /// A non-empty list of sections holding `counts` items.
        static func items(_ counts: [Int]) -> Reading {
            Reading(
                hasSections: true, numberOfSections: counts.count, hasItems: true,
                itemsPerSection: counts)
        }
    }

    static func reading(_ snapshot: ListSnapshot<PortEntity>) -> Reading {
        Reading(
            hasSections: snapshot.hasSections(), numberOfSections: snapshot.numberOfSections,
            hasItems: snapshot.hasItems(),
            itemsPerSection: (0..<snapshot.numberOfSections).map {
                snapshot.numberOfItems(inSection: $0)
            })
    }

    static func publisher(_ stack: DataStack) throws -> ListPublisher<PortEntity> {
        try stack.publishList(
            From<PortEntity>(), SectionBy<PortEntity>("testBoolean"),
            OrderBy<PortEntity>(.ascending("testBoolean"), .ascending("testEntityID")))
    }

    /// The publisher's closure log, observed by `owner`.
    static func log(
        _ publisher: ListPublisher<PortEntity>, owner: AnyObject
    ) -> PortPublisherLog<Reading> {
        let log = PortPublisherLog<Reading>()
        publisher.addObserver(owner) { publisher in
            log.readings.append(reading(publisher.snapshot))
        }
        return log
    }

    /// `test_ThatListPublishers_CanReceiveInsertNotifications`.
    @Test(arguments: StoreKind.sqlite)
    func listPublishersReceiveInsertNotifications(_ kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let stack = try portStack(kind, in: directory, prepared: false)
        let publisher = try Self.publisher(stack)
        #expect(!publisher.snapshot.hasSections())
        #expect(!publisher.snapshot.hasItems())
        #expect(publisher.snapshot.itemIDs.isEmpty)
        let owner = NSObject()
        let log = Self.log(publisher, owner: owner)

        let created = try await portCommit(stack) { tx in
            let object = tx.create(Into<PortEntity>())
            object.testBoolean = true
            portFill(object, number: 1)
            return (id: object.objectID, hasChanges: tx.hasChanges)
        }
        #expect(created?.hasChanges == true)
        #expect(log.readings == [.items([1])])
        #expect(publisher.snapshot.itemIDs == created.map { [$0.id] })
        #expect(publisher.snapshot.sectionIDs == ["true"])  // CoreStore's "1"
        #expect(publisher.snapshot.updatedItemIDs == Set(created.map { [$0.id] } ?? []))
        withExtendedLifetime(owner) {}
    }

    /// `test_ThatListPublishers_CanReceiveUpdateNotifications`.
    @Test(arguments: StoreKind.sqlite)
    func listPublishersReceiveUpdateNotifications(_ kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let stack = try portStack(kind, in: directory)
        let publisher = try Self.publisher(stack)
        let before = Reading.items([2, 3])
        #expect(Self.reading(publisher.snapshot) == before)
        #expect(publisher.snapshot.hasItems(inSection: 0))
        let first = publisher.snapshot
        let owner = NSObject()
        let log = Self.log(publisher, owner: owner)

        let updated = try await portCommit(stack) { tx in
            var ids: [ObjectID<PortEntity>] = []
            for (id, number) in [(101, 11), (102, 22)] {
                guard
                    let object = try tx.fetchOne(
                        From<PortEntity>(), portEntityID(id))
                else { continue }
                portFill(object, number: number)
                ids.append(object.objectID)
            }
            return (ids: ids, hasChanges: tx.hasChanges)
        }
        #expect(updated?.hasChanges == true)
        #expect(log.readings == [before])
        #expect(publisher.snapshot == first)
        #expect(updated?.ids.count == 2)
        #expect(publisher.snapshot.updatedItemIDs == Set(updated?.ids ?? []))
        #expect(publisher.snapshot.updatedItemIdentifiers == publisher.snapshot.updatedItemIDs)
        withExtendedLifetime(owner) {}
    }

    /// `test_ThatListPublishers_CanReceiveMoveNotifications`.
    @Test(arguments: StoreKind.sqlite)
    func listPublishersReceiveMoveNotifications(_ kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let stack = try portStack(kind, in: directory)
        let publisher = try Self.publisher(stack)
        #expect(Self.reading(publisher.snapshot) == .items([2, 3]))
        let owner = NSObject()
        let log = Self.log(publisher, owner: owner)

        let moved = try await portCommit(stack) { tx in
            let object = try tx.fetchOne(From<PortEntity>(), portEntityID(102))
            object?.testBoolean = true
            return (id: object?.objectID, hasChanges: tx.hasChanges)
        }
        #expect(moved?.hasChanges == true)
        #expect(log.readings == [.items([1, 4])])
        let id = try #require(moved?.id)
        #expect(publisher.snapshot.indexPath(of: id) == IndexPath(item: 1, section: 1))
        #expect(publisher.snapshot.updatedItemIDs == [id])
        withExtendedLifetime(owner) {}
    }

    /// `test_ThatListPublishers_CanReceiveDeleteNotifications`.
    @Test(arguments: StoreKind.sqlite)
    func listPublishersReceiveDeleteNotifications(_ kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let stack = try portStack(kind, in: directory)
        let publisher = try Self.publisher(stack)
        #expect(Self.reading(publisher.snapshot) == .items([2, 3]))
        let owner = NSObject()
        let log = Self.log(publisher, owner: owner)

        let outcome = try await portCommit(stack) { tx in
            let count = try tx.deleteAll(From<PortEntity>(), portBooleanIsFalse())
            return (count: count, hasChanges: tx.hasChanges)
        }
        #expect(outcome?.count == 2)
        #expect(outcome?.hasChanges == true)
        #expect(log.readings == [.items([3])])
        #expect(publisher.snapshot.sectionIDs == ["true"])
        #expect(publisher.snapshot.updatedItemIDs.isEmpty)
        withExtendedLifetime(owner) {}
    }
}

/// CoreStore's `ObjectPublisherTests`, ported.
@MainActor
@Suite("CoreStore port: ObjectPublisherTests")
struct CoreStoreObjectPublisherPortTests {
    /// What CoreStore's closures read from the publisher.
    struct Reading: Equatable {
        var objectNumber: Int?
        var objectString: String?
        var objectIsNil: Bool
        var snapshotIsNil: Bool
    }

    static let deleted = Reading(
        objectNumber: nil, objectString: nil, objectIsNil: true, snapshotIsNil: true)

    static func log(
        _ publisher: ObjectPublisher<PortEntity>, owner: AnyObject
    ) -> PortPublisherLog<Reading> {
        let log = PortPublisherLog<Reading>()
        publisher.addObserver(owner) { publisher in
            let object = publisher.object
            log.readings.append(
                Reading(
                    objectNumber: object?.testNumber, objectString: object?.testString,
                    objectIsNil: object == nil, snapshotIsNil: publisher.snapshot == nil))
        }
        return log
    }

    /// `test_ThatObjectPublishers_CanReceiveUpdateNotifications`.
    @Test(arguments: StoreKind.sqlite)
    func objectPublishersReceiveUpdateNotifications(_ kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let stack = try portStack(kind, in: directory)
        let object = try portObject101(stack)
        let publisher = try stack.publishObject(object)
        #expect(publisher.object === object)
        #expect(publisher.snapshot != nil)
        let owner = NSObject()
        let log = Self.log(publisher, owner: owner)

        let id = object.objectID
        let hasChanges = try await portCommit(stack) { tx in
            guard let object = tx.edit(id) else { return false }
            object.testNumber = 10
            object.testString = "nil:TestEntity1:10"
            return tx.hasChanges
        }
        #expect(hasChanges == true)
        let updated = Reading(
            objectNumber: 10, objectString: "nil:TestEntity1:10", objectIsNil: false,
            snapshotIsNil: false)
        #expect(log.readings == [updated])
        #expect(publisher.$testNumber == 10)
        #expect(publisher.snapshot?.$testString == "nil:TestEntity1:10")
        withExtendedLifetime(owner) {}
    }

    /// `test_ThatObjectPublishers_CanReceiveDeleteNotifications`.
    @Test(arguments: StoreKind.sqlite)
    func objectPublishersReceiveDeleteNotifications(_ kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let stack = try portStack(kind, in: directory)
        let object = try portObject101(stack)
        let publisher = try stack.publishObject(object)
        #expect(publisher.object === object)
        #expect(publisher.snapshot != nil)
        let owner = NSObject()
        let log = Self.log(publisher, owner: owner)

        let id = object.objectID
        let hasChanges = try await portCommit(stack) { tx in
            guard let object = tx.edit(id) else { return false }
            tx.delete(object)
            return tx.hasChanges
        }
        #expect(hasChanges == true)
        #expect(log.readings == [Self.deleted])
        #expect(publisher.isObjectDeleted)
        #expect(publisher.$testNumber == nil)
        withExtendedLifetime(owner) {}
    }
}

/// CoreStore's `TestObjectObserver`: every callback as a line, with the
/// object it gave and whether it was the monitor's object.
@MainActor
final class PortObjectRecorder: ObjectObserver {
    typealias ObjectEntityType = PortEntity
    var events: [String] = []
    var objects: [PortEntity] = []

    func objectMonitor(_ monitor: ObjectMonitor<PortEntity>, willUpdateObject object: PortEntity) {
        events.append("willUpdate")
        objects.append(object)
    }
    func objectMonitor(
        _ monitor: ObjectMonitor<PortEntity>, didUpdateObject object: PortEntity,
        changedPersistentKeys: Set<KeyPathString>
    ) {
        events.append("didUpdate " + changedPersistentKeys.sorted().joined(separator: ","))
        objects.append(object)
    }
    func objectMonitor(_ monitor: ObjectMonitor<PortEntity>, didDeleteObject object: PortEntity) {
        events.append("didDelete")
        objects.append(object)
    }
}

/// CoreStore's `ObjectObserverTests`, ported; here, beside the object
/// publisher's port, as the list observer's port fills its own file.
@MainActor
@Suite("CoreStore port: ObjectObserverTests")
struct CoreStoreObjectObserverPortTests {
    /// `test_ThatObjectObservers_CanReceiveUpdateNotifications`.
    @Test(arguments: StoreKind.sqlite)
    func objectObserversReceiveUpdateNotifications(_ kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let stack = try portStack(kind, in: directory)
        let object = try portObject101(stack)
        let observer = PortObjectRecorder()
        let monitor = try stack.monitorObject(object)
        monitor.addObserver(observer)
        #expect(monitor.object === object)
        #expect(!monitor.isObjectDeleted)

        let id = object.objectID
        let hasChanges = try await portCommit(stack) { tx in
            guard let object = tx.edit(id) else { return false }
            object.testNumber = 10
            object.testString = "nil:TestEntity1:10"
            return tx.hasChanges
        }
        #expect(hasChanges == true)
        #expect(observer.events == ["willUpdate", "didUpdate testNumber,testString"])
        #expect(observer.objects.count == 2 && observer.objects.allSatisfy { $0 === object })
        #expect(object.testNumber == 10)
        #expect(object.testString == "nil:TestEntity1:10")
        #expect(monitor.object === object && !monitor.isObjectDeleted)
    }

    /// `test_ThatObjectObservers_CanReceiveDeleteNotifications`.
    @Test(arguments: StoreKind.sqlite)
    func objectObserversReceiveDeleteNotifications(_ kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let stack = try portStack(kind, in: directory)
        let object = try portObject101(stack)
        let observer = PortObjectRecorder()
        let monitor = try stack.monitorObject(object)
        monitor.addObserver(observer)
        #expect(monitor.object === object)
        #expect(!monitor.isObjectDeleted)

        let id = object.objectID
        let hasChanges = try await portCommit(stack) { tx in
            guard let object = tx.edit(id) else { return false }
            tx.delete(object)
            return tx.hasChanges
        }
        #expect(hasChanges == true)
        // CoreStore checks `isObjectDeleted` in the success callback; nothing
        // commits between that callback and this line.
        #expect(monitor.isObjectDeleted)
        #expect(monitor.object == nil)
        #expect(observer.events == ["didDelete"])
        #expect(observer.objects.count == 1 && observer.objects.allSatisfy { $0 === object })
        #expect(object.isDeletedObject)
    }
}
