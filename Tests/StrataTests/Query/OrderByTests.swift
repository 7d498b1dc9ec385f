import Testing

@testable import Strata

@MainActor
@Suite("OrderBy: total orders, NULL placement, pagination")
struct OrderByTests {
    /// A stack holding `count` items set up by `configure` (row IDs 1, 2, ...
    /// in that order), each in group `other % 3` (group 0 has no name) unless
    /// `other` is negative.
    private func stack(
        _ count: Int, _ configure: (Int, ProbeItem) -> Void
    ) throws -> (DataStack, TemporaryDirectory) {
        let directory = TemporaryDirectory()
        let stack = try makeStack(probeSchema, .inMemory, in: directory)
        try stack.perform(synchronous: { tx in
            let groups = (0..<3).map { index -> ProbeGroup in
                let group = tx.create(Into<ProbeGroup>())
                group.name = index == 0 ? nil : "g\(index)"
                return group
            }
            for index in 0..<count {
                let item = tx.create(Into<ProbeItem>())
                configure(index, item)
                if item.other >= 0 { item.group = groups[item.other % 3] }
            }
        })
        return (stack, directory)
    }

    private func texts(_ stack: DataStack, _ order: OrderBy<ProbeItem>) throws -> [String] {
        try stack.fetchAll(From<ProbeItem>().orderBy(order)).map(\.text)
    }

    @Test func caseInsensitiveOrderFoldsThenBreaksTiesByRowID() throws {
        let values = ["b", "A", "a", "B", "É", "e", "f", "Zoë", "zoe"]
        let (stack, directory) = try stack(values.count) { $1.text = values[$0] }
        #expect(
            try texts(stack, OrderBy(.ascending(\.$text))) == [
                "A", "B", "Zoë", "a", "b", "e", "f", "zoe", "É",
            ])
        #expect(
            try texts(stack, OrderBy(.ascending(\.$text, .caseInsensitive)))
                == ["A", "a", "b", "B", "e", "f", "zoe", "Zoë", "É"])
        #expect(
            try texts(
                stack, OrderBy(.ascending(\.$text, [.caseInsensitive, .diacriticInsensitive])))
                == ["A", "a", "b", "B", "É", "e", "f", "Zoë", "zoe"])
        // Descending keys still break ties by ascending row ID.
        #expect(
            try texts(stack, OrderBy(.descending(\.$text, .caseInsensitive)))
                == ["É", "Zoë", "zoe", "f", "e", "b", "B", "A", "a"])
        withExtendedLifetime(directory) {}
    }

    @Test func caseInsensitiveOrderMatchesAreInIncreasingOrder() throws {
        var random = ProbeRandom(seed: 21)
        let (stack, directory) = try stack(400) { _, item in
            item.text = random.string()
            item.note = random.chance(0.3) ? nil : random.string()
            item.other = random.below(4) - 1
        }
        let items = try stack.fetchAll(From<ProbeItem>())
        let orders: [OrderBy<ProbeItem>] = [
            OrderBy(.ascending(\.$text, .caseInsensitive)),
            OrderBy(.descending(\.$text, .caseInsensitive)),
            OrderBy(
                .ascending(\.$text, .diacriticInsensitive), .descending(\.$note, .caseInsensitive)),
            OrderBy(
                .descending(\.$note, [.caseInsensitive, .diacriticInsensitive], nulls: .first)),
            OrderBy(
                .ascending(\ProbeItem.$group ~ \.$name, .caseInsensitive, nulls: .last),
                .ascending(\.$text)),
        ]
        for (index, order) in orders.enumerated() {
            let fetched = try stack.fetchAll(From<ProbeItem>().orderBy(order)).map(\.rowID)
            #expect(
                fetched == items.sorted(by: order.areInIncreasingOrder).map(\.rowID),
                "order #\(index), seed 21")
            // A strict total order: irreflexive, and exactly one of a<b, b<a for distinct objects.
            for (a, b) in zip(items, items.dropFirst(7)) {
                #expect(!order.areInIncreasingOrder(a, a))
                #expect(order.areInIncreasingOrder(a, b) != order.areInIncreasingOrder(b, a))
            }
        }
        withExtendedLifetime(directory) {}
    }

    @Test func nullsGoFirstAscendingAndLastDescendingUnlessToldOtherwise() throws {
        let values: [Int?] = [3, nil, 1, nil, 2]
        let (stack, directory) = try stack(values.count) { index, item in
            item.maybe = values[index]
            item.text = "\(index)"
            item.other = index == 1 ? -1 : index  // item 1 has no group; group 0 has no name
        }
        func order(_ key: OrderBy<ProbeItem>.SortKey) throws -> [String] {
            try texts(stack, OrderBy(key))
        }
        #expect(try order(.ascending(\.$maybe)) == ["1", "3", "2", "4", "0"])
        #expect(try order(.descending(\.$maybe)) == ["0", "4", "2", "1", "3"])
        #expect(try order(.ascending(\.$maybe, nulls: .last)) == ["2", "4", "0", "1", "3"])
        #expect(try order(.descending(\.$maybe, nulls: .first)) == ["1", "3", "0", "4", "2"])
        #expect(try order(.ascending(\.$maybe, nulls: .first)) == ["1", "3", "2", "4", "0"])
        #expect(try order(.descending(\.$maybe, nulls: .last)) == ["0", "4", "2", "1", "3"])
        // Through a relationship: a nil link and a NULL name are both NULL.
        // Groups by `other % 3`: items 0 and 3 → group 0 (no name), 2 → "g2", 4 → "g1".
        #expect(try order(.ascending(\ProbeItem.$group ~ \.$name)) == ["0", "1", "3", "4", "2"])
        #expect(
            try order(.descending(\ProbeItem.$group ~ \.$name, nulls: .first)) == [
                "0", "1", "3", "2", "4",
            ])
        #expect(
            try order(.ascending(\ProbeItem.$group ~ \.$name, nulls: .last)) == [
                "4", "2", "0", "1", "3",
            ])
        let items = try stack.fetchAll(From<ProbeItem>())
        for nulls in [OrderBy<ProbeItem>.NullPlacement.automatic, .first, .last] {
            for key in [
                OrderBy<ProbeItem>.SortKey.ascending(\.$maybe, nulls: nulls),
                .descending(\.$maybe, nulls: nulls),
            ] {
                let order = OrderBy(key)
                #expect(
                    try stack.fetchAll(From<ProbeItem>().orderBy(order)).map(\.rowID)
                        == items.sorted(by: order.areInIncreasingOrder).map(\.rowID))
            }
        }
        withExtendedLifetime(directory) {}
    }

    @Test(arguments: [31, 32, 33] as [UInt64])
    func paginationReturnsEveryObjectExactlyOnce(seed: UInt64) throws {
        var random = ProbeRandom(seed: seed)
        // Few distinct values: many ties, which only the row ID breaks.
        let (stack, directory) = try stack(500) { _, item in
            item.number = random.below(4)
            item.text = random.pick(["a", "A", "b", "é", "E"])
            item.maybe = random.chance(0.3) ? nil : random.below(3)
            item.other = random.below(4) - 1
        }
        let orders: [OrderBy<ProbeItem>] = [
            OrderBy(),
            OrderBy(.ascending(\.$number)),
            OrderBy(.descending(\.$text, .caseInsensitive), .ascending(\.$maybe, nulls: .last)),
            OrderBy(.ascending(\ProbeItem.$group ~ \.$name), .descending(\.$number)),
        ]
        let filters: [Where<ProbeItem>] = [
            Where(true), \.$number != 2,
            Where(\.$text, .hasPrefix("a", [.caseInsensitive, .diacriticInsensitive])),
        ]
        for (orderIndex, order) in orders.enumerated() {
            for filter in filters {
                let query = From<ProbeItem>().where(filter).orderBy(order)
                let all = try stack.fetchAll(query).map(\.rowID)
                #expect(Set(all).count == all.count)
                let pageSize = 1 + random.below(60)
                var pages: [Int64] = []
                var offset = 0
                while true {
                    let page = query.tweak {
                        $0.fetchLimit = pageSize; $0.fetchOffset = offset
                    }
                    let objects = try stack.fetchAll(page).map(\.rowID)
                    #expect(try stack.fetchObjectIDs(page).map(\.rowID) == objects)
                    #expect(try stack.fetchCount(page) == objects.count)
                    #expect(try stack.fetchOne(page)?.rowID == objects.first)
                    #expect(try stack.fetchExists(page) == !objects.isEmpty)
                    pages += objects
                    #expect(objects.count <= pageSize)
                    if objects.count < pageSize { break }
                    offset += pageSize
                }
                #expect(pages == all, "seed \(seed), order #\(orderIndex), page size \(pageSize)")
                // An offset alone skips exactly that many.
                let skip = random.below(all.count + 2)
                #expect(
                    try stack.fetchAll(query.tweak { $0.fetchOffset = skip }).map(\.rowID)
                        == Array(all.dropFirst(skip)), "seed \(seed)")
            }
        }
        withExtendedLifetime(directory) {}
    }

    @Test func pagesInsideATransactionSeePendingObjects() throws {
        let (stack, directory) = try stack(30) { index, item in item.number = index % 5 }
        try stack.perform(synchronous: { tx in
            for index in 0..<7 {
                tx.create(Into<ProbeItem>()).number = index % 3
            }
            let query = From<ProbeItem>().orderBy(.descending(\.$number))
            let all = try tx.fetchAll(query).map(\.rowID)
            #expect(all.count == 37)
            var pages: [Int64] = []
            for offset in stride(from: 0, to: 40, by: 8) {
                pages += try tx.fetchAll(
                    query.tweak {
                        $0.fetchLimit = 8; $0.fetchOffset = offset
                    }
                ).map(\.rowID)
            }
            #expect(pages == all)
            let count = try tx.fetchCount(
                query.tweak {
                    $0.fetchLimit = 10; $0.fetchOffset = 30
                })
            #expect(count == 7)
        })
        withExtendedLifetime(directory) {}
    }
}
