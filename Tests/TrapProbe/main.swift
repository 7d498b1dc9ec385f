// A release-built program that commits a programmer error Strata traps, so
// that a test can check the trap's message is printed in an optimized build
// too (`preconditionFailure` prints nothing under -O). Its argument names
// the misuse; see Tests/StrataTests/Support/ReleaseTrapTests.swift.
import Foundation
import Strata

final class ProbeItem: ManagedObject {
    @Field.Stored("name") var name: String = ""
}

@MainActor
func misuse(_ kind: String) throws {
    let stack = DataStack(Schema("Probe1", entities: [Entity<ProbeItem>("ProbeItem")]))
    try stack.addStorageAndWait(InMemoryStore())
    try stack.perform(synchronous: { tx in tx.create(Into<ProbeItem>()).name = "a" })
    switch kind {
    case "write-main-context-object":
        let item = try stack.fetchOne(From<ProbeItem>())
        item?.name = "b"
    case "write-detached-object":
        ProbeItem().name = "b"
    default:
        FileHandle.standardError.write(Data("unknown misuse '\(kind)'\n".utf8))
        exit(2)
    }
    FileHandle.standardError.write(Data("no trap\n".utf8))
    exit(3)
}

try MainActor.assumeIsolated { try misuse(CommandLine.arguments.dropFirst().first ?? "") }
