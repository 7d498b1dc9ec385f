import Foundation
import Testing

@testable import Strata

/// A value whose release can be seen.
private final class Token: Sendable {
    let name: String
    init(_ name: String) { self.name = name }
}

/// Keys of this file.
private enum UserInfoKeys {
    static let name = UserInfo.Key<String>()
    static let tags = UserInfo.Key<[String]>()
    static let token = UserInfo.Key<Token>()
    static let shared = UserInfo.Key<Int>()
    /// CoreStore's kind of key: a static variable's address.
    nonisolated(unsafe) static var pointer: Void?
}

/// CoreStore's `userInfo` on stacks, transactions and monitors.
@Suite("UserInfo")
struct UserInfoTests {
    @Test
    @MainActor
    func everyOwnerKeepsItsOwnValuesUnderEachKey() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(virtualSchema, .inMemory, in: directory)
        let id = try stack.perform(synchronous: { tx in
            tx.userInfo[UserInfoKeys.name] = "transaction"
            #expect(tx.userInfo[UserInfoKeys.name] == "transaction")
            #expect(tx.userInfo[UserInfoKeys.tags] == nil)
            return tx.create(Into<VKeeper>()).objectID
        })
        let list = try stack.monitorList(From<VKeeper>().orderBy(.ascending(\.$name)))
        let object = try stack.monitorObject(id)
        stack.userInfo[UserInfoKeys.name] = "stack"
        list.userInfo[UserInfoKeys.name] = "list"
        object.userInfo[UserInfoKeys.name] = "object"
        stack.userInfo[UserInfoKeys.tags] = ["a"]

        #expect(stack.userInfo[UserInfoKeys.name] == "stack")
        #expect(stack.userInfo[UserInfoKeys.tags] == ["a"])
        #expect(list.userInfo[UserInfoKeys.name] == "list")
        #expect(list.userInfo[UserInfoKeys.tags] == nil)
        #expect(object.userInfo[UserInfoKeys.name] == "object")

        stack.userInfo[UserInfoKeys.name] = nil
        #expect(stack.userInfo[UserInfoKeys.name] == nil)
        #expect(stack.userInfo[UserInfoKeys.tags] == ["a"])
        // Two keys of the same type are two keys.
        let another = UserInfo.Key<String>()
        stack.userInfo[another] = "another"
        #expect(stack.userInfo[UserInfoKeys.name] == nil)
        #expect(stack.userInfo[another] == "another")
    }

    /// CoreStore's keys: the address of a static variable, through
    /// `withUnsafePointer` (Swift takes no `&` in a subscript).
    @Test
    func anAddressIsAKeyToo() {
        let info = UserInfo()
        withUnsafePointer(to: &UserInfoKeys.pointer) { info[$0] = "by address" }
        let read = withUnsafePointer(to: &UserInfoKeys.pointer) { info[$0] }
        #expect(read as? String == "by address")
        #expect(info[UserInfoKeys.name] == nil)
        let lazy = withUnsafePointer(to: &UserInfoKeys.pointer) { key in
            info[key, lazyInit: { "not used" }]
        }
        #expect(lazy as? String == "by address")
        withUnsafePointer(to: &UserInfoKeys.pointer) { info[$0] = nil }
        #expect(withUnsafePointer(to: &UserInfoKeys.pointer) { info[$0] } == nil)
    }

    @Test
    func lazyInitRunsOnceAndMayUseTheSameUserInfo() {
        let info = UserInfo()
        var runs = 0
        let made = info[UserInfoKeys.token, lazyInit: {
            runs += 1
            // The lock is recursive: the closure may read and set other keys.
            info[UserInfoKeys.name] = "inner"
            return Token("made")
        }]
        let again = info[UserInfoKeys.token, lazyInit: {
            runs += 1
            return Token("again")
        }]
        #expect(runs == 1)
        #expect(made === again)
        #expect(made.name == "made")
        #expect(info[UserInfoKeys.name] == "inner")
    }

    /// Threads each set, read and remove values under keys of their own and
    /// one they share, in a seeded random order: each reads back its own
    /// values, and the shared key ends holding one of the values set.
    @Test
    func threadsSetAndReadAtOnce() async {
        let info = UserInfo()
        let seed = SplitMix64.random().seed
        let threads = 8
        let mismatches = await withTaskGroup(of: Int.self) { group in
            for thread in 0..<threads {
                group.addTask {
                    var random = SplitMix64(seed: seed &+ UInt64(thread))
                    let own = UserInfo.Key<Int>()
                    var mismatches = 0
                    for step in 0..<2_000 {
                        switch Int.random(in: 0..<4, using: &random) {
                        case 0:
                            info[own] = step
                            if info[own] != step { mismatches += 1 }
                        case 1:
                            info[own] = nil
                            if info[own] != nil { mismatches += 1 }
                        case 2:
                            let value = info[own, lazyInit: { step }]
                            if info[own] != value { mismatches += 1 }
                        default:
                            info[UserInfoKeys.shared] = thread
                        }
                    }
                    return mismatches
                }
            }
            return await group.reduce(0, +)
        }
        #expect(mismatches == 0, "seed \(seed)")
        if let last = info[UserInfoKeys.shared] {
            #expect((0..<threads).contains(last), "seed \(seed)")
        }
    }

    @Test
    @MainActor
    func valuesGoWithTheirOwner() throws {
        let directory = TemporaryDirectory()
        weak var kept: Token?
        weak var keptByStack: Token?
        do {
            let stack = try makeStack(virtualSchema, .inMemory, in: directory)
            try stack.perform(synchronous: { tx in
                let token = Token("transaction")
                kept = token
                tx.userInfo[UserInfoKeys.token] = token
            })
            #expect(kept == nil)
            let token = Token("stack")
            keptByStack = token
            stack.userInfo[UserInfoKeys.token] = token
            #expect(keptByStack != nil)
        }
        #expect(keptByStack == nil)
    }
}
