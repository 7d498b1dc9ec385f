import Foundation
import Strata

// LiveList: background transactions change a to-do list while the screen
// redraws from a ListMonitor's callbacks. Run it with `swift run LiveList`.
// In a terminal it redraws in place; piped, it prints one line per batch.

/// A to-do. The list shows them in sections by priority, sorted by title.
final class Todo: ManagedObject {
    @Field.Stored("title") var title: String = ""
    @Field.Stored("priority") var priority: Int = 2
    @Field.Stored("done") var done: Bool = false
}

/// A seeded generator (SplitMix64), so every run tells the same story.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

let titles = [
    "backup laptop", "bake bread", "book flights", "buy milk", "call mum", "clean desk",
    "fix bike", "pay rent", "read book", "walk dog", "water plants", "write report",
]

/// Makes one to three random changes in `tx`: inserts, renames (a move within
/// or across positions), priority changes (a move across sections), toggles
/// of `done` (an update in place) and deletes. The list stays about 5–10 long.
func change(_ tx: AsynchronousDataTransaction, seed: UInt64) throws {
    var rng = SplitMix64(state: seed)
    for _ in 0..<Int.random(in: 1...3, using: &rng) {
        let todos = try tx.fetchAll(From<Todo>())  // sees this transaction's own changes
        let roll = todos.count < 5 ? 0 : todos.count > 10 ? 9 : Int.random(in: 0..<10, using: &rng)
        guard roll > 2, let todo = todos.randomElement(using: &rng) else {
            let new = tx.create(Into<Todo>())
            new.title = titles.randomElement(using: &rng)!
            new.priority = Int.random(in: 1...4, using: &rng)
            continue
        }
        switch roll {
        case 3...4: todo.title = titles.randomElement(using: &rng)!
        case 5...6: todo.priority = Int.random(in: 1...4, using: &rng)
        case 7...8: todo.done.toggle()
        default: tx.delete(todo)
        }
    }
}

/// Draws the list and logs each batch of changes, from the monitor's callbacks
/// alone. It also keeps the rows a table view would hold and applies every
/// batch to them as UIKit applies batch updates, to check the result is the
/// monitor's new list.
@MainActor
final class Screen: ListSectionObserver {
    typealias ListEntityType = Todo

    let isTerminal = isatty(1) == 1
    private(set) var batches = 0
    private(set) var mismatches = 0
    private(set) var totals: [String: Int] = [:]
    private var rows: [[ObjectID<Todo>]]
    private var events: [String] = []
    private var removals: [IndexPath] = []
    private var deletedSections: [Int] = []
    private var insertedSections: [Int] = []
    private var additions: [(IndexPath, ObjectID<Todo>)] = []

    init(_ monitor: ListMonitor<Todo>) { rows = Self.rows(of: monitor) }

    static func rows(of monitor: ListMonitor<Todo>) -> [[ObjectID<Todo>]] {
        (0..<monitor.numberOfSections()).map { monitor.objects(in: $0).map(\.objectID) }
    }

    func listMonitorWillChange(_ monitor: ListMonitor<Todo>) {
        events = []
        (removals, deletedSections, insertedSections, additions) = ([], [], [], [])
    }

    func listMonitor(
        _ monitor: ListMonitor<Todo>, didDeleteObject object: Todo, fromIndexPath indexPath: IndexPath
    ) {
        record("delete", show(indexPath))
        removals.append(indexPath)
    }

    func listMonitor(
        _ monitor: ListMonitor<Todo>, didDeleteSection sectionInfo: ListSectionInfo<Todo>,
        fromSectionIndex sectionIndex: Int
    ) {
        record("delete section", "\(sectionIndex)")
        deletedSections.append(sectionIndex)
    }

    func listMonitor(
        _ monitor: ListMonitor<Todo>, didInsertSection sectionInfo: ListSectionInfo<Todo>,
        toSectionIndex sectionIndex: Int
    ) {
        record("insert section", "\(sectionIndex) '\(sectionInfo.name)'")
        insertedSections.append(sectionIndex)
    }

    func listMonitor(
        _ monitor: ListMonitor<Todo>, didInsertObject object: Todo, toIndexPath indexPath: IndexPath
    ) {
        record("insert", show(indexPath))
        additions.append((indexPath, object.objectID))
    }

    func listMonitor(
        _ monitor: ListMonitor<Todo>, didMoveObject object: Todo,
        fromIndexPath: IndexPath, toIndexPath: IndexPath
    ) {
        record("move", "\(show(fromIndexPath))→\(show(toIndexPath))")
        removals.append(fromIndexPath)
        additions.append((toIndexPath, object.objectID))
    }

    func listMonitor(
        _ monitor: ListMonitor<Todo>, didUpdateObject object: Todo, atIndexPath indexPath: IndexPath
    ) {
        record("update", show(indexPath))
    }

    func listMonitorDidChange(_ monitor: ListMonitor<Todo>) {
        batches += 1
        // Old index paths first (descending), then new ones (ascending), as UIKit does.
        for path in removals.sorted(by: >) { rows[path.section].remove(at: path.item) }
        for section in deletedSections.sorted(by: >) { rows.remove(at: section) }
        for section in insertedSections.sorted() { rows.insert([], at: section) }
        for (path, id) in additions.sorted(by: { $0.0 < $1.0 }) {
            rows[path.section].insert(id, at: path.item)
        }
        let matches = rows == Self.rows(of: monitor)
        if !matches { mismatches += 1 }
        let log = "batch \(batches): " + events.joined(separator: ", ")
        draw(monitor, log: matches ? log : log + "  MISMATCH")
    }

    /// Called only for a full reload (not in this sample): start again from the monitor.
    func listMonitorDidRefetch(_ monitor: ListMonitor<Todo>) {
        rows = Self.rows(of: monitor)
        draw(monitor, log: "refetched")
    }

    /// The list as text: sections, then `section.item [x] title` rows.
    func render(_ monitor: ListMonitor<Todo>) -> String {
        var text = "\(monitor.numberOfObjects()) to-dos in \(monitor.numberOfSections()) sections\n"
        for section in 0..<monitor.numberOfSections() {
            let info = monitor.sectionInfo(at: section)
            text += "\(info.name)\n"
            for (item, todo) in info.objects.enumerated() {
                text += "  \(section).\(item)  [\(todo.done ? "x" : " ")] \(todo.title)\n"
            }
        }
        return text
    }

    /// In a terminal, clears the screen and redraws the list above the log
    /// line; otherwise prints the log line alone.
    func draw(_ monitor: ListMonitor<Todo>, log line: String) {
        if isTerminal { print("\u{1B}[2J\u{1B}[H" + render(monitor)) }
        print(line)
        fflush(nil)  // piped output is block-buffered; show each batch as it comes
    }

    private func record(_ kind: String, _ detail: String) {
        events.append("\(kind) \(detail)")
        totals[kind, default: 0] += 1
    }

    private func show(_ path: IndexPath) -> String { "\(path.section).\(path.item)" }
}

// A store in memory: nothing to set up, nothing left behind.
let stack = DataStack(Schema("V1", entities: [Entity<Todo>("Todo")]))
try stack.addStorageAndWait(InMemoryStore())
try stack.perform(synchronous: { tx in
    for (index, title) in titles.prefix(8).enumerated() {
        let todo = tx.create(Into<Todo>())
        todo.title = title
        todo.priority = index % 3 + 1
    }
})

let monitor = try stack.monitorList(
    From<Todo>().orderBy(.ascending(\.$title)).sectionBy(\.$priority) { "Priority \($0)" })
let screen = Screen(monitor)
monitor.addObserver(screen)
screen.draw(monitor, log: "initial list")

// The writer: 40 transactions, 150 ms apart, off the main actor. Each
// `perform` resumes once its commit is merged and the screen has redrawn.
let steps = 40
let writer = Task.detached { [stack] in
    var rng = SplitMix64(state: 42)
    for _ in 0..<steps {
        let seed = rng.next()
        try await stack.perform(author: "livelist") { tx in try change(tx, seed: seed) }
        try await Task.sleep(for: .milliseconds(150))
    }
}
try await writer.value

if !screen.isTerminal { print(screen.render(monitor), terminator: "") }
let counts = screen.totals.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
print("Done: \(steps) transactions, \(screen.batches) batches; \(counts.joined(separator: ", ")).")
print(screen.mismatches == 0
    ? "Every batch, applied like UIKit batch updates, gave the monitor's new list."
    : "\(screen.mismatches) batches did not give the monitor's new list.")
exit(screen.mismatches == 0 ? 0 : 1)
