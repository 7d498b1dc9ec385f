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
        owningObject(of: declaredField).readStoredField(projection)
    }
}

extension Field.Coded {
    /// `object.$address.value`: the field's value in the object its
    /// projected value was read from, as `object.address` reads it; see
    /// ``Field/Stored/value``.
    public var value: Value {
        owningObject(of: declaredField).readCodedField(projection)
    }
}

extension Field.Relationship {
    /// `object.$owner.value`: the related objects of the object its
    /// projected value was read from, as `object.owner` reads them; see
    /// ``Field/Stored/value``.
    public var value: Value {
        Value(relatedObjects: owningObject(of: declaredField)
            .readRelated(named: name, as: Value.Target.self))
    }
}

/// The object a projected value (`object.$field`) was read from; a trap
/// for a field named by a key path, which has none.
private func owningObject<Value>(of field: DeclaredField<Value>?) -> ManagedObject {
    guard let object = field?.object else {
        let name = field?.declaration.name ?? "field"
        misuse(
            "Strata: \(name).value reads the field of an object: read it on object.$\(name), "
                + "the projected value of a ManagedObject's field, not on a key path's field or a "
                + "wrapper made by hand.")
    }
    return object
}
