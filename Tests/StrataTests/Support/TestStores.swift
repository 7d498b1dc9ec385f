import Foundation
import Strata
import Testing

/// Where a test's store lives; use as `@Test(arguments: StoreKind.allCases)`.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case inMemory
    case file

    var testDescription: String { rawValue }
}

/// A unique folder under the temporary directory, removed with everything in it on deinit.
final class TemporaryDirectory: @unchecked Sendable {
    let url: URL

    init(function: String = #function) {
        let safe = function.filter { $0.isLetter || $0.isNumber }.prefix(40)
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("strata-tests-\(safe)-\(UUID().uuidString)", isDirectory: true)
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// A path inside the folder (not created).
    func file(_ name: String) -> URL {
        url.appendingPathComponent(name)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}

/// The store file tests use in `directory`.
func storeURL(in directory: TemporaryDirectory) -> URL {
    directory.url.appendingPathComponent("store.sqlite")
}

/// The storage for `kind`: a fresh in-memory store, or the file at ``storeURL(in:)``.
func makeStorage(_ kind: StoreKind, in directory: TemporaryDirectory) -> any StorageInterface {
    switch kind {
    case .inMemory: return InMemoryStore()
    case .file: return SQLiteStore(fileURL: storeURL(in: directory))
    }
}

/// A stack for `schema` with a store of `kind` added.
@MainActor
func makeStack(_ schema: Schema, _ kind: StoreKind, in directory: TemporaryDirectory) throws -> DataStack {
    let stack = DataStack(schema)
    switch kind {
    case .inMemory: try stack.addStorageAndWait(InMemoryStore())
    case .file: try stack.addStorageAndWait(SQLiteStore(fileURL: storeURL(in: directory)))
    }
    return stack
}

/// A small seeded PRNG (SplitMix64), so random cases are reproducible from the seed.
struct SplitMix64: RandomNumberGenerator, Sendable {
    private(set) var state: UInt64
    let seed: UInt64

    init(seed: UInt64) {
        self.seed = seed
        self.state = seed
    }

    /// A generator with a fresh seed; print `seed` in failure messages.
    static func random() -> SplitMix64 {
        SplitMix64(seed: UInt64.random(in: 0 ... .max))
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// `count` random bytes.
    mutating func bytes(_ count: Int) -> Data {
        var bytes = [UInt8]()
        bytes.reserveCapacity(count)
        while bytes.count < count {
            var word = next()
            for _ in 0..<8 where bytes.count < count {
                bytes.append(UInt8(truncatingIfNeeded: word))
                word >>= 8
            }
        }
        return Data(bytes)
    }
}
