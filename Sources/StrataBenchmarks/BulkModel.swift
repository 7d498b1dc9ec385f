import Strata

/// The bulk-write benchmarks' model: `rank` is indexed (a permutation of the
/// row numbers, so the rows a range selects are spread over the table);
/// `score` is `rank / 4`, unindexed, so `score < x` selects the same rows by
/// a full scan; `level` is 0 or 1, alternating.
final class BulkItem: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("rank", .indexed) var rank: Int = 0
    @Field.Stored("score") var score: Double = 0
    @Field.Stored("level") var level: Int = 0

    /// What the benchmarks' ListMonitor shows: the `level == 0` items (half),
    /// sorted by `rank`.
    static var monitored: From<BulkItem> { From<BulkItem>().where(\.$level == 0).orderBy(.ascending(\.$rank)) }
}

let bulkItemSchema = Schema("V1", entities: [Entity<BulkItem>("BulkItem")])

/// The cascade benchmark's parents: deleting one deletes its children.
final class BulkParent: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("rank", .indexed) var rank: Int = 0
    @Field.Relationship("children", inverse: \BulkChild.$parent, deleteRule: .cascade)
    var children: Set<BulkChild>
}

/// The cascade benchmark's children: a to-one back to the parent (nullify);
/// `position` numbers the children of one parent from 0.
final class BulkChild: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("position") var position: Int = 0
    @Field.Relationship("parent") var parent: BulkParent?

    /// What the cascade benchmark's ListMonitor shows: the children at
    /// positions 0 to 4 (half), sorted by position.
    static var monitored: From<BulkChild> {
        From<BulkChild>().where(\.$position < 5).orderBy(.ascending(\.$position))
    }
}

let bulkCascadeSchema = Schema(
    "V1", entities: [Entity<BulkParent>("BulkParent"), Entity<BulkChild>("BulkChild")])

/// The raw side's copies of the tables and indexes Strata makes for the bulk
/// models (checked against Strata's own `sqlite_master` when the templates
/// are built).
enum RawBulkSchema {
    static let items = """
        CREATE TABLE "BulkItem" ("_pk" INTEGER PRIMARY KEY, "name" TEXT, "rank" INTEGER, "score", "level" INTEGER);
        CREATE INDEX "BulkItem_rank_index" ON "BulkItem" ("rank")
        """
    static let cascade = """
        CREATE TABLE "BulkParent" ("_pk" INTEGER PRIMARY KEY, "name" TEXT, "rank" INTEGER);
        CREATE INDEX "BulkParent_rank_index" ON "BulkParent" ("rank");
        CREATE TABLE "BulkChild" ("_pk" INTEGER PRIMARY KEY, "name" TEXT, "position" INTEGER, "parent" INTEGER);
        CREATE INDEX "BulkChild_parent_index" ON "BulkChild" ("parent")
        """
}

/// The rows both sides start from, made from one seed.
struct BulkRows {
    /// `rank` of row `i` (a permutation of `0..<count`).
    let ranks: [Int]

    init(count: Int, seed: UInt64 = 1_313) {
        var random = SeededGenerator(seed: seed)
        var ranks = Array(0..<count)
        ranks.shuffle(using: &random)
        self.ranks = ranks
    }

    var count: Int { ranks.count }

    static func name(_ index: Int) -> String { "Item \(index)" }
    static func score(rank: Int) -> Double { Double(rank) / 4 }
    static func level(_ index: Int) -> Int { index % 2 }
}
