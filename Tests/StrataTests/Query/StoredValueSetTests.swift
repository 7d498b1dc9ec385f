import Foundation
import Testing

@testable import Strata

/// Membership of many values: the hash set evaluation uses in memory, and
/// the one-blob list SQL reads back with `strata_values(?)`, both exact for
/// every storage class.
@Suite("StoredValueSet and strata_values")
struct StoredValueSetTests {
    /// Values where exactness matters: integers past 2^53 beside the reals
    /// next to them, signed zeros, the ends of Int64 and the reals past them,
    /// canonically equivalent spellings of one text, text beside its own bytes
    /// as a blob, empty text and blobs, NULL.
    static let edgeValues: [StoredValue] = {
        let integers: [Int64] = [
            0, 1, -1, 3, 1 << 53, (1 << 53) + 1, (1 << 53) - 1, .max, .min, .max - 1,
        ]
        let reals: [Double] = [
            0, -0.0, 1, -1, 3, 0.5, -2.5, 9_007_199_254_740_992, 9_007_199_254_740_994,
            9_223_372_036_854_775_808, -9_223_372_036_854_775_808, 1e300, .infinity, -.infinity,
            .leastNonzeroMagnitude,
        ]
        let texts = ["", "a", "A", "é", "e\u{301}", "1", "0", "🙂", "straße", "\u{0}x"]
        let blobs: [Data] = [Data(), Data([0]), Data("a".utf8), Data("é".utf8), Data([0xFF, 0])]
        return [.null] + integers.map(StoredValue.integer) + reals.map(StoredValue.real)
            + texts.map(StoredValue.text) + blobs.map(StoredValue.blob)
    }()

    /// What `value IN set` means in SQL, one candidate at a time (how
    /// `Where.evaluate` tested membership before it had a set).
    private static func matches(_ value: StoredValue, _ candidate: StoredValue) -> Bool {
        value.isNull
            ? candidate.isNull : StoredValue.sqliteCompare(value, candidate) == .orderedSame
    }

    @Test func membershipIsSQLiteEqualityForEveryPair() {
        for value in Self.edgeValues {
            for candidate in Self.edgeValues {
                #expect(
                    StoredValueSet([candidate]).contains(value) == Self.matches(value, candidate),
                    "\(value) in [\(candidate)]")
            }
        }
    }

    /// Seeded: random subsets of the edge values, duplicates included.
    @Test(arguments: [UInt64(1), 2, 3])
    func membershipOfRandomSetsIsAnyMatch(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        for _ in 0..<200 {
            let values = (0..<Int(random.next() % 12)).map { _ in
                Self.edgeValues[Int(random.next() % UInt64(Self.edgeValues.count))]
            }
            let set = StoredValueSet(values)
            for value in Self.edgeValues {
                #expect(
                    set.contains(value) == values.contains { Self.matches(value, $0) },
                    "seed \(seed): \(value) in \(values)")
            }
        }
    }

    /// The list a join reads: each non-NULL value once, the first of those
    /// SQL finds equal, in the order given. A set whose caller vouches for
    /// distinct values (the unique import's text IDs) gives them as they are,
    /// and answers membership as any set of them does.
    @Test(arguments: [UInt64(9), 10])
    func distinctValuesAreTheFirstOfEachEqualGroup(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        for _ in 0..<200 {
            let values = (0..<Int(random.next() % 16)).map { _ in
                Self.edgeValues[Int(random.next() % UInt64(Self.edgeValues.count))]
            }
            var expected: [StoredValue] = []
            for value in values where !value.isNull && !expected.contains(where: { Self.matches(value, $0) }) {
                expected.append(value)
            }
            let distinct = StoredValueSet(values).distinctNonNullValues
            #expect(distinct.count == expected.count, "seed \(seed): \(values)")
            #expect(zip(distinct, expected).allSatisfy { $0.isIdentical(to: $1) }, "seed \(seed): \(values)")
            let vouched = StoredValueSet(expected, distinct: true)
            #expect(vouched.distinctNonNullValues.count == expected.count)
            #expect(zip(vouched.distinctNonNullValues, expected).allSatisfy { $0.isIdentical(to: $1) })
            for value in Self.edgeValues {
                #expect(vouched.contains(value) == values.contains { !$0.isNull && Self.matches(value, $0) })
            }
        }
    }

    /// A set hashes its values on the first membership test; threads that
    /// ask together all see the same answers (one of them makes the keys).
    @Test(arguments: [UInt64(4), 5])
    func threadsAskingAFreshSetTogetherAgree(seed: UInt64) async {
        var random = SplitMix64(seed: seed)
        for _ in 0..<20 {
            let values = (0..<Int(random.next() % 40)).map { _ in
                Self.edgeValues[Int(random.next() % UInt64(Self.edgeValues.count))]
            }
            let set = StoredValueSet(values)
            let expected = Self.edgeValues.map { value in values.contains { Self.matches(value, $0) } }
            let answers = await withTaskGroup(of: [Bool].self) { group in
                for _ in 0..<4 {
                    group.addTask { Self.edgeValues.map(set.contains) }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(answers == Array(repeating: expected, count: 4), "seed \(seed): \(values)")
        }
    }

    private func rows(_ connection: Connection, _ sql: String, _ arguments: [StoredValue]) throws
        -> [StoredValue]
    {
        let statement = try connection.statement(sql)
        try statement.bind(arguments)
        var values: [StoredValue] = []
        while try statement.step() { values.append(statement.value(at: 0)) }
        return values
    }

    /// Every value comes back in its own storage class with its exact bits or
    /// bytes, and SQL's `IN` over the list answers as the set does.
    @Test func listsRoundTripThroughSQLiteExactly() throws {
        let connection = try Connection(path: ":memory:", readOnly: false)
        let list = StoredValueList.encode(Self.edgeValues)
        let values = try rows(connection, "SELECT value FROM strata_values(?)", [.blob(list)])
        #expect(values.count == Self.edgeValues.count)
        for (read, written) in zip(values, Self.edgeValues) {
            switch (read, written) {
            case let (.real(a), .real(b)): #expect(a.bitPattern == b.bitPattern, "\(a) for \(b)")
            case let (.text(a), .text(b)): #expect(Array(a.utf8) == Array(b.utf8), "\(a) for \(b)")
            default: #expect(read == written)
            }
        }
        let present = Self.edgeValues.filter { !$0.isNull }
        for candidate in present {
            let set = StoredValueSet([candidate])
            for value in present {
                let answer = try rows(
                    connection, "SELECT ? IN (SELECT value FROM strata_values(?))",
                    [value, .blob(StoredValueList.encode([candidate]))])
                #expect(
                    answer == [.integer(set.contains(value) ? 1 : 0)], "\(value) IN [\(candidate)]")
            }
        }
    }

    /// A list that is not one (truncated, garbage, a bad tag) is an SQLite
    /// error, never a crash; NULL is an empty list; no argument, no plan.
    @Test(arguments: [UInt64(7), 8])
    func malformedListsAreAnErrorNotACrash(seed: UInt64) throws {
        let connection = try Connection(path: ":memory:", readOnly: false)
        let sql = "SELECT value FROM strata_values(?)"
        #expect(try rows(connection, sql, [.null]).isEmpty)
        #expect(try rows(connection, sql, [.blob(StoredValueList.encode([]))]).isEmpty)
        #expect(throws: DatabaseError.self) {
            try connection.statement("SELECT value FROM strata_values")
        }
        let whole = [UInt8](StoredValueList.encode(Self.edgeValues))
        var random = SplitMix64(seed: seed)
        for length in 1..<whole.count {
            #expect(throws: DatabaseError.self) {
                try rows(connection, sql, [.blob(Data(whole.prefix(length)))])
            }
        }
        for _ in 0..<500 {
            var garbage = whole
            garbage[Int(random.next() % UInt64(garbage.count))] = UInt8(
                truncatingIfNeeded: random.next())
            // A changed byte may still make a list; it must then read without crashing.
            _ = try? rows(connection, sql, [.blob(Data(garbage))])
        }
        #expect(throws: DatabaseError.self) { try rows(connection, sql, [.blob(Data([1, 9]))]) }
        #expect(throws: DatabaseError.self) { try rows(connection, sql, [.text("not a list")]) }
    }
}
