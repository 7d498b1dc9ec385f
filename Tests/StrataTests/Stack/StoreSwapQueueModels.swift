import Foundation
@testable import Strata
import Testing

/// The cases, callers, rows and work of ``StoreSwapQueueTests``.
extension StoreSwapQueueTests {
    enum Swap: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case replace
        case resetFile
        case resetInMemory
        case resetServer
        case remove

        var testDescription: String { rawValue }

        /// Every case, the server's left out when the PostgreSQL suites are turned off.
        static var allCases: [Swap] {
            [.replace, .resetFile, .resetInMemory, .remove]
                + StoreKind.enabled([.postgreSQL]).map { _ in .resetServer }
        }

        var storeKind: StoreKind {
            switch self {
            case .resetInMemory: .inMemory
            case .resetServer: .postgreSQL
            default: .file
            }
        }

        /// The owner a transaction finds on the new file: the source's, or none after a reset.
        var newOwner: String { self == .replace ? "new" : "none" }
    }

    /// How a queued transaction is asked for.
    enum Caller: CaseIterable {
        case completion
        case awaiting
        case blockingOffTheMainActor
    }

    /// A stack's item as a value, to compare contents whatever their row IDs.
    struct Row: Hashable, Comparable {
        var group: Int
        var rank: Int
        var label: String
        var flag: Bool

        init(group: Int, rank: Int, label: String, flag: Bool) {
            (self.group, self.rank, self.label, self.flag) = (group, rank, label, flag)
        }

        init(_ item: MonItem) {
            self.init(group: item.group, rank: item.rank, label: item.label ?? "", flag: item.flag)
        }

        static func < (lhs: Row, rhs: Row) -> Bool {
            let (left, right) = (lhs.flag ? 1 : 0, rhs.flag ? 1 : 0)
            return (lhs.group, lhs.rank, lhs.label, left) < (rhs.group, rhs.rank, rhs.label, right)
        }
    }

    /// One transaction's random work, run in a transaction or applied to a list of rows.
    struct Work: Sendable {
        enum Step: Sendable {
            case create(Row)
            case flag(group: Int)
            case deleteBelow(rank: Int)
        }

        let index: Int
        let steps: [Step]

        static func random(index: Int, _ random: inout SplitMix64) -> Work {
            let steps = (0..<Int.random(in: 1...4, using: &random)).map { step -> Step in
                switch Int.random(in: 0..<20, using: &random) {
                case 0..<12:
                    return .create(Row(
                        group: Int.random(in: 0..<3, using: &random),
                        rank: Int.random(in: 0..<1_000, using: &random),
                        label: "t\(index)-\(step)", flag: false))
                case 12..<17: return .flag(group: Int.random(in: 0..<3, using: &random))
                default: return .deleteBelow(rank: Int.random(in: 0..<60, using: &random))
                }
            }
            return Work(index: index, steps: steps)
        }

        /// Notes in `touches` which file the transaction found (by its
        /// owner's name) as it first reads, then does its steps; returns the owner's name.
        func run(in tx: BaseDataTransaction, noting touches: Locked<[String]>) throws -> String {
            let owner = try tx.fetchOne(From<MonOwner>())?.name ?? "none"
            touches.withLock { $0.append("\(index) \(owner)") }
            for step in steps {
                switch step {
                case .create(let row):
                    let item = tx.create(Into<MonItem>())
                    (item.group, item.rank, item.label) = (row.group, row.rank, row.label)
                case .flag(let group):
                    for item in try tx.fetchAll(From<MonItem>().where(\.$group == group)) {
                        item.flag = true
                    }
                case .deleteBelow(let rank):
                    tx.delete(try tx.fetchAll(From<MonItem>().where(\.$rank < rank)))
                }
            }
            return owner
        }

        func apply(to rows: inout [Row]) {
            for step in steps {
                switch step {
                case .create(let row): rows.append(row)
                case .flag(let group):
                    for index in rows.indices where rows[index].group == group {
                        rows[index].flag = true
                    }
                case .deleteBelow(let rank): rows.removeAll { $0.rank < rank }
                }
            }
        }
    }

    typealias Outcome = (index: Int, result: Result<String, StrataError>)

    /// Commits a transaction when told of a refetch, noting the owner it found.
    final class WriterOnRefetch: ListObserver {
        typealias ListEntityType = MonItem
        let stack: DataStack
        var found: [Result<String, StrataError>] = []

        init(_ stack: DataStack) {
            self.stack = stack
        }

        func listMonitorDidRefetch(_ monitor: ListMonitor<MonItem>) {
            do throws(StrataError) {
                found.append(.success(try stack.perform(synchronous: { tx in
                    tx.create(Into<MonItem>()).label = "written on refetch"
                    return try tx.fetchOne(From<MonOwner>())?.name ?? "none"
                })))
            } catch {
                found.append(.failure(error))
            }
        }
    }
}

/// A code that V2 makes unique: a V1 store holding one twice cannot migrate.
final class QueueCodeV1: ManagedObject {
    @Field.Stored("code") var code: String = ""
}

final class QueueCodeV2: ManagedObject {
    @Field.Stored("code", .unique) var code: String = ""
}

let queueCodesV1 = Schema("V1", entities: [Entity<QueueCodeV1>("Code")])
let queueCodesV2 = Schema("V2", entities: [Entity<QueueCodeV2>("Code")])
