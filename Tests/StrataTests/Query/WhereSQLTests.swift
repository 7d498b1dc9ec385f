import Foundation
import Testing

@testable import Strata

/// The SQL clauses and the arguments a fetch compiles to (after `SELECT ... FROM "T" AS t0`).
func compiled<Object: ManagedObject>(
    _ query: From<Object>, limit: Int? = nil
) throws -> (sql: String, arguments: [StoredValue]) {
    let fetch = try query.compile(
        in: probeSchema.entity(of: Object.self), schema: probeSchema, dialect: .sqlite, limit: limit)
    return (fetch.clauses, fetch.arguments)
}

/// The `WHERE` condition alone, for a predicate on items, with its arguments.
func condition(_ predicate: Where<ProbeItem>) throws -> (
    sql: String, arguments: [StoredValue]
) {
    let (sql, arguments) = try compiled(From<ProbeItem>().where(predicate))
    let prefix = " WHERE ", suffix = " ORDER BY t0._pk ASC"
    #expect(sql.hasPrefix(prefix) && sql.hasSuffix(suffix), "unexpected shape: \(sql)")
    return (String(sql.dropFirst(prefix.count).dropLast(suffix.count)), arguments)
}

/// Collects the statements a ``DataStack`` runs; safe to call from any thread.
final class RecordedStatements: Sendable {
    private let statements = Locked<[String]>([])

    func record(_ sql: String) { statements.withLock { $0.append(sql) } }

    var all: [String] { statements.withLock { $0 } }
}

@MainActor
@Suite("Where: the SQL each clause compiles to")
struct WhereSQLTests {
    private let group = "(SELECT t1.\"name\" FROM \"Group\" AS t1 WHERE t1._pk = t0.\"group\")"

    @Test func aFetchWithoutClausesOrdersByRowID() throws {
        let (sql, arguments) = try compiled(From<ProbeItem>())
        #expect(sql == " ORDER BY t0._pk ASC")
        #expect(arguments.isEmpty)
    }

    @Test func comparisonsBindTheirValue() throws {
        let cases: [(Where<ProbeItem>, String, [StoredValue])] = [
            (\.$number == 3, "t0.\"number\" = ?", [.integer(3)]),
            (\.$number != 3, "t0.\"number\" IS DISTINCT FROM ?", [.integer(3)]),
            (\.$number < 3, "t0.\"number\" < ?", [.integer(3)]),
            (\.$number <= 3, "t0.\"number\" <= ?", [.integer(3)]),
            (\.$real > 2.5, "t0.\"real\" > ?", [.real(2.5)]),
            (\.$text >= "Zoë", "t0.\"text\" >= ?", [.text("Zoë")]),
            (\.$note == "a", "t0.\"note\" = ?", [.text("a")]),
        ]
        for (predicate, expected, values) in cases {
            let (sql, arguments) = try condition(predicate)
            #expect(sql == expected)
            #expect(arguments == values)
        }
    }

    @Test func nilComparisonsTestForNull() throws {
        let none: Int? = nil
        #expect(try condition(\.$maybe == none) == ("t0.\"maybe\" IS NULL", []))
        #expect(try condition(\.$maybe != none) == ("t0.\"maybe\" IS NOT NULL", []))
        // An order comparison with NULL is never true.
        #expect(try condition(\.$maybe < none) == ("FALSE", []))
        #expect(try condition(\.$maybe >= none) == ("FALSE", []))
    }

    @Test func combinatorsNestAndKeepNullsOutOfNot() throws {
        let (sql, arguments) = try condition((\.$number > 1 && \.$number < 9) || !(\.$text < "a"))
        #expect(
            sql == "((t0.\"number\" > ? AND t0.\"number\" < ?) OR NOT coalesce(t0.\"text\" < ?, FALSE))")
        #expect(arguments == [.integer(1), .integer(9), .text("a")])
        #expect(try condition(Where(true)).sql == "TRUE")
        #expect(try condition(Where(false)).sql == "FALSE")
        #expect(try condition(.all([])).sql == "TRUE")
        #expect(try condition(.any([])).sql == "FALSE")
        #expect(try condition(Where(\ProbeItem.$number == 1)).sql == "t0.\"number\" = ?")
    }

    @Test func longListsNestAsBalancedTrees() throws {
        let terms: [Where<ProbeItem>] = [
            \.$number == 1, \.$other == 2, \.$real == 3, \.$text == "d",
        ]
        #expect(
            try condition(.all(terms)).sql
                == "((t0.\"number\" = ? AND t0.\"other\" = ?) AND (t0.\"real\" = ? AND t0.\"text\" = ?))"
        )
        #expect(
            try condition(.any(Array(terms.prefix(3)))).sql
                == "(t0.\"number\" = ? OR (t0.\"other\" = ? OR t0.\"real\" = ?))")
    }

    /// `a && b && c && d` is one list of four, not a chain three deep.
    @Test func chainedOperatorsFlattenIntoOneList() throws {
        #expect(
            try condition(\.$number == 1 && \.$other == 2 && \.$real == 3 && \.$text == "d").sql
                == "((t0.\"number\" = ? AND t0.\"other\" = ?) AND (t0.\"real\" = ? AND t0.\"text\" = ?))"
        )
        #expect(
            try condition(\.$number == 1 || \.$other == 2 || \.$real == 3).sql
                == "(t0.\"number\" = ? OR (t0.\"other\" = ? OR t0.\"real\" = ?))")
        // Three equalities on one field chained with || also become one IN list.
        #expect(
            try condition(\.$number == 1 || \.$number == 2 || \.$number == 3).sql
                == "t0.\"number\" IN (?, ?, ?)")
        // Mixed operators keep their grouping.
        #expect(
            try condition((\.$number == 1 || \.$other == 2) && \.$real == 3).sql
                == "((t0.\"number\" = ? OR t0.\"other\" = ?) AND t0.\"real\" = ?)")
        let repeated = From<ProbeItem>().where(\.$number == 1).where(\.$other == 2).where(
            \.$real == 3)
        #expect(
            try compiled(repeated).sql
                == " WHERE (t0.\"number\" = ? AND (t0.\"other\" = ? AND t0.\"real\" = ?)) ORDER BY t0._pk ASC"
        )
    }

    @Test func optionalCombinatorsIgnoreAMissingSide() throws {
        let some: Where<ProbeItem>? = \.$number == 1
        let none: Where<ProbeItem>? = nil
        #expect(try condition((some &&? none)!).sql == "t0.\"number\" = ?")
        #expect(try condition((none ||? some)!).sql == "t0.\"number\" = ?")
        #expect((none &&? none) == nil)
        #expect(try condition((some ||? some)!).sql == "(t0.\"number\" = ? OR t0.\"number\" = ?)")
    }

    /// As in CoreStore, a side that is not optional makes the result not
    /// optional: it goes straight into `.where`, and a `nil` side leaves it as it was.
    @Test func optionalCombinatorsWithOneSureSideGiveASurePredicate() throws {
        let base: Where<ProbeItem> = \.$other == 2
        let some: Where<ProbeItem>? = \.$number == 1
        let none: Where<ProbeItem>? = nil
        let kept: Where<ProbeItem> = base &&? none
        #expect(try condition(kept).sql == "t0.\"other\" = ?")
        #expect(try condition(none ||? base).sql == "t0.\"other\" = ?")
        #expect(try condition(base &&? some) == condition(base && some!))
        #expect(try condition(some &&? base) == condition(some! && base))
        #expect(try condition(base ||? some) == condition(base || some!))
        #expect(try condition(some ||? base) == condition(some! || base))
        #expect(try condition(base &&? base).sql == "(t0.\"other\" = ? AND t0.\"other\" = ?)")
        #expect(try condition(base ||? base).sql == "(t0.\"other\" = ? OR t0.\"other\" = ?)")
        let filtered = From<ProbeItem>().where(\.$real > 0 &&? none).where(base ||? some)
        #expect(
            try compiled(filtered).sql
                == " WHERE (t0.\"real\" > ? AND (t0.\"other\" = ? OR t0.\"number\" = ?)) ORDER BY t0._pk ASC")
    }

    @Test func membershipIsAnInListWithNullTestedApart() throws {
        #expect(
            try condition(Where(\.$number, in: [1, 2])) == (
                "t0.\"number\" IN (?, ?)", [.integer(1), .integer(2)]
            ))
        #expect(
            try condition(["a", "b"] ~= \ProbeItem.$text) == (
                "t0.\"text\" IN (?, ?)", [.text("a"), .text("b")]
            ))
        #expect(
            try condition(Where(\.$maybe, in: [1, nil]))
                == ("(t0.\"maybe\" IN (?) OR t0.\"maybe\" IS NULL)", [.integer(1)]))
        #expect(try condition(Where(\.$maybe, in: [nil])) == ("t0.\"maybe\" IS NULL", []))
        #expect(try condition(Where(\.$number, in: [Int]())) == ("FALSE", []))
        // Three or more equalities on one field become one IN list.
        #expect(
            try condition(\.$number == 1 || \.$number == 2).sql
                == "(t0.\"number\" = ? OR t0.\"number\" = ?)")
        #expect(
            try condition(.any([\.$number == 1, \.$number == 2, \.$number == 3]))
                == ("t0.\"number\" IN (?, ?, ?)", [.integer(1), .integer(2), .integer(3)]))
    }

    @Test func rangesAreBetween() throws {
        #expect(
            try condition(Where(\.$number, between: 2...5))
                == ("t0.\"number\" BETWEEN ? AND ?", [.integer(2), .integer(5)]))
        #expect(
            try condition(Where(\ProbeItem.$group ~ \.$rank, between: 1...1)).sql
                == "(SELECT t1.\"rank\" FROM \"Group\" AS t1 WHERE t1._pk = t0.\"group\") BETWEEN ? AND ?"
        )
    }

    @Test func textTestsCallTheSharedMatchFunction() throws {
        let cases: [(TextPattern, String)] = [
            (.hasPrefix("an"), "strata_text_match(0, t0.\"text\", ?, 0)"),
            (.hasSuffix("an", .caseInsensitive), "strata_text_match(1, t0.\"text\", ?, 1)"),
            (.contains("an", .diacriticInsensitive), "strata_text_match(2, t0.\"text\", ?, 2)"),
            (
                .like("J*n?", [.caseInsensitive, .diacriticInsensitive]),
                "strata_text_match(3, t0.\"text\", ?, 3)"
            ),
        ]
        for (pattern, expected) in cases {
            let (sql, arguments) = try condition(Where(\.$text, pattern))
            #expect(sql == expected)
            #expect(arguments == [.text(pattern.pattern)])
        }
        #expect(
            try condition(Where(\ProbeItem.$group ~ \.$name, .contains("x"))).sql
                == "strata_text_match(2, \(group), ?, 0)")
    }

    @Test func pathsAreCorrelatedSubqueries() throws {
        #expect(try condition(\ProbeItem.$group ~ \.$name == "x") == ("\(group) = ?", [.text("x")]))
        #expect(try condition(\ProbeItem.$group ~ \.$name == nil) == ("\(group) IS NULL", []))
        #expect(
            try condition(\ProbeItem.$group ~ \.$parent ~ \.$name != "x").sql
                == "(SELECT (SELECT t2.\"name\" FROM \"Group\" AS t2 WHERE t2._pk = t1.\"parent\") "
                + "FROM \"Group\" AS t1 WHERE t1._pk = t0.\"group\") IS DISTINCT FROM ?")
    }

    @Test func relationshipsCompareRowIDs() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(probeSchema, .inMemory, in: directory)
        try stack.perform(synchronous: { tx in _ = tx.create(Into<ProbeGroup>()) })
        let group = try #require(try stack.fetchOne(From<ProbeGroup>()))
        let none: ProbeGroup? = nil
        #expect(try condition(\.$group == group) == ("t0.\"group\" = ?", [.integer(group.rowID)]))
        #expect(
            try condition(\.$group != group) == ("t0.\"group\" IS DISTINCT FROM ?", [.integer(group.rowID)]))
        #expect(
            try condition(\.$group == group.objectID) == (
                "t0.\"group\" = ?", [.integer(group.rowID)]
            ))
        #expect(try condition(\.$group == none) == ("t0.\"group\" IS NULL", []))
        #expect(
            try condition(\.$group ~ \.$parent == group.objectID)
                == (
                    "(SELECT t1.\"parent\" FROM \"Group\" AS t1 WHERE t1._pk = t0.\"group\") = ?",
                    [.integer(group.rowID)]
                ))
    }

    @Test func toManyTestsAreExistsAndCountSubqueries() throws {
        let link =
            "t1._pk IN (SELECT \"target\" FROM \"_strata_link_Item_tags\" WHERE \"source\" = t0._pk)"
        #expect(
            try condition(.any(\.$tags, \.$label == "x")) == (
                "EXISTS (SELECT 1 FROM \"Tag\" AS t1 WHERE (t1.\"label\" = ?) AND \(link))",
                [.text("x")]
            ))
        #expect(
            try condition(.none(\.$tags, \.$label == "x")).sql
                == "NOT EXISTS (SELECT 1 FROM \"Tag\" AS t1 WHERE (t1.\"label\" = ?) AND \(link))")
        #expect(
            try condition(.all(\.$tags, \.$label == "x")).sql
                == "NOT EXISTS (SELECT 1 FROM \"Tag\" AS t1 WHERE NOT coalesce(t1.\"label\" = ?, FALSE) AND \(link))"
        )
        #expect(
            try condition(Where<ProbeItem>.count(\.$tags) >= 2)
                == ("(SELECT count(*) FROM \"Tag\" AS t1 WHERE \(link)) >= ?", [.integer(2)]))
        let groups = try compiled(From<ProbeGroup>().where(.any(\.$items, \.$number == 1)))
        #expect(
            groups.sql == " WHERE EXISTS (SELECT 1 FROM \"Item\" AS t1 WHERE (t1.\"number\" = ?) "
                + "AND t1.\"group\" = t0._pk) ORDER BY t0._pk ASC")
        #expect(groups.arguments == [.integer(1)])
    }

    @Test func rawSQLKeepsItsArgumentsInPlace() throws {
        let (sql, arguments) = try condition(
            \.$number == 1 && Where(sql: "length(\"text\") > ?", arguments: [.integer(3)])
                && \.$other == 2)
        #expect(sql == "(t0.\"number\" = ? AND ((length(\"text\") > ?) AND t0.\"other\" = ?))")
        #expect(arguments == [.integer(1), .integer(3), .integer(2)])
    }

    @Test func unstorableValuesFailToCompile() {
        #expect(throws: StrataError.self) { try condition(\.$real == .nan) }
        #expect(throws: StrataError.self) { try condition(Where(\.$real, in: [1, .nan])) }
    }

    @Test func ordersEndWithTheRowID() throws {
        let (sql, arguments) = try compiled(
            From<ProbeItem>().orderBy(
                .ascending(\.$text, .caseInsensitive), .descending(\.$maybe, nulls: .first),
                .ascending(
                    \ProbeItem.$group ~ \.$name, [.caseInsensitive, .diacriticInsensitive],
                    nulls: .last),
                .descending(\.$real)))
        #expect(
            sql
                == " ORDER BY strata_fold(t0.\"text\", 1) ASC NULLS FIRST, t0.\"maybe\" DESC NULLS FIRST, "
                + "strata_fold(\(group), 3) ASC NULLS LAST, t0.\"real\" DESC NULLS LAST, t0._pk ASC"
        )
        #expect(arguments.isEmpty)
    }

    @Test func limitAndOffsetAreBoundOnce() throws {
        let page = try compiled(
            From<ProbeItem>().where(\.$number == 1).tweak {
                $0.fetchLimit = 20; $0.fetchOffset = 40
            })
        #expect(page.sql == " WHERE t0.\"number\" = ? ORDER BY t0._pk ASC LIMIT ? OFFSET ?")
        #expect(page.arguments == [.integer(1), .integer(20), .integer(40)])
        let skip = try compiled(From<ProbeItem>().tweak { $0.fetchOffset = 5 })
        // No limit binds the largest integer, which both SQLite and PostgreSQL read as none.
        #expect(skip == (" ORDER BY t0._pk ASC LIMIT ? OFFSET ?", [.integer(.max), .integer(5)]))
        // fetchOne caps the limit at 1 without losing a smaller one or the offset.
        let one = try compiled(
            From<ProbeItem>().tweak {
                $0.fetchLimit = 10; $0.fetchOffset = 3
            }, limit: 1)
        #expect(one.arguments == [.integer(1), .integer(3)])
        // A limit of 0 is no limit, as in Core Data: only fetchOne's cap remains.
        let zero = try compiled(From<ProbeItem>().tweak { $0.fetchLimit = 0 }, limit: 1)
        #expect(zero.arguments == [.integer(1), .integer(0)])
        let none = try compiled(From<ProbeItem>().tweak { $0.fetchLimit = 0 })
        #expect(none == (" ORDER BY t0._pk ASC", []))
    }
}

// MARK: HostileStrings strings

/// Strings that would change the statement if they were ever spliced into
/// SQL text, each with a marker that no SQL Strata writes contains.
enum HostileStrings {
    static let marker = "ⓢtrata-hostile"
    static let values: [String] = [
        "'; DROP TABLE \"Item\"; -- \(marker)", "\"\(marker)", "-- \(marker)", "; \(marker)",
        "a\0b\(marker)", "%\(marker)", "_\(marker)", "*\(marker)", "?\(marker)",
        "' OR 1=1 --\(marker)",
        "\(marker)'", "/* \(marker)",
    ]
    /// The bare characters, which also appear in Strata's own SQL (`?`, `*`, `_`),
    /// so only their effect on the SQL text can be checked.
    static let bare: [String] = [
        "'", "\"", "--", ";", "a\0b", "%", "_", "*", "?", "'; DROP TABLE x; --",
    ]
    static var all: [String] { values + bare }
}

@MainActor
@Suite("Where: every value is a bound parameter")
struct WhereSQLHostileValueTests {
    /// Every position a value can take in a query on items.
    private static func queries(_ value: String) -> [From<ProbeItem>] {
        let queries: [Where<ProbeItem>] = [
            \.$text == value, \.$text != value, \.$text < value, \.$note >= value,
            Where(\.$text, in: [value, "plain"]), [value] ~= \ProbeItem.$note,
            Where(\.$text, between: value...value),
            Where(\.$text, .hasPrefix(value)), Where(\.$text, .hasSuffix(value, .caseInsensitive)),
            Where(\.$note, .contains(value, .diacriticInsensitive)), Where(\.$text, .like(value)),
            \ProbeItem.$group ~ \.$name == value,
            Where(\ProbeItem.$group ~ \.$parent ~ \.$name, .contains(value)),
            .any(\.$tags, \.$label == value), .all(\.$tags, Where(\.$label, .like(value))),
            .any([\.$text == value, \.$text == value, \.$text == "plain"]),
            Where(sql: "\"text\" = ?", arguments: [.text(value)]),
        ]
        return queries.map {
            From<ProbeItem>().where($0).orderBy(.ascending(\.$text, .caseInsensitive))
        }
    }

    @Test(arguments: HostileStrings.all)
    func hostileValuesNeverChangeTheSQLText(value: String) throws {
        let plain = Self.queries("plain")
        for (index, query) in Self.queries(value).enumerated() {
            let hostile = try compiled(query)
            let reference = try compiled(plain[index])
            // The same statement as with a harmless value: the value lives only in the arguments.
            #expect(hostile.sql == reference.sql, "query #\(index)")
            #expect(hostile.arguments.count == reference.arguments.count, "query #\(index)")
            #expect(hostile.arguments.contains(.text(value)), "query #\(index)")
            if value.count > 2 { #expect(!hostile.sql.contains(value), "query #\(index)") }
        }
    }

    @Test func fetchesMatchHostileValuesAsData() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(probeSchema, .inMemory, in: directory)
        let values = HostileStrings.all + ["plain", "a", "b", "x", ""]
        try stack.perform(synchronous: { tx in
            let groups = values.map { value -> ProbeGroup in
                let group = tx.create(Into<ProbeGroup>())
                group.name = value
                return group
            }
            for (index, value) in values.enumerated() {
                let item = tx.create(Into<ProbeItem>())
                item.text = value
                item.note = values[(index + 1) % values.count]
                item.group = groups[(index + 2) % values.count]
            }
        })
        let items = try stack.fetchAll(From<ProbeItem>())
        // Byte equality, as SQLite's BINARY collation compares.
        func same(_ a: String?, _ b: String) -> Bool {
            a.map { Array($0.utf8) == Array(b.utf8) } ?? false
        }
        func ids(_ query: Where<ProbeItem>) throws -> Set<Int64> {
            Set(try stack.fetchAll(From<ProbeItem>().where(query)).map(\.rowID))
        }
        func expected(_ test: (ProbeItem) -> Bool) -> Set<Int64> {
            Set(items.filter(test).map(\.rowID))
        }

        for value in HostileStrings.all {
            let bytes = Array(value.utf8)
            #expect(
                try ids(\.$text == value) == expected { same($0.text, value) },
                "\(value.debugDescription)")
            #expect(
                try ids(\.$text != value) == expected { !same($0.text, value) },
                "\(value.debugDescription)")
            #expect(
                try ids(\.$note == value) == expected { same($0.note, value) },
                "\(value.debugDescription)")
            #expect(
                try ids(Where(\.$text, in: [value, "zzz"])) == expected { same($0.text, value) })
            #expect(try ids([value] ~= \ProbeItem.$note) == expected { same($0.note, value) })
            #expect(
                try ids(Where(\.$text, between: value...value)) == expected { same($0.text, value) }
            )
            #expect(
                try ids(\ProbeItem.$group ~ \.$name == value)
                    == expected { same($0.group?.name, value) })
            #expect(
                try ids(Where(\.$text, .hasPrefix(value)))
                    == expected { $0.text.utf8.starts(with: bytes) })
            #expect(
                try ids(Where(\.$text, .hasSuffix(value)))
                    == expected { $0.text.utf8.reversed().starts(with: bytes.reversed()) })
            #expect(
                try ids(Where(\.$text, .contains(value)))
                    == expected { $0.text.utf8.firstRange(of: bytes) != nil })
            // `%` and `_` are no wildcards: only `*` and `?` are.
            if !value.contains("*"), !value.contains("?") {
                #expect(try ids(Where(\.$text, .like(value))) == expected { same($0.text, value) })
            }
            #expect(
                try stack.fetchCount(From<ProbeItem>()) == values.count, "a statement was not data")
        }
    }

    /// Text holding NUL (U+0000), in every position a value can take: on
    /// SQLite it is data like any other; PostgreSQL's text cannot hold it,
    /// so there the query is refused with `.invalidValue` naming the entity
    /// and field before it reaches the server, and a transaction whose read
    /// was refused goes on (a statement the server fails would end it).
    @Test(arguments: StoreKind.allCases)
    @MainActor
    func textHoldingNULInAQueryIsDataOnSQLiteAndRefusedByNameOnPostgreSQL(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(probeSchema, kind, in: directory)
        let value = "a\0b"
        try stack.perform(synchronous: { tx in
            tx.create(Into<ProbeItem>()).text = kind == .postgreSQL ? "a" : value
        })
        // The commonest shape's SQL is compiled once and reused (`From+SelectCache`):
        // a value the compiler refuses must not slip through the cached text.
        #expect(try stack.fetchCount(From<ProbeItem>().where(\.$text == "a")) == (kind == .postgreSQL ? 1 : 0))
        _ = try stack.fetchAll(From<ProbeItem>().where(\.$text == "a"))
        for (index, query) in Self.queries(value).enumerated() {
            guard kind == .postgreSQL else {
                _ = try stack.fetchAll(query)
                continue
            }
            let error = #expect(throws: StrataError.self, "query #\(index)") {
                try stack.fetchAll(query)
            }
            guard case let .invalidValue(entity, field, reason)? = error else {
                Issue.record("query #\(index): not .invalidValue: \(String(describing: error))")
                continue
            }
            #expect(reason.contains("NUL"), "query #\(index): \(entity).\(field): \(reason)")
            if index == 0 { #expect(entity == "Item" && field == "text") }
            if index == 11 { #expect(entity == "Item" && field == "group.name") }
            if index == 13 { #expect(entity == "Tag" && field == "label") }
        }
        if kind != .postgreSQL {
            #expect(try stack.fetchCount(From<ProbeItem>().where(\.$text == value)) == 1)
            #expect(try stack.fetchCount(From<ProbeItem>().where(Where(\.$text, .contains("\0")))) == 1)
        }
        try stack.perform(synchronous: { tx in
            if kind == .postgreSQL {
                #expect(throws: StrataError.self) {
                    try tx.fetchAll(From<ProbeItem>().where(\.$text == value))
                }
            }
            tx.create(Into<ProbeItem>()).text = "after"
        })
        #expect(try stack.fetchCount(From<ProbeItem>()) == 2)
    }

    /// Every statement that reaches SQLite, in fetches and in a transaction's
    /// writes, carries the hostile values as bound parameters only.
    @Test func recordedStatementsNeverContainValues() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(probeSchema, .file, in: directory)
        let log = RecordedStatements()
        try stack.recordStatements { log.record($0) }
        try stack.perform(synchronous: { tx in
            for value in HostileStrings.values {
                let group = tx.create(Into<ProbeGroup>())
                group.name = value
                let tag = tx.create(Into<ProbeTag>())
                tag.label = value
                let item = tx.create(Into<ProbeItem>())
                item.text = value
                item.note = value
                item.group = group
                item.tags = [tag]
            }
            // Reads inside the transaction flush the pending rows first.
            for value in HostileStrings.values {
                let count = try tx.fetchCount(From<ProbeItem>().where(\.$text == value))
                #expect(count == 1)
            }
        })
        for value in HostileStrings.values {
            for query in WhereSQLHostileValueTests.queries(value) {
                _ = try stack.fetchAll(query)
            }
            #expect(try stack.fetchCount(From<ProbeItem>().where(\.$note == value)) == 1)
            #expect(try stack.fetchOne(From<ProbeGroup>().where(\.$name == value))?.name == value)
        }
        try stack.perform(synchronous: { tx in
            for value in HostileStrings.values {
                let item = try #require(try tx.fetchOne(From<ProbeItem>().where(\.$text == value)))
                item.note = value + value
            }
            let deleted = try tx.deleteAll(
                From<ProbeItem>().where(Where(\.$text, .hasPrefix("' OR"))))
            #expect(deleted == 1)
        })
        try stack.recordStatements(nil)
        let countBefore = log.all.count
        _ = try stack.fetchAll(From<ProbeItem>())
        #expect(log.all.count == countBefore, "recording stopped")

        let statements = log.all
        #expect(statements.contains { $0.hasPrefix("INSERT INTO \"Item\"") })
        #expect(statements.contains { $0.hasPrefix("UPDATE \"Item\"") })
        #expect(statements.contains { $0.hasPrefix("DELETE FROM \"Item\"") })
        #expect(statements.contains { $0.contains("strata_text_match(") })
        for statement in statements {
            #expect(!statement.contains(HostileStrings.marker), "\(statement)")
        }
        #expect(try stack.fetchCount(From<ProbeItem>()) == HostileStrings.values.count - 1)
        #expect(try stack.fetchCount(From<ProbeGroup>()) == HostileStrings.values.count)
    }
}
