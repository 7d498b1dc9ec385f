import Testing

@testable import Strata

@Suite("Identity map: one object per row ID, however row IDs are spread")
struct IdentityMapTests {
    /// Detached objects with the given row IDs; the table only reads `rowID`.
    private func objects(_ rowIDs: some Sequence<Int64>) -> [ManagedObject] {
        rowIDs.map { rowID in
            let object = ManagedObject()
            object.rowID = rowID
            return object
        }
    }

    @Test func findsARowIDStoredAfterTheDirectArrayOutgrewTheLiveObjects() {
        let table = EntityObjectTable(ownership: .strong)
        // Many live objects let the direct array grow past 65,536 row IDs...
        let many = objects(1...17_500) + objects([70_000])
        many.forEach(table.insert)
        // ...and once they are gone, a row ID it covers must still be found.
        many.forEach(table.remove)
        let late = objects([69_000])[0]
        table.insert(late)
        #expect(table.object(69_000) === late)
    }

    @Test func findsAnOverflowRowIDAfterTheDirectArrayGrewOverIt() {
        let table = EntityObjectTable(ownership: .strong)
        // With few live objects, a large row ID goes to the overflow...
        let early = objects([70_000])[0]
        table.insert(early)
        // ...and stays findable when the direct array later grows over it.
        let many = objects(1...17_500) + objects([70_005])
        many.forEach(table.insert)
        #expect(table.object(70_000) === early)
        #expect(table.object(70_005) === many.last)
        #expect(table.object(17_500) === many[17_499])
    }

    @Test func forgetsARemovedObject() {
        let table = EntityObjectTable(ownership: .strong)
        let all = objects([1, 2, 100_000])
        all.forEach(table.insert)
        all.forEach(table.remove)
        #expect(table.object(1) == nil)
        #expect(table.object(2) == nil)
        #expect(table.object(100_000) == nil)
    }
}
