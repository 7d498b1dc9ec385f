import Strata

/// The benchmark's model object: four stored fields.
final class Bench: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("age") var age: Int = 0
    @Field.Stored("score") var score: Double = 0
    @Field.Stored("email") var email: String? = nil
}

/// The schema both sides use; the raw side mirrors it in ``RawSchema``.
let benchSchema = Schema("V1", entities: [Entity<Bench>("Bench")])

/// The raw side's copy of the table Strata makes for ``Bench``.
enum RawSchema {
    static let createTable = """
        CREATE TABLE Bench (_pk INTEGER PRIMARY KEY, name TEXT, age INTEGER, score REAL, email TEXT)
        """
    static let insert = "INSERT INTO Bench (name, age, score, email) VALUES (?, ?, ?, ?)"
    static let selectAll = "SELECT _pk, name, age, score, email FROM Bench"
}

/// One row of benchmark data, the same for both sides.
struct BenchRecord {
    var name: String
    var age: Int
    var score: Double
    var email: String?

    /// `count` deterministic records; every tenth has no email.
    static func sample(count: Int) -> [BenchRecord] {
        (0..<count).map { index in
            BenchRecord(
                name: "Person \(index)",
                age: index % 90,
                score: Double(index) * 0.25,
                email: index % 10 == 0 ? nil : "person\(index)@example.com")
        }
    }

    /// What the fetch scenario adds up per row, on either side.
    static func checksum(age: Int, name: String, email: String?) -> Int {
        age + name.utf8.count + (email?.utf8.count ?? 0)
    }
}

/// The model of the unique-lookup scenario: ``Bench``'s fields plus a
/// unique, hence indexed, `code`.
final class UniqueBench: ManagedObject {
    @Field.Stored("code", .unique) var code: String = ""
    @Field.Stored("name") var name: String = ""
    @Field.Stored("age") var age: Int = 0
    @Field.Stored("score") var score: Double = 0
}

/// The schema of the unique-lookup scenario; the raw side mirrors it in ``RawUniqueSchema``.
let uniqueBenchSchema = Schema("V1", entities: [Entity<UniqueBench>("UniqueBench")])

/// The raw side's copy of the table and unique index Strata makes for ``UniqueBench``.
enum RawUniqueSchema {
    static let createTable = """
        CREATE TABLE UniqueBench (_pk INTEGER PRIMARY KEY, code TEXT, name TEXT, age INTEGER, score REAL);
        CREATE UNIQUE INDEX UniqueBench_code_unique ON UniqueBench (code)
        """
    static let insert = "INSERT INTO UniqueBench (code, name, age, score) VALUES (?, ?, ?, ?)"
    static let selectByCode = "SELECT _pk, code, name, age, score FROM UniqueBench WHERE code = ?"
    static let updateAge = "UPDATE UniqueBench SET age = ? WHERE _pk = ?"
}

/// The unique code of record `index`: `SKU-00012345`.
func uniqueCode(_ index: Int) -> String {
    let digits = String(index)
    return "SKU-" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
}

/// A deterministic pseudo-random sequence (SplitMix64), so that every run
/// and both sides see the same values.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
