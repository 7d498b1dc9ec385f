import Foundation
@testable import Strata
import Testing

/// The statements that count: `fetchCount`'s and `fetchExists`'s.
private func counts(_ log: RecordedStatements) -> [String] {
    log.all.filter { $0.hasPrefix("SELECT count(*)") || $0.hasPrefix("SELECT EXISTS") }
}

@MainActor
@Suite("Object context: counting reads no order")
struct ObjectContextFetchingTests {
    /// How many objects match, and whether one does past the offset, does
    /// not depend on their order: `fetchCount` and `fetchExists` send no
    /// `ORDER BY`, which with a limit would sort every match (through a
    /// relationship, a subquery a row) only to count them. Random
    /// predicates, orders, limits and offsets: the answers are those of
    /// `fetchObjectIDs`, which pages in order.
    // SQLite only: statements are recorded by SQLite's trace hook.
    @Test(arguments: StoreKind.sqlite, [UInt64(0xC047), 0xC048, 0xC049])
    func countsAndExistsSendNoOrder(_ kind: StoreKind, seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, kind, in: directory)
        try MonWorkload.seed(stack, count: 40, random: &random)
        let log = RecordedStatements()
        try stack.recordStatements { log.record($0) }
        defer { try? stack.recordStatements(nil) }
        let orders: [OrderBy<MonItem>] = [
            OrderBy(.ascending(\.$rank)), OrderBy(.descending(\.$label), .ascending(\.$group)),
            OrderBy(.ascending(\.$owner ~ \.$name, .caseInsensitive)), OrderBy(.descending(\.$flag)),
        ]
        for number in 0..<30 {
            let bound = Int(random.next() % 100)
            let limit: Int? = random.next() % 3 == 0 ? nil : Int(random.next() % 12)
            let offset = random.next() % 2 == 0 ? 0 : Int(random.next() % 30)
            let query = From<MonItem>().where(\.$rank < bound)
                .orderBy(orders[Int(random.next() % UInt64(orders.count))])
                .tweak {
                    $0.fetchLimit = limit
                    $0.fetchOffset = offset
                }
            let context = "\(kind), seed \(seed), query \(number): rank < \(bound), "
                + "limit \(limit.map(String.init) ?? "nil"), offset \(offset)"
            let ids = try stack.fetchObjectIDs(query)
            let before = counts(log).count
            #expect(try stack.fetchCount(query) == ids.count, "\(context)")
            #expect(try stack.fetchExists(query) == !ids.isEmpty, "\(context)")
            let sent = counts(log).dropFirst(before)
            #expect(sent.count == 2, "\(context): \(Array(sent))")
            #expect(!sent.contains { $0.contains("ORDER BY") }, "\(context): \(Array(sent))")
        }
    }
}
