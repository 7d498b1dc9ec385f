import CSQLite
import Foundation
import Strata

/// The model of the edit-many scenario: a list of the active items, by rank.
final class EditBench: ManagedObject {
    @Field.Stored("rank") var rank: Int = 0
    @Field.Stored("active") var active: Bool = false
    @Field.Stored("label") var label: String = ""
}

let editBenchSchema = Schema("V1", entities: [Entity<EditBench>("EditBench")])

/// The raw side's copy of the table Strata makes for ``EditBench``.
private enum RawEditSchema {
    static let createTable = """
        CREATE TABLE EditBench (_pk INTEGER PRIMARY KEY, rank INTEGER, active INTEGER, label TEXT)
        """
    static let insert = "INSERT INTO EditBench (_pk, rank, active, label) VALUES (?, ?, ?, ?)"
    /// One statement for every change: a NULL argument keeps the column.
    static let update = """
        UPDATE EditBench SET rank = coalesce(?, rank), active = coalesce(?, active), \
        label = coalesce(?, label) WHERE _pk = ?
        """
    static let selectList = """
        SELECT _pk, rank, active, label FROM EditBench WHERE active = 1 ORDER BY rank, _pk
        """
}

/// One row of the edit-many scenario, on either side.
private struct EditRow: Equatable {
    var rowID: Int64
    var rank: Int
    var active: Bool
    var label: String
}

/// A change of one field: kept in place, moved within the list, or out of it.
private enum EditChange {
    case label(String)
    case rank(Int)
    case leave
}

extension Scenario {
    /// Edits 10,000 known objects of a monitored list of `records.count`
    /// (by their IDs, one field each) in one transaction.
    ///
    /// Untimed: a store of each kind with the list's rows plus a fifth as many
    /// inactive ones; a ``ListMonitor`` of the active rows by rank; the same
    /// 10,000 row IDs and changes for every run (a third of them change the
    /// label and stay where they are, a third move within the list, a third
    /// leave it), undone after each run.
    /// Timed: Strata's `perform(synchronous:)` on the main actor, editing the
    /// objects by ID and setting one field each, up to the monitor's
    /// `didChange`; against one prepared `UPDATE` per row in one transaction,
    /// then a `SELECT` of the list's rows into Swift values. The sides run
    /// interleaved, round by round.
    static func editMany(_ records: [BenchRecord], in workspace: Workspace) throws -> Scenario {
        var random = SeededGenerator(seed: 2027)
        let listed = records.count
        let rows = (0..<(listed + listed / 5)).map { index in
            EditRow(
                rowID: Int64(index + 1), rank: Int(random.next() % 1_000_000),
                active: index < listed, label: "Item \(index)")
        }
        let edited = min(10_000, listed)
        var chosen = Set<Int64>()
        while chosen.count < edited { chosen.insert(Int64(random.next() % UInt64(listed)) + 1) }
        let plan: [(rowID: Int64, change: EditChange)] = chosen.sorted().shuffled(using: &random)
            .enumerated().map { index, rowID in
                switch index % 3 {
                case 0: (rowID, .label("Edited \(rowID)"))
                case 1: (rowID, .rank(Int(random.next() % 1_000_000)))
                default: (rowID, .leave)
                }
            }
        let expected = listed - plan.count { if case .leave = $0.change { true } else { false } }

        let strata = try EditManyStrata(rows: rows, plan: plan, in: workspace)
        let raw = try EditManyRaw(rows: rows, in: workspace)
        func verify(_ count: Int) throws {
            guard count == expected else {
                throw BenchmarkError(
                    description: "the list holds \(count) rows, expected \(expected)")
            }
        }
        return Scenario(
            name: "edit 10k of \(countLabel(listed)) listed",
            strata: Side {
                Run(
                    body: { try strata.edit() },
                    finish: {
                        try verify(strata.checkMonitor())
                        try strata.restore(from: rows)
                    })
            },
            raw: Side {
                Run(
                    body: { try raw.edit(plan) },
                    finish: { try raw.restore(plan.map(\.rowID), from: rows) })
            })
    }
}

/// The Strata side: a store, and a monitor of the active rows by rank.
@MainActor
private final class EditManyStrata {
    let stack: DataStack
    let query = From<EditBench>().where(\.$active == true).orderBy(.ascending(\.$rank))
    let monitor: ListMonitor<EditBench>
    let timer = EditTimer()
    /// The IDs of the rows the plan edits, and their changes, known before
    /// the transaction.
    let ids: [ObjectID<EditBench>]
    let changes: [EditChange]

    init(
        rows: [EditRow], plan: [(rowID: Int64, change: EditChange)], in workspace: Workspace
    ) throws {
        stack = try Fixtures.strataStack(at: workspace.newFile("strata-edit"), schema: editBenchSchema)
        try stack.perform(synchronous: { tx in
            for row in rows {
                let object = tx.create(Into<EditBench>())
                object.rank = row.rank
                object.active = row.active
                object.label = row.label
            }
        })
        monitor = try stack.monitorList(query)
        monitor.addObserver(timer)
        let all = try stack.fetchObjectIDs(From<EditBench>())
        let byRowID = Dictionary(uniqueKeysWithValues: all.map { ($0.rowID, $0) })
        ids = plan.map { byRowID[$0.rowID]! }
        changes = plan.map(\.change)
    }

    /// The timed transaction; returns how many rows the list holds after it.
    func edit() throws -> Int {
        timer.didChange = false
        try stack.perform(synchronous: { [ids, changes] tx in
            for (object, change) in zip(tx.edit(ids), changes) {
                switch change {
                case .label(let label): object.label = label
                case .rank(let rank): object.rank = rank
                case .leave: object.active = false
                }
            }
        })
        guard timer.didChange else {
            throw BenchmarkError(description: "the monitor did not report the commit")
        }
        return monitor.numberOfObjects()
    }

    /// The monitor's row count, once it is checked against a fresh fetch.
    func checkMonitor() throws -> Int {
        let listed = monitor.objectsInAllSections().map(\.objectID)
        guard listed == (try stack.fetchObjectIDs(query)) else {
            throw BenchmarkError(description: "the monitor and a fresh fetch disagree")
        }
        return listed.count
    }

    /// Gives the edited rows their values before the run back.
    func restore(from rows: [EditRow]) throws {
        try stack.perform(synchronous: { [ids] tx in
            for object in tx.edit(ids) {
                let row = rows[Int(object.objectID.rowID - 1)]
                object.rank = row.rank
                object.active = row.active
                object.label = row.label
            }
        })
        // A transaction's objects are freed on the transaction queue after it
        // returns; an empty transaction waits for that here, so that the
        // next timed run does not.
        try stack.perform(synchronous: { _ in })
    }
}

/// Notes that the monitor finished applying a change set.
@MainActor
private final class EditTimer: ListObserver {
    typealias ListEntityType = EditBench
    var didChange = false

    func listMonitorDidChange(_ monitor: ListMonitor<EditBench>) { didChange = true }
}

/// The raw side: the same table through the C API.
@MainActor
private final class EditManyRaw {
    let database: RawDatabase
    let update: RawStatement
    let select: RawStatement

    init(rows: [EditRow], in workspace: Workspace) throws {
        database = try RawDatabase(workspace.newFile("raw-edit"))
        try database.execute(
            "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; \(RawEditSchema.createTable)")
        try database.execute("BEGIN")
        let insert = try database.prepare(RawEditSchema.insert)
        let handle = insert.handle
        for row in rows {
            sqlite3_bind_int64(handle, 1, row.rowID)
            sqlite3_bind_int64(handle, 2, Int64(row.rank))
            sqlite3_bind_int64(handle, 3, row.active ? 1 : 0)
            sqlite3_bind_text(handle, 4, row.label, -1, strata_sqlite_transient())
            _ = try insert.step()
            try insert.reset()
        }
        try database.execute("COMMIT")
        update = try database.prepare(RawEditSchema.update)
        select = try database.prepare(RawEditSchema.selectList)
    }

    /// The timed work: the updates in one transaction, then the list read
    /// again; returns how many rows it holds.
    func edit(_ plan: [(rowID: Int64, change: EditChange)]) throws -> Int {
        try write(plan.map { rowID, change in
            switch change {
            case .label(let label): (rowID, nil, nil, label)
            case .rank(let rank): (rowID, rank, nil, nil)
            case .leave: (rowID, nil, false, nil)
            }
        })
        return try fetchList().count
    }

    /// Gives the edited rows their values before the run back.
    func restore(_ rowIDs: [Int64], from rows: [EditRow]) throws {
        try write(rowIDs.map { rowID in
            let row = rows[Int(rowID - 1)]
            return (rowID, row.rank, row.active, row.label)
        })
    }

    /// Runs the update once per row in one transaction; `nil` keeps a column.
    private func write(
        _ updates: [(rowID: Int64, rank: Int?, active: Bool?, label: String?)]
    ) throws {
        let handle = update.handle
        try database.execute("BEGIN")
        for (rowID, rank, active, label) in updates {
            if let rank {
                sqlite3_bind_int64(handle, 1, Int64(rank))
            } else {
                sqlite3_bind_null(handle, 1)
            }
            if let active {
                sqlite3_bind_int64(handle, 2, active ? 1 : 0)
            } else {
                sqlite3_bind_null(handle, 2)
            }
            if let label {
                sqlite3_bind_text(handle, 3, label, -1, strata_sqlite_transient())
            } else {
                sqlite3_bind_null(handle, 3)
            }
            sqlite3_bind_int64(handle, 4, rowID)
            _ = try update.step()
            try update.reset()
        }
        try database.execute("COMMIT")
    }

    /// The list's rows, decoded into structs.
    private func fetchList() throws -> [EditRow] {
        defer { try? select.reset() }
        let handle = select.handle
        var rows: [EditRow] = []
        while try select.step() {
            rows.append(EditRow(
                rowID: sqlite3_column_int64(handle, 0), rank: Int(sqlite3_column_int64(handle, 1)),
                active: sqlite3_column_int64(handle, 2) != 0,
                label: select.text(3) ?? ""))
        }
        return rows
    }
}
