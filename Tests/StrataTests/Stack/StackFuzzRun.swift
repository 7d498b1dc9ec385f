import Foundation
@testable import Strata
import Testing

/// Records an object monitor's deletion.
@MainActor
final class FuzzObjectEvents<Object: ManagedObject>: ObjectObserver {
    typealias ObjectEntityType = Object
    var deleted = 0

    func objectMonitor(_ monitor: ObjectMonitor<Object>, didDeleteObject object: Object) {
        deleted += 1
    }
}

/// A list monitor of the fuzz test and the query it shows.
@MainActor
struct FuzzListWatch<Object: ManagedObject> {
    let monitor: ListMonitor<Object>
    let checker: ReplayChecker<Object>
    let query: FuzzQuery<Object>
    /// Sectioned by name: the list is ordered by name first.
    let sectionedByName: Bool
}

/// Something the main context gave out that must follow the model: an
/// object monitor, or an object fetched before. Once the model has no row
/// of its ID it is gone for good, whatever row of that ID comes later.
@MainActor
struct FuzzWatch<Object: ManagedObject> {
    let rowID: Int64
    let monitor: ObjectMonitor<Object>?
    let events: FuzzObjectEvents<Object>?
    let held: Object?
    var gone = false
}

/// One run of the stack fuzz test: the stack, the model it must agree
/// with, and what watches the stack.
@MainActor
final class FuzzRun {
    let kind: StoreKind
    let seed: UInt64
    var random: SplitMix64
    let directory = TemporaryDirectory()
    let storage: any StorageInterface
    let stack: DataStack
    var state = FuzzState()
    var planner = FuzzPlanner()
    var step = 0
    var action = "start"
    /// Copies made by `exportStore(to:)`, with what they hold.
    var copies: [(url: URL, state: FuzzState)] = []
    var petLists: [FuzzListWatch<FuzzPet>] = []
    var ownerLists: [FuzzListWatch<FuzzOwner>] = []
    var pets: [FuzzWatch<FuzzPet>] = []
    var owners: [FuzzWatch<FuzzOwner>] = []
    /// Discrepancies of the step under way.
    var problems: [String] = []
    /// How often each kind of step and each transaction result came up, so
    /// that a test can tell the run reached what it means to check.
    var tally: [String: Int] = [:]

    init(_ kind: StoreKind, seed: UInt64) throws {
        self.kind = kind
        self.seed = seed
        random = SplitMix64(seed: seed)
        storage = try makeStorage(kind, in: directory)
        stack = DataStack(fuzzSchema)
        try stack.addStorageAndWait(storage)
    }

    func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { problems.append(message()) }
    }

    func draw(_ bound: Int) -> Int { Int(random.next() % UInt64(max(bound, 1))) }

    /// Runs `steps` random steps, checking everything after each; stops at
    /// the first step that disagrees with the model, and reports it.
    func run(steps: Int) async {
        for index in 0..<steps {
            step = index
            problems = []
            do {
                try await randomStep()
                tally[String(action.prefix { $0 != " " }), default: 0] += 1
                try check()
            } catch {
                problems.append("threw \(error)")
            }
            if !problems.isEmpty {
                let shown = problems.prefix(12).joined(separator: "\n  ")
                let report = "\(kind), seed \(seed), step \(step) (\(action)): \(problems.count) discrepancies\n  \(shown)"
                Issue.record("\(report)")
                return
            }
        }
    }

    private func randomStep() async throws {
        let roll = draw(100)
        switch roll {
        case 0..<24: try transaction(.synchronous)
        case 24..<36: await awaitedTransaction()
        case 36..<46: try await completions(count: 1 + draw(3))
        case 46..<52: try transaction(.unsafe)
        case 52..<55: await cancelledTask()
        case 55..<60: try export()
        case 60..<64: try replace()
        case 64..<65: try reset()
        case 65..<66: try removeAndAddAgain()
        case 66..<79: try reads()
        case 79..<80: try wipe()
        case 80..<90: try watchList()
        case 90..<95: try watchObject()
        case 95..<98: try holdObjects()
        default:
            action = "drop a watch"
            if !petLists.isEmpty && draw(2) == 0 { petLists.remove(at: draw(petLists.count)) }
            if !ownerLists.isEmpty && draw(2) == 0 { ownerLists.remove(at: draw(ownerLists.count)) }
            if !pets.isEmpty { pets.remove(at: draw(pets.count)) }
        }
    }
}
