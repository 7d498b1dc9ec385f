/// Which entity each row of an inheritance tree's table is, read from its
/// discriminator (`_entity`, the first column after `_pk` in every select
/// list of a tree) while a fetch materializes it.
///
/// A tree has a handful of entities, so a row's name is compared byte by
/// byte with each name of the fetched entity's family, without making a
/// `String`. A name outside the family is a row of another branch (a read
/// by row ID that crossed over), which the fetch leaves out; an unknown name
/// (a row of an entity this schema lacks) reads as the fetched entity itself.
struct TreeRows {
    private let family: [(name: [UInt8], entity: EntityDescription)]
    private let fetched: EntityDescription
    private let tree: [[UInt8]]

    init(_ entity: EntityDescription, schema: Schema) {
        fetched = entity
        family = (entity.tree?.family ?? [entity.index]).map { index in
            let member = schema.entities[index]
            return (Array(member.name.utf8), member)
        }
        let root = schema.entities[entity.tableIndex]
        tree = (root.tree?.familyNames ?? []).map { Array($0.utf8) }
    }

    /// The concrete entity of the statement's current row, or `nil` when it
    /// is an entity of the tree outside the fetched entity's family.
    func entity(of statement: Statement) -> EntityDescription? {
        let bytes = statement.textBytes(at: Int32(EntityTree.discriminatorSlot + 1))
        for candidate in family where candidate.name.elementsEqual(bytes) {
            return candidate.entity
        }
        return tree.contains { $0.elementsEqual(bytes) } ? nil : fetched
    }

    /// The concrete entity a row's discriminator value names, as ``entity(of:)``.
    func entity(named value: StoredValue) -> EntityDescription? {
        guard case .text(let name) = value else { return fetched }
        let bytes = Array(name.utf8)
        for candidate in family where candidate.name == bytes { return candidate.entity }
        return tree.contains(bytes) ? nil : fetched
    }
}
