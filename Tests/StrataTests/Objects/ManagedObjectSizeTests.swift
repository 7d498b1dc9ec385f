#if canImport(Glibc)
import Glibc
#endif
import Testing

@testable import Strata

final class SizedFourFields: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("age") var age: Int = 0
    @Field.Stored("score") var score: Double = 0
    @Field.Stored("email") var email: String? = nil
}

/// A fetch makes one object per row, so an object's heap block is most of a
/// fetch's memory (see Docs/Performance.md, issue #15). glibc hands out
/// blocks in steps of 16 bytes: a word more state per object costs 16 bytes
/// an object in every fetch.
@Suite("ManagedObject: size")
struct ManagedObjectSizeTests {
    #if os(Linux)
    @Test func anObjectOfFourFieldsTakesA96ByteHeapBlock() throws {
        let object = SizedFourFields()
        // The usable size of glibc's 96-byte block is 88 bytes: the
        // object's header and state (56 bytes) and its four wrappers (8 each).
        // glibc's <malloc.h> is not part of the Glibc module: look it up.
        let symbol = try #require(dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_usable_size"))
        typealias UsableSize = @convention(c) (UnsafeMutableRawPointer?) -> Int
        let usable = unsafeBitCast(symbol, to: UsableSize.self)(Unmanaged.passUnretained(object).toOpaque())
        #expect(usable <= 88, "\(usable) usable bytes: the object outgrew its 96-byte block")
    }
    #endif
}
