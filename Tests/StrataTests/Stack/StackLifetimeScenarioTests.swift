import Foundation
@testable import Strata
import Testing

/// One thing an app keeps from a stack, with what tells whether it was
/// freed and the observer that must fall silent once it is.
@MainActor
private struct Kept {
    enum Kind: CaseIterable { case listMonitor, objectMonitor, listPublisher, objectPublisher, field, stream, objects }

    let kind: Kind
    /// The monitor, publisher or observation token; `nil` for a stream or objects.
    var target: AnyObject?
    /// Told of what `target` reports; silent once `target` is released.
    var observer: LifeObserver?
    var stream: AsyncStream<ChangeSet>?
    var objects: [LifeNote] = []
}

/// Seeded random lives of what an app keeps from a stack: monitors,
/// publishers, field observations, change-set streams and fetched objects
/// made and released in any order among commits, and the stack released at
/// any point. Laws: what is released is freed at once and its observer hears
/// nothing more; what is kept shows what a fetch shows; the stack is freed at
/// once and its change-set streams end; and once everything is released, the
/// main context is freed and the store's connections are closed.
@MainActor
@Suite("DataStack lifetime: random scenarios")
struct StackLifetimeScenarioTests {
    @Test(arguments: [0x11FE, 0x5EED, 0xC0FFEE, 0xBEEF, 0xFACE, 0xD1CE, 0x7E57, SplitMix64.random().seed])
    func whatIsReleasedIsFreedAndWhatIsKeptStaysRight(seed: UInt64) async throws {
        for (index, kind) in StoreKind.sqlite.enumerated() {
            try await run(seed: seed, index: index, kind)
        }
    }

    private func run(seed: UInt64, index: Int, _ kind: StoreKind) async throws {
        // Each kind its own sequence, both given by the one seed.
        var random = SplitMix64(seed: seed ^ UInt64(index))
        let context = "seed \(seed) (STRATA_TEST_SEED), \(kind)"
        let directory = TemporaryDirectory()
        var stack: DataStack? = try makeStack(lifeSchema, kind, in: directory)
        weak let releasedStack = stack
        weak let releasedMain = stack!.mainContexts[0]
        // Their connections close when they are freed.
        weak let releasedContext = stack!.mainContexts[0].context
        weak let releasedStore = stack!.mainContexts[0].context.store
        var kept: [Kept] = []
        var silenced: [(observer: LifeObserver, changes: Int)] = []
        var nextNumber = 0

        func pick(_ count: Int) -> Int { Int(random.next() % UInt64(count)) }

        func commit(_ stack: DataStack) throws {
            let choice = random.next() % 3
            let target = random.next()
            try stack.perform(synchronous: { tx in
                let notes = try tx.fetchAll(From<LifeNote>().orderBy(.ascending(\.$number)))
                if choice == 0 || notes.isEmpty {
                    tx.create(Into<LifeNote>()).number = nextNumber
                } else if choice == 1 {
                    tx.edit(notes[Int(target % UInt64(notes.count))])!.title = "edited \(target)"
                } else {
                    tx.delete(notes[Int(target % UInt64(notes.count))])
                }
            })
            nextNumber += 1
        }

        func keep(_ stack: DataStack) throws {
            let kinds = Kept.Kind.allCases
            let kind = kinds[pick(kinds.count)]
            var notes = try stack.fetchAll(From<LifeNote>())
            if notes.isEmpty {
                try commit(stack)
                notes = try stack.fetchAll(From<LifeNote>())
            }
            let note = notes.isEmpty ? nil : notes[pick(notes.count)]
            let observer = LifeObserver()
            var thing = Kept(kind: kind, observer: observer)
            switch kind {
            case .listMonitor:
                let monitor = try stack.monitorList(From<LifeNote>())
                monitor.addObserver(observer)
                thing.target = monitor
            case .objectMonitor:
                guard let note else { return }
                let monitor = try stack.monitorObject(note)
                monitor.addObserver(observer)
                thing.target = monitor
            case .listPublisher:
                let publisher = try stack.publishList(From<LifeNote>())
                publisher.addObserver(observer) { [weak observer] _ in observer?.changes += 1 }
                thing.target = publisher
            case .objectPublisher:
                guard let note else { return }
                let publisher = try stack.publishObject(note)
                publisher.addObserver(observer) { [weak observer] _ in observer?.changes += 1 }
                thing.target = publisher
            case .field:
                guard let note else { return }
                thing.target = note.$title.observe { [weak observer] _, _ in observer?.changes += 1 }
                thing.objects = [note]
            case .stream:
                thing.observer = nil
                thing.stream = try stack.changeSets()
            case .objects:
                thing.observer = nil
                thing.objects = notes
            }
            kept.append(thing)
        }

        func release(at index: Int) {
            var thing = kept.remove(at: index)
            weak let target = thing.target
            thing.target = nil
            #expect(target == nil, "a released \(thing.kind) is freed at once; \(context)")
            if let observer = thing.observer { silenced.append((observer, observer.changes)) }
        }

        func checkInvariants(_ stack: DataStack?) throws {
            for (observer, changes) in silenced {
                #expect(observer.changes == changes, "a released monitor or publisher tells nothing more; \(context)")
            }
            // A field observation runs while its object lives on and its main
            // context merges: the stack's, or one a kept monitor or publisher holds.
            let merging = stack != nil || kept.contains { [.listMonitor, .objectMonitor, .listPublisher, .objectPublisher].contains($0.kind) }
            for thing in kept {
                guard let token = thing.target as? FieldObservation, let note = thing.objects.first else { continue }
                #expect(token.isActive == (merging && !note.isDeletedObject),
                        "a field observation is active exactly while a commit can reach it; \(context)")
            }
            guard let stack else { return }
            let count = try stack.fetchCount(From<LifeNote>())
            for thing in kept {
                if let monitor = thing.target as? ListMonitor<LifeNote> {
                    #expect(monitor.numberOfObjects() == count, "a kept monitor shows the list; \(context)")
                }
                if let publisher = thing.target as? ListPublisher<LifeNote> {
                    #expect(publisher.snapshot.count == count, "a kept publisher shows the list; \(context)")
                }
            }
        }

        func releaseStack() async {
            stack = nil
            #expect(releasedStack == nil, "the stack is freed at once, whatever is kept; \(context)")
            for thing in kept {
                if let stream = thing.stream {
                    #expect(await hasFinished(stream), "its change-set streams end; \(context)")
                }
            }
            kept.removeAll { $0.kind == .stream }
        }

        for _ in 0..<(20 + pick(20)) {
            switch random.next() % 10 {
            case 0..<4: if let stack { try commit(stack) }
            case 4..<6: if let stack { try keep(stack) }
            case 6..<8: if !kept.isEmpty { release(at: pick(kept.count)) }
            case 8: if stack != nil, random.next() % 3 == 0 { await releaseStack() }
            default: break
            }
            try checkInvariants(stack)
        }
        if stack != nil { await releaseStack() }
        while !kept.isEmpty { release(at: pick(kept.count)) }
        try checkInvariants(nil)
        #expect(releasedMain == nil, "nothing keeps the main context; \(context)")
        #expect(releasedContext == nil && releasedStore == nil, "the store's connections are closed; \(context)")
    }
}
