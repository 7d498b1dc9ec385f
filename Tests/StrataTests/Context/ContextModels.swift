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
