import Foundation
import Testing

@testable import Strata

/// CoreStore's `TestEntity1`, field for field, its `NSNumber`s as the Swift
/// types they hold: the ports below then read as CoreStore's tests do.
final class PortEntity: ManagedObject {
    @Field.Stored("testEntityID") var testEntityID: Int? = nil
    @Field.Stored("testString") var testString: String? = nil
    @Field.Stored("testNumber") var testNumber: Int? = nil
    @Field.Stored("testDate") var testDate: Date? = nil
    @Field.Stored("testBoolean") var testBoolean: Bool? = nil
    @Field.Stored("testDecimal") var testDecimal: Decimal? = nil
    @Field.Stored("testData") var testData: Data? = nil
    @Field.Stored("testNil") var testNil: String? = nil
    @Field.Relationship("testToOne") var testToOne: PortEntity?
    @Field.Relationship("testToManyUnordered", inverse: \PortEntity.$testToOne)
    var testToManyUnordered: Set<PortEntity>
}

let portSchema = Schema("Port1", entities: [Entity<PortEntity>("PortEntity")])

/// Midnight UTC on the given day of January 2000, as CoreStore's tests parse
/// `"2000-01-<day>T00:00:00Z"`; whole seconds since 1970, so it reads back exactly.
func portDate(day: Int) -> Date {
    Date(timeIntervalSince1970: 946_684_800 + Double(day - 1) * 86_400)
}

/// Sets the fields CoreStore's tests set together, from one number.
func portFill(_ object: PortEntity, number: Int) {
    let string = "nil:TestEntity1:\(number)"
    object.testNumber = number
    object.testDecimal = Decimal(number)
    object.testString = string
    object.testData = Data(string.utf8)
    object.testDate = portDate(day: number)
}

/// CoreStore's `prepareTestDataForStack`: five objects, IDs 101 to 105,
/// `testBoolean` true for the odd ones.
@MainActor
func portPrepareTestData(_ stack: DataStack) throws {
    try stack.perform(synchronous: { tx in
        for index in 1...5 {
            let object = tx.create(Into<PortEntity>())
            object.testEntityID = 100 + index
            object.testBoolean = index % 2 == 1
            portFill(object, number: index)
        }
    })
}

/// CoreStore's `Where<TestEntity1>(#keyPath(TestEntity1.testEntityID), isEqualTo: id)`.
func portEntityID(_ id: Int) -> Where<PortEntity> {
    Where<PortEntity>("testEntityID", isEqualTo: id)
}

/// CoreStore's `Where<TestEntity1>(#keyPath(TestEntity1.testBoolean), isEqualTo: false)`.
func portBooleanIsFalse() -> Where<PortEntity> {
    Where<PortEntity>("testBoolean", isEqualTo: false)
}

/// The monitored list of CoreStore's observer tests, in CoreStore's spelling:
/// sectioned by `testBoolean`, sorted by it and then by `testEntityID`.
@MainActor
func portMonitor(_ stack: DataStack) throws -> ListMonitor<PortEntity> {
    try stack.monitorSectionedList(
        From<PortEntity>(), SectionBy<PortEntity>("testBoolean"),
        OrderBy<PortEntity>(.ascending("testBoolean"), .ascending("testEntityID")))
}

/// A stack of `portSchema` in `directory`, holding CoreStore's five test
/// objects unless `prepared` is false.
@MainActor
func portStack(_ kind: StoreKind, in directory: TemporaryDirectory, prepared: Bool = true) throws -> DataStack {
    let stack = try makeStack(portSchema, kind, in: directory)
    if prepared { try portPrepareTestData(stack) }
    return stack
}

/// CoreStore's object 101, as the stack's main context holds it.
@MainActor
func portObject101(_ stack: DataStack) throws -> PortEntity {
    try #require(try stack.fetchOne(From<PortEntity>(), portEntityID(101)))
}

/// ``portMonitor(_:)`` with a recorder observing it.
@MainActor
func portObservedMonitor(_ stack: DataStack) throws -> (ListMonitor<PortEntity>, PortListRecorder) {
    let observer = PortListRecorder()
    let monitor = try portMonitor(stack)
    monitor.addObserver(observer)
    return (monitor, observer)
}

/// CoreStore's `TestListObserver`: every callback as a line, objects by
/// `testEntityID`, with the objects and section infos the callbacks gave.
@MainActor
final class PortListRecorder: ListSectionObserver {
    typealias ListEntityType = PortEntity
    var events: [String] = []
    var objects: [PortEntity] = []
    var sections: [ListSectionInfo<PortEntity>] = []
    /// For each inserted section, whether its info equalled the monitor's at its index.
    var insertedSectionMatchesMonitor: [Bool] = []

    private func tag(_ object: PortEntity) -> String {
        object.testEntityID.map { "#\($0)" } ?? "#nil"
    }
    private func text(_ path: IndexPath) -> String { "\(path.section).\(path.item)" }
    private func record(_ event: String, _ object: PortEntity, _ place: String) {
        events.append("\(event) \(tag(object)) \(place)")
        objects.append(object)
    }

    func listMonitorWillChange(_ monitor: ListMonitor<PortEntity>) { events.append("willChange") }
    func listMonitorDidChange(_ monitor: ListMonitor<PortEntity>) { events.append("didChange") }
    func listMonitorWillRefetch(_ monitor: ListMonitor<PortEntity>) { events.append("willRefetch") }
    func listMonitorDidRefetch(_ monitor: ListMonitor<PortEntity>) { events.append("didRefetch") }

    func listMonitor(
        _ monitor: ListMonitor<PortEntity>, didInsertObject object: PortEntity,
        toIndexPath indexPath: IndexPath
    ) {
        record("insert", object, "at \(text(indexPath))")
    }
    func listMonitor(
        _ monitor: ListMonitor<PortEntity>, didDeleteObject object: PortEntity,
        fromIndexPath indexPath: IndexPath
    ) {
        record("delete", object, "at \(text(indexPath))")
    }
    func listMonitor(
        _ monitor: ListMonitor<PortEntity>, didUpdateObject object: PortEntity,
        atIndexPath indexPath: IndexPath
    ) {
        record("update", object, "at \(text(indexPath))")
    }
    func listMonitor(
        _ monitor: ListMonitor<PortEntity>, didMoveObject object: PortEntity,
        fromIndexPath: IndexPath, toIndexPath: IndexPath
    ) {
        record("move", object, "from \(text(fromIndexPath)) to \(text(toIndexPath))")
    }
    func listMonitor(
        _ monitor: ListMonitor<PortEntity>,
        didInsertSection sectionInfo: ListSectionInfo<PortEntity>,
        toSectionIndex sectionIndex: Int
    ) {
        events.append("insertSection \(sectionInfo.name) at \(sectionIndex)")
        sections.append(sectionInfo)
        insertedSectionMatchesMonitor.append(sectionInfo == monitor.sectionInfo(at: sectionIndex))
    }
    func listMonitor(
        _ monitor: ListMonitor<PortEntity>,
        didDeleteSection sectionInfo: ListSectionInfo<PortEntity>,
        fromSectionIndex sectionIndex: Int
    ) {
        events.append("deleteSection \(sectionInfo.name) at \(sectionIndex)")
        sections.append(sectionInfo)
    }
}

/// CoreStore's `ListObserverTests`, ported. Where Strata documents another
/// behaviour (section names from the typed value, "false" and "true" for a
/// `Bool` where Core Data says "0" and "1"; a fixed callback order), the
/// port expects what Strata documents.
@MainActor
@Suite("CoreStore port: ListObserverTests")
struct CoreStoreObserverPortTests {
    /// `test_ThatListObservers_CanReceiveInsertNotifications`.
    @Test(arguments: StoreKind.sqlite)
    func listObserversReceiveInsertNotifications(_ kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let stack = try portStack(kind, in: directory, prepared: false)
        let (monitor, observer) = try portObservedMonitor(stack)
        #expect(!monitor.hasSections())
        #expect(!monitor.hasObjects())
        #expect(monitor.objectsInAllSections().isEmpty)

        let hasChanges = try await portCommit(stack) { tx in
            let object = tx.create(Into<PortEntity>())
            object.testBoolean = true
            portFill(object, number: 1)
            return tx.hasChanges
        }
        #expect(hasChanges == true)
        // CoreStore's section is named "1" (Core Data's text for true).
        #expect(
            observer.events == [
                "willChange", "insertSection true at 0", "insert #nil at 0.0", "didChange",
            ])
        #expect(observer.insertedSectionMatchesMonitor == [true])
        #expect(observer.sections.first?.numberOfObjects == 1)
        let object = try #require(observer.objects.first)
        #expect(object.testBoolean == true)
        #expect(object.testNumber == 1)
        #expect(object.testDecimal == Decimal(string: "1"))
        #expect(object.testString == "nil:TestEntity1:1")
        #expect(object.testData == Data("nil:TestEntity1:1".utf8))
        #expect(object.testDate == portDate(day: 1))
        #expect(monitor[0, 0] === object)
    }

    /// `test_ThatListObservers_CanReceiveUpdateNotifications`.
    @Test(arguments: StoreKind.sqlite)
    func listObserversReceiveUpdateNotifications(_ kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let stack = try portStack(kind, in: directory)
        let (monitor, observer) = try portObservedMonitor(stack)
        #expect(monitor.hasSections())
        #expect(monitor.numberOfSections() == 2)
        #expect(monitor.hasObjects())
        #expect(monitor.hasObjects(in: 0))
        #expect(monitor.numberOfObjects(in: 0) == 2)
        #expect(monitor.numberOfObjects(in: 1) == 3)

        let outcome = try await portCommit(stack) { tx in
            var found = 0
            for (id, number) in [(101, 11), (102, 22)] {
                guard
                    let object = try tx.fetchOne(
                        From<PortEntity>(), portEntityID(id))
                else { continue }
                portFill(object, number: number)
                found += 1
            }
            return (found: found, hasChanges: tx.hasChanges)
        }
        #expect(outcome?.found == 2)
        #expect(outcome?.hasChanges == true)
        // CoreStore accepts the two updates in either order; Strata's order is fixed.
        #expect(observer.events.count == 4)
        #expect(observer.events.first == "willChange" && observer.events.last == "didChange")
        let updates = Set(observer.events.dropFirst().dropLast())
        #expect(updates == ["update #101 at 1.0", "update #102 at 0.0"])
        for object in observer.objects {
            let number = object.testEntityID == 101 ? 11 : 22
            #expect(object.testBoolean == (number == 11))
            #expect(object.testNumber == number)
            #expect(object.testDecimal == Decimal(string: "\(number)"))
            #expect(object.testString == "nil:TestEntity1:\(number)")
            #expect(object.testData == Data("nil:TestEntity1:\(number)".utf8))
            #expect(object.testDate == portDate(day: number))
        }
        #expect(observer.objects.count == 2)
    }

    /// `test_ThatListObservers_CanReceiveMoveNotifications`.
    @Test(arguments: StoreKind.sqlite)
    func listObserversReceiveMoveNotifications(_ kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let stack = try portStack(kind, in: directory)
        let (monitor, observer) = try portObservedMonitor(stack)

        let outcome = try await portCommit(stack) { tx in
            let object = try tx.fetchOne(From<PortEntity>(), portEntityID(102))
            object?.testBoolean = true
            return (found: object != nil, hasChanges: tx.hasChanges)
        }
        #expect(outcome?.found == true)
        #expect(outcome?.hasChanges == true)
        #expect(observer.events == ["willChange", "move #102 from 0.0 to 1.1", "didChange"])
        #expect(observer.objects.first?.testBoolean == true)
        #expect(monitor.numberOfObjects(in: 0) == 1 && monitor.numberOfObjects(in: 1) == 4)
        #expect(monitor.objectsInAllSections().map(\.testEntityID) == [104, 101, 102, 103, 105])
    }

    /// `test_ThatListObservers_CanReceiveDeleteNotifications`.
    @Test(arguments: StoreKind.sqlite)
    func listObserversReceiveDeleteNotifications(_ kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let stack = try portStack(kind, in: directory)
        let (monitor, observer) = try portObservedMonitor(stack)

        let outcome = try await portCommit(stack) { tx in
            let count = try tx.deleteAll(From<PortEntity>(), portBooleanIsFalse())
            return (count: count, hasChanges: tx.hasChanges)
        }
        #expect(outcome?.count == 2)
        #expect(outcome?.hasChanges == true)
        // CoreStore accepts the two deletes in either order and names the section "0".
        #expect(
            observer.events == [
                "willChange", "delete #104 at 0.1", "delete #102 at 0.0", "deleteSection false at 0",
                "didChange",
            ])
        #expect(observer.objects.allSatisfy(\.isDeletedObject) && observer.objects.count == 2)
        let section = try #require(observer.sections.first)
        #expect(section.name == "false")
        #expect(section.objects.map(\.testEntityID) == [102, 104])
        #expect(monitor.numberOfSections() == 1 && monitor.sectionNames() == ["true"])
    }
}

/// Beyond CoreStore's tests, on its data: sections are known by name, as in
/// NSFetchedResultsController, whose delegate CoreStore passes on. A section
/// emptied and refilled by one commit is neither deleted nor inserted, and
/// the in-memory update says what a re-fetch and diff says (a fetch limit
/// makes the twin below re-fetch).
@MainActor
@Suite("CoreStore port: sections keep their identity through a batch")
struct CoreStoreSectionIdentityPortTests {
    /// ``portMonitor(_:)``'s list under a fetch limit it never reaches:
    /// the same list, followed by re-fetching and diffing.
    static func twin(_ stack: DataStack) throws -> ListMonitor<PortEntity> {
        try stack.monitorSectionedList(
            From<PortEntity>(), SectionBy<PortEntity>("testBoolean"),
            OrderBy<PortEntity>(.ascending("testBoolean"), .ascending("testEntityID")),
            Tweak { $0.fetchLimit = 1_000 })
    }

    @Test(arguments: StoreKind.sqlite)
    func aSectionEmptiedAndRefilledInOneCommitIsKept(_ kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let stack = try portStack(kind, in: directory)
        let observer = PortListRecorder(), twinObserver = PortListRecorder()
        let monitor = try portMonitor(stack)
        let twin = try Self.twin(stack)
        monitor.addObserver(observer)
        twin.addObserver(twinObserver)

        // Every "false" object goes and a new one comes.
        _ = try await portCommit(stack) { tx in
            try tx.deleteAll(From<PortEntity>(), portBooleanIsFalse())
            let object = tx.create(Into<PortEntity>())
            object.testEntityID = 106
            object.testBoolean = false
        }
        let refilled = [
            "willChange", "delete #104 at 0.1", "delete #102 at 0.0", "insert #106 at 0.0",
            "didChange",
        ]
        #expect(twinObserver.events == refilled)
        #expect(observer.events == refilled)
        #expect(observer.sections.isEmpty)

        // The only "false" object moves out as another moves in.
        observer.events = []
        twinObserver.events = []
        _ = try await portCommit(stack) { tx in
            try tx.fetchOne(From<PortEntity>(), portEntityID(106))?.testBoolean = true
            try tx.fetchOne(From<PortEntity>(), portEntityID(101))?.testBoolean = false
        }
        let swapped = [
            "willChange", "move #101 from 1.0 to 0.0", "move #106 from 0.0 to 1.2", "didChange",
        ]
        #expect(twinObserver.events == swapped)
        #expect(observer.events == swapped)
        #expect(monitor.sectionNames() == ["false", "true"])
        #expect(monitor.objectsInAllSections().map(\.testEntityID) == [101, 103, 105, 106])
    }

    /// Random commits of inserts, deletes and key changes (section keys
    /// `nil`, false and true): the in-memory batch is the re-fetch's, event
    /// for event.
    @Test(arguments: StoreKind.sqlite, [1, 2, 3, 4] as [UInt64])
    func inMemoryBatchesEqualReFetchedOnes(_ kind: StoreKind, seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let stack = try portStack(kind, in: directory)
        let observer = PortListRecorder(), twinObserver = PortListRecorder()
        let monitor = try portMonitor(stack), twin = try Self.twin(stack)
        monitor.addObserver(observer)
        twin.addObserver(twinObserver)
        for round in 0..<80 {
            // IDs 100 to 109, so that commits often empty and refill sections.
            let steps = (0...(random.next() % 6)).map { _ in
                (kind: random.next() % 4, id: Int(random.next() % 10) + 100, value: random.next() % 3)
            }
            let newID = Int(random.next() % 10) + 100
            try stack.perform(synchronous: { tx in
                for step in steps {
                    let flag: Bool? = step.value == 0 ? nil : step.value == 1
                    let object = try tx.fetchOne(From<PortEntity>(), portEntityID(step.id))
                    switch step.kind {
                    case 0:
                        let created = tx.create(Into<PortEntity>())
                        created.testEntityID = step.id
                        created.testBoolean = flag
                    case 1: if let object { tx.delete(object) }
                    case 2: object?.testBoolean = flag
                    default: object?.testEntityID = newID
                    }
                }
            })
            #expect(observer.events == twinObserver.events, "seed \(seed), round \(round)")
            #expect(monitor.objectsInAllSections() == twin.objectsInAllSections())
            observer.events = []
            twinObserver.events = []
        }
    }
}
