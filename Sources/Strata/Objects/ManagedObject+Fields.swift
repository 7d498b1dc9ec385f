/// The plumbing between the `@Field` property wrappers and the owning context.
extension ManagedObject {
    /// The stored value of the field whose wrapper is at `keyPath`, or `nil`
    /// when the slow path must decide (a detached object, an invalid pending
    /// value, a field with custom accessors).
    @usableFromInline
    final func storedValue(forField keyPath: AnyKeyPath) -> StoredValue? {
        guard !hasInvalidValues else { return nil }
        let slot = withMembership { context, entity in
            context.resolvedSlot(ofFieldAt: keyPath, inEntityAt: entity.index)
                ?? context.resolveSlot(ofFieldAt: keyPath, in: entity)
        }
        guard let slot, slot != ObjectContext.slotOfCustomAccessors else { return nil }
        return value(at: slot)
    }

    /// How far into the object its stored property `wrapper` lies, in bytes.
    /// A stored field's accessors pass `&object[keyPath: storageKeyPath]`:
    /// the compiler's key path to a wrapper's storage names a stored
    /// property, whose projection is the storage in place, so the offset is
    /// the wrapper's place in the class's layout (``DeclaredFields/wrapperFields(of:)``).
    /// An optimized build folds the projection into that constant and drops
    /// the key path: a field read then makes and releases none.
    @inlinable @inline(__always)
    final func wrapperOffset<Wrapper>(_ wrapper: inout Wrapper) -> Int {
        let object = UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque())
        return Int(bitPattern: withUnsafeMutablePointer(to: &wrapper) { UInt(bitPattern: $0) } &- object)
    }

    /// The stored value of the field whose wrapper lies `offset` bytes into
    /// the object (``wrapperOffset(_:)``), or `nil` when the slow path must
    /// decide (a detached object, an invalid pending value, a field with
    /// custom accessors).
    @usableFromInline
    final func storedValue(ofWrapperAt offset: Int) -> StoredValue? {
        guard let (_, _, slot) = inPlaceSlot(ofWrapperAt: offset) else { return nil }
        return value(at: slot)
    }

    /// Assigns the new stored value of the field whose wrapper lies `offset`
    /// bytes into the object; `false` when the slow path must handle it, as
    /// ``assignStoredValue(_:forField:)`` says.
    @usableFromInline
    final func assignStoredValue(_ value: StoredValue, ofWrapperAt offset: Int) -> Bool {
        guard !value.isNaN, let (context, entity, slot) = inPlaceSlot(ofWrapperAt: offset) else { return false }
        context._withUnsafeGuaranteedRef { context in
            entity._withUnsafeGuaranteedRef { entity in assign(value, slot: slot, in: context, entity) }
        }
        return true
    }

    /// The owning context, the entity and the value slot of the stored
    /// field whose wrapper lies `offset` bytes into the object, when its
    /// accessors may read and write the slot in place: the object is in a
    /// context, holds no value that cannot be stored, and the field has no
    /// custom accessors. `nil` sends them to the slow path.
    @inline(__always)
    private final func inPlaceSlot(
        ofWrapperAt offset: Int
    ) -> (context: Unmanaged<ObjectContext>, entity: Unmanaged<EntityDescription>, slot: Int)? {
        guard !hasInvalidValues, let (context, entity) = membership,
              let slot = entity._withUnsafeGuaranteedRef({ $0.slot(ofWrapperAt: offset) })
        else { return nil }
        return (context, entity, slot)
    }

    /// Assigns `value` to `slot` through `context`, or traps with the reason
    /// the object cannot be written.
    @inline(__always)
    private final func assign(
        _ value: StoredValue, slot: Int, in context: ObjectContext, _ entity: EntityDescription
    ) {
        if context.isReadOnly || !context.isOpen || isDeleted {
            _ = checkedWritableContext(entity.attributes[slot].name)  // traps with the reason
        }
        context.assign(value, slot: slot, of: self)
    }

    /// Assigns a field's new stored value; `false` when the slow path must
    /// handle it (a detached object, an invalid pending value, a field with
    /// custom accessors, a NaN that a ``FieldStorable`` of the app's own
    /// made, which the slow path refuses).
    @usableFromInline
    final func assignStoredValue(_ value: StoredValue, forField keyPath: AnyKeyPath) -> Bool {
        guard !hasInvalidValues, !value.isNaN else { return false }
        return withMembership { context, entity in
            let slot = context.resolvedSlot(ofFieldAt: keyPath, inEntityAt: entity.index)
                ?? context.resolveSlot(ofFieldAt: keyPath, in: entity)
            if slot == ObjectContext.slotOfCustomAccessors { return false }
            assign(value, slot: slot, in: context, entity)
            return true
        } ?? false
    }

    /// A stored field's value when the fast path could not read it: a
    /// detached object's default, a pending value that cannot be stored, or a
    /// stored value of another type (logged, and read as the default).
    @usableFromInline
    final func readStored<Value: FieldStorable>(_ field: DeclaredField<Value>) -> Value {
        let name = field.declaration.name
        guard let slot = slot(of: name) else { return field.defaultValue }
        if let invalid = invalidValues?[slot], let value = invalid.value as? Value { return value }
        do {
            return try Value(storedValue: value(at: slot))
        } catch {
            StrataLog.warning(
                .objects,
                "\(entity?.name ?? "?").\(name) holds \(value(at: slot)), which is not a \(Value.self); "
                    + "reading the field's default instead")
            return field.defaultValue
        }
    }

    /// Assigns a stored field when the fast path could not: a value that
    /// cannot be stored (reported at the next flush), or a write that traps.
    @usableFromInline
    final func writeStored<Value: FieldStorable>(_ value: Value, _ field: DeclaredField<Value>) {
        let slot = writableSlot(of: field.declaration.name)
        do {
            context!.assign(try value.storableValue(), slot: slot, of: self)
        } catch {
            context!.assignInvalid(value, error: StrataError.wrapping(error), slot: slot, of: self)
        }
    }

    /// A stored field's value as `object.field` reads it when the fast path
    /// could not: through the field's `customGetter` if it has one.
    @usableFromInline
    final func readStoredField<Value: FieldStorable>(_ field: DeclaredField<Value>) -> Value {
        guard let getter = field.storedAccessors?.getter else { return readStored(field) }
        return getter(self, Field.Stored.Proxy(object: self, field: field))
    }

    /// Sets a stored field as `object.field = value` does when the fast path
    /// could not: through the field's `customSetter` if it has one. The
    /// object must be writable before the setter runs.
    @usableFromInline
    final func writeStoredField<Value: FieldStorable>(_ value: Value, _ field: DeclaredField<Value>) {
        guard let setter = field.storedAccessors?.setter else { return writeStored(value, field) }
        _ = writableSlot(of: field.declaration.name)
        setter(self, Field.Stored.Proxy(object: self, field: field), value)
    }

    /// A stored field's value, read as the field's own accessor reads it:
    /// the slot found by `keyPath`'s identity (a key path to the wrapper or
    /// its projection, `\.$code`), `field` only on the slow path. For code
    /// that holds the declaration and reads the field of many objects (the
    /// unique import), where finding the slot by name would hash it each time.
    @inlinable
    final func storedField<Value: FieldStorable>(at keyPath: AnyKeyPath, _ field: DeclaredField<Value>) -> Value {
        if let stored = storedValue(forField: keyPath), let value = try? Value(storedValue: stored) {
            return value
        }
        return readStored(field)
    }

    /// Assigns a stored field as its own accessor does; see ``storedField(at:_:)``.
    @inlinable
    final func setStoredField<Value: FieldStorable>(
        _ value: Value, at keyPath: AnyKeyPath, _ field: DeclaredField<Value>
    ) {
        if let stored = try? value.storedValue(), assignStoredValue(stored, forField: keyPath) { return }
        writeStored(value, field)
    }

    final func readCoded<Value>(_ declared: DeclaredField<Value>) -> Value {
        let field = declared.declaration.name
        let defaultValue = declared.defaultValue
        guard let slot = slot(of: field) else { return defaultValue }
        if let invalid = invalidValues?[slot], let value = invalid.value as? Value { return value }
        do {
            return try declared.codedForm.decode(value(at: slot))
        } catch {
            StrataLog.warning(
                .objects,
                "\(entity?.name ?? "?").\(field) holds a value that does not decode as \(Value.self); "
                    + "reading the field's default instead")
            return defaultValue
        }
    }

    final func writeCoded<Value>(_ value: Value, _ field: DeclaredField<Value>) {
        let slot = writableSlot(of: field.declaration.name)
        do {
            context!.assign(try field.codedForm.encode(value), slot: slot, of: self)
        } catch {
            context!.assignInvalid(value, error: StrataError.wrapping(error), slot: slot, of: self)
        }
    }

    /// A coded field's value as `object.field` reads it when the fast path
    /// could not: through the field's `customGetter` if it has one.
    final func readCodedField<Value>(_ field: DeclaredField<Value>) -> Value {
        guard let getter = field.codedAccessors?.getter else { return readCoded(field) }
        return getter(self, Field.Coded.Proxy(object: self, field: field))
    }

    /// Sets a coded field as `object.field = value` does when the fast path
    /// could not: through the field's `customSetter` if it has one. The
    /// object must be writable before the setter runs.
    final func writeCodedField<Value>(_ value: Value, _ field: DeclaredField<Value>) {
        guard let setter = field.codedAccessors?.setter else { return writeCoded(value, field) }
        _ = writableSlot(of: field.declaration.name)
        setter(self, Field.Coded.Proxy(object: self, field: field), value)
    }

    /// The objects of the relationship whose wrapper is at `keyPath`; none
    /// for a detached object.
    final func readRelated<Target: ManagedObject>(at keyPath: AnyKeyPath, as type: Target.Type) -> [Target] {
        guard let context, let entity else { return [] }
        return context.related(of: self, relationship: context.relationship(at: keyPath, in: entity))
            .compactMap { $0 as? Target }
    }

    /// The related objects of the relationship named `name`, found by name:
    /// for a projected value (`object.$owner.value`), which has no key path.
    final func readRelated<Target: ManagedObject>(named name: String, as type: Target.Type) -> [Target] {
        guard let context, let entity else { return [] }
        guard let relationship = entity.relationships[name] else {
            misuse("Strata: \(entity.name) has no relationship named '\(name)'.")
        }
        return context.related(of: self, relationship: relationship).compactMap { $0 as? Target }
    }

    final func writeRelated<Target: ManagedObject>(_ objects: [Target], at keyPath: AnyKeyPath) {
        guard let context, let entity else {
            trapDetachedWrite(DeclaredFields.field(at: keyPath)?.declaration.name ?? "\(keyPath)")
        }
        let relationship = context.relationship(at: keyPath, in: entity)
        _ = checkedWritableContext(relationship.name)
        context.setRelated(objects, of: self, relationship: relationship)
    }

    private final func slot(of field: String) -> Int? {
        guard let entity else { return nil }
        guard let slot = entity.slot(of: field) else {
            misuse("Strata: \(entity.name) has no stored field named '\(field)'.")
        }
        return slot
    }

    private final func writableSlot(of field: String) -> Int {
        guard let slot = slot(of: field) else { trapDetachedWrite(field) }
        _ = checkedWritableContext(field)
        return slot
    }

    private final func checkedWritableContext(_ field: String) -> ObjectContext {
        guard let context, let entity else { trapDetachedWrite(field) }
        guard !context.isReadOnly else {
            misuse(
                "Strata: cannot set \(entity.name).\(field) on an object of the main context, "
                    + "which is read-only. Change it inside a transaction: "
                    + "stack.perform { tx in tx.edit(object)?.\(field) = ... }")
        }
        guard context.isOpen else {
            misuse(
                "Strata: cannot set \(entity.name).\(field): the transaction this object belongs to "
                    + "has ended. Use an object of a live transaction (tx.edit(objectID)).")
        }
        guard !isDeleted else {
            misuse(
                "Strata: cannot set \(entity.name).\(field) on an object deleted in this transaction.")
        }
        return context
    }

    private final func trapDetachedWrite(_ field: String) -> Never {
        misuse(
            "Strata: cannot set \(type(of: self)).\(field) on an object created with "
                + "\(type(of: self))(). Create objects inside a transaction with "
                + "create(Into<\(type(of: self))>()).")
    }
}
