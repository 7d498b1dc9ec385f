import Strata

final class Owner: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("pets", inverse: \Animal.$owner, deleteRule: .cascade)
    var pets: Set<Animal>
    @Field.Relationship("queue", inverse: \Animal.$queuedAt)
    var queue: [Animal]
    @Field.Relationship("passport", inverse: \Passport.$holder, deleteRule: .deny)
    var passport: Passport?
    @Field.Relationship("clubs", inverse: \Club.$members)
    var clubs: Set<Club>
}

final class Animal: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("owner") var owner: Owner?
    @Field.Relationship("queuedAt") var queuedAt: Owner?
    @Field.Relationship("favorite") var favorite: Owner?
}

final class Passport: ManagedObject {
    @Field.Stored("number") var number: String = ""
    @Field.Relationship("holder") var holder: Owner?
}

final class Club: ManagedObject {
    @Field.Stored("title") var title: String = ""
    @Field.Relationship("members") var members: Set<Owner>
}

let contextSchema = Schema("C1", entities: [
    Entity<Owner>("Owner"), Entity<Animal>("Animal"), Entity<Passport>("Passport"),
    Entity<Club>("Club"),
])

/// Entities and relationships whose names make Strata's own past
/// PostgreSQL's 63 bytes, and alike in their first 63: the link tables of
/// `firstTags`, `secondTags` and `clubs`, the position column
/// `_order_ownerWho…` that `items` keeps in the item's table, the indexes
/// of the to-one. Cut at 63 bytes, the two tag tables would become one.
final class LongNamedOwner: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("tagsOfTheFirstKindWithARelationshipNameThatIsLong")
    var firstTags: Set<LongNamedTag>
    @Field.Relationship("tagsOfTheSecondKindWithARelationshipNameThatIsLong")
    var secondTags: Set<LongNamedTag>
    @Field.Relationship("clubs", inverse: \LongNamedClub.$members) var clubs: Set<LongNamedClub>
    @Field.Relationship(
        "items", inverse: \LongNamedItem.$owner, deleteRule: .cascade)
    var items: [LongNamedItem]
}

final class LongNamedTag: ManagedObject {
    @Field.Stored("label") var label: String = ""
}

final class LongNamedClub: ManagedObject {
    @Field.Stored("title") var title: String = ""
    @Field.Relationship("members") var members: Set<LongNamedOwner>
}

final class LongNamedItem: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("ownerWhoKeepsThisItemInAnOrderedListUnderAVeryLongNameIndeed")
    var owner: LongNamedOwner?
}

/// The entity names share their first 52 characters.
let longNamedOwnerEntity = "StrataNamesPastPostgreSQLsLimitOf63BytesAreShortenedOwner"

let longLinkNamesSchema = Schema("LN1", entities: [
    Entity<LongNamedOwner>(longNamedOwnerEntity),
    Entity<LongNamedTag>("StrataNamesPastPostgreSQLsLimitOf63BytesAreShortenedTag"),
    Entity<LongNamedClub>("StrataNamesPastPostgreSQLsLimitOf63BytesAreShortenedClub"),
    Entity<LongNamedItem>("StrataNamesPastPostgreSQLsLimitOf63BytesAreShortenedItem"),
])
