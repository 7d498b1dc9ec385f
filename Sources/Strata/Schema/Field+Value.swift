extension Field.Stored {
    /// `object.$species.value`: the field's value in the object its
    /// projected value was read from, as `object.species` reads it. So that
    /// a virtual field's getter ported from CoreStore reads as it did:
    ///
    /// ```swift
    /// @Field.Virtual("speciesPlural", customGetter: { (object: Animal, field) in
    ///     object.$species.value + "s"
    /// })
    /// var speciesPlural: String
    /// ```
    ///
    /// Set fields through the object (`object.species = "cat"`). Reading
    /// `value` on a field named by a key path (`(\Animal.$species)`), which
    /// belongs to no object, traps.
    public var value: Value {
        owningObject(of: declaredField, "\(name)").readStored(projection)
    }
}

extension Field.Coded {
    /// `object.$address.value`: the field's value in the object its
    /// projected value was read from, as `object.address` reads it; see
    /// ``Field/Stored/value``.
    public var value: Value {
        owningObject(of: declaredField, "\(name)").readCoded(projection)
    }
}

extension Field.Relationship {
    /// `object.$owner.value`: the related objects of the object its
    /// projected value was read from, as `object.owner` reads them; see
    /// ``Field/Stored/value``.
    public var value: Value {
        Value(relatedObjects: owningObject(of: declaredField, "\(name)")
            .readRelated(named: name, as: Value.Target.self))
    }
}

/// The object a projected value (`object.$field`) was read from; a trap
/// for a field named by a key path, which has none.
private func owningObject<Value>(of field: DeclaredField<Value>?, _ name: String) -> ManagedObject {
    guard let object = field?.object else {
        misuse(
            "Strata: '\(name)'.value reads a field of an object: read it as object.$\(name).value "
                + "or object.\(name), not on a key path's field.")
    }
    return object
}
