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
