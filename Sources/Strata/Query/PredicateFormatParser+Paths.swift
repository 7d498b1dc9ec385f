import Foundation

// Key paths resolved against the model, and the test each comparison makes:
// exactly the tree the key-path `Where` for the same condition builds, so the
// two have the same answers (NULLs, text, to-many quantifiers included).

extension PredicateFormatParser {
    /// Where a key path leads: a value on the object (or on each member of the
    /// one to-many relationship it passes through), or that relationship's size.
    struct ResolvedPath {
        enum End {
            case stored(StoredType)
            /// A to-one relationship, `SELF`, or a to-many's member: a row ID.
            case object(ManagedObject.Type)
            case count
        }

        /// The to-many relationship on the way, and the to-one path to the object that holds it.
        var toMany: (owner: ValuePath, name: String)?
        /// The value's path: from the object, or from a member of ``toMany``.
        var path: ValuePath
        var end: End
        /// The Swift type a stored field at the end holds (`Never` for any other end).
        var valueType: Any.Type = Never.self
    }

    /// The path `components` name, from the entity of ``root``.
    mutating func resolve(_ components: [String], column: Int) throws(PredicateFormatProblem)
        -> ResolvedPath
    {
        let text = components.joined(separator: ".")
        var components = components
        if components.first?.uppercased() == "SELF" {
            guard components.count > 1 else {
                return ResolvedPath(path: ValuePath(field: nil), end: .object(root))
            }
            components.removeFirst()  // `SELF.name` is `name`
        }
        var type = root
        var links: [String] = []
        var toMany: (owner: ValuePath, name: String)?
        var afterToMany = false
        for (position, name) in components.enumerated() {
            let isLast = position == components.count - 1
            guard !name.isEmpty else {
                throw problem("the key path '\(text)' has an empty part", at: column)
            }
            if name.hasPrefix("@") {
                guard name.lowercased() == "@count" else {
                    throw problem(
                        "the aggregate \(name) is not supported (only @count)", at: column)
                }
                guard isLast, afterToMany else {
                    throw problem(
                        "@count ends a key path, right after a to-many relationship", at: column)
                }
                return ResolvedPath(toMany: toMany, path: ValuePath(field: nil), end: .count)
            }
            afterToMany = false
            guard let (kind, valueType) = fields(of: type)[name] else {
                throw problem(
                    "\(type) has no field '\(name)'"
                        + (components.count > 1 ? " (in '\(text)')" : ""), at: column)
            }
            switch kind {
            case .stored(let storedType, _, _, _):
                guard isLast else {
                    throw problem(
                        "'\(name)' is a stored field of \(type): nothing can follow it in '\(text)'",
                        at: column)
                }
                var path = ValuePath(relationships: links, field: name)
                path.isDecimal = valueType == Decimal.self || valueType == Decimal?.self
                return ResolvedPath(
                    toMany: toMany, path: path, end: .stored(storedType), valueType: valueType)
            case .coded:
                throw problem(
                    "'\(name)' is a coded field (stored as JSON), which queries cannot compare",
                    at: column)
            case .virtual:
                throw problem(
                    "'\(name)' is a virtual field of \(type), which is not stored", at: column)
            case let .relationship(target, .toOne, _, _, _):
                if isLast {
                    return ResolvedPath(
                        toMany: toMany, path: ValuePath(relationships: links, field: name),
                        end: .object(target))
                }
                links.append(name)
                type = target
            case let .relationship(target, _, _, _, _):
                guard toMany == nil else {
                    throw problem(
                        "'\(text)' passes through two to-many relationships; a test takes one",
                        at: column)
                }
                let owner = ValuePath(relationships: Array(links.dropLast()), field: links.last)
                toMany = (owner, name)
                links = []
                type = target
                afterToMany = true
                if isLast {
                    return ResolvedPath(
                        toMany: toMany, path: ValuePath(field: nil), end: .object(target))
                }
            }
        }
        throw problem("the key path is empty", at: column)
    }

    // MARK: Fields

    /// The fields `type` declares (its superclasses' included), by name, and
    /// the Swift type each holds: as with `\.$price < 10`, order comparisons
    /// of a `Decimal` go by number, not by its stored text.
    mutating func fields(of type: ManagedObject.Type) -> [String: (
        FieldDeclaration.Kind, valueType: Any.Type
    )] {
        let id = ObjectIdentifier(type)
        if let known = fieldTables[id] { return known }
        var table: [String: (FieldDeclaration.Kind, valueType: Any.Type)] = [:]
        var mirror: Mirror? = Mirror(reflecting: DeclaredFields.prototype(of: type))
        while let current = mirror {
            for child in current.children {
                guard let declared = (child.value as? any FieldWrapper)?.declared else { continue }
                let declaration = declared.declaration
                guard table[declaration.name] == nil else { continue }
                table[declaration.name] = (
                    declaration.problem == nil ? declaration.kind : .virtual,
                    declared.valueType
                )
            }
            mirror = current.superclassMirror
        }
        fieldTables[id] = table
        return table
    }

    /// The test `lhs op rhs` makes, under `quantifier` when there is one.
    mutating func test(
        _ quantifier: (WherePredicate.Quantifier, column: Int)?, _ lhs: Operand,
        _ op: WrittenOperator,
        _ rhs: Operand
    ) throws(PredicateFormatProblem) -> WherePredicate {
        var (lhs, rhs, op) = (lhs, rhs, op)
        if case .keyPath = rhs {
            if case .keyPath = lhs {
                throw problem(
                    "comparing two key paths is not supported; compare a key path with a value",
                    at: rhs.column)
            }
            if case .isIn = op.kind, quantifier == nil,
                case .keyPath(let components, let column) = rhs,
                case .value(let value, let valueColumn) = lhs
            {
                return try membership(of: value, at: valueColumn, in: components, column: column)
            }
            // `30 < age` is `age > 30`; the other operators read their sides differently.
            guard case .compare(let comparison) = op.kind, op.options.isEmpty else {
                throw problem("\(op.name) takes the key path on its left", at: lhs.column)
            }
            (lhs, rhs) = (rhs, lhs)
            op = WrittenOperator(
                kind: .compare(comparison.mirrored), name: op.name, options: [], column: op.column)
        }
        guard case .keyPath(let components, let column) = lhs else {
            throw problem("the comparison names no key path", at: lhs.column)
        }
        if case .text(.contains) = op.kind, op.options.isEmpty, quantifier == nil,
            case .value(let value, let valueColumn) = rhs,
            try isWholeToMany(components, column: column)
        {
            return try membership(of: value, at: valueColumn, in: components, column: column)
        }
        let resolved = try resolve(components, column: column)
        let name = components.joined(separator: ".")
        do throws(PredicateFormatProblem) {
            if let toMany = resolved.toMany {
                if case .count = resolved.end {
                    if let quantifier {
                        throw problem(
                            "ANY, ALL and NONE do not apply to @count", at: quantifier.column)
                    }
                    return try count(toMany, op, rhs)
                }
                guard let quantifier else {
                    throw problem(
                        "'\(name)' passes through the to-many relationship '\(toMany.name)': "
                            + "say ANY, ALL or NONE (or \(toMany.name).@count)", at: column)
                }
                let inner = try leaf(resolved.path, resolved.end, op, rhs, name: name)
                return .members(owner: toMany.owner, relationship: toMany.name, quantifier.0, inner)
            }
            if let quantifier {
                throw problem(
                    "ANY, ALL and NONE need a to-many relationship in the key path",
                    at: quantifier.column)
            }
            return try leaf(resolved.path, resolved.end, op, rhs, name: name)
        } catch {
            // Values know what is wrong with them, not where they were written.
            throw PredicateFormatProblem(error.message, at: error.column ?? rhs.column)
        }
    }

    /// Whether the key path ends in a to-many relationship (`pets`, `owner.pets`).
    private mutating func isWholeToMany(_ components: [String], column: Int)
        throws(PredicateFormatProblem) -> Bool
    {
        let resolved = try resolve(components, column: column)
        guard resolved.toMany != nil, case .object = resolved.end else { return false }
        return resolved.path == ValuePath(field: nil)
    }

    /// `%@ IN pets` and `pets CONTAINS %@`: the object is one of the
    /// relationship's members, as `ANY pets == %@` says.
    private mutating func membership(
        of value: PredicateFormatValue, at valueColumn: Int, in components: [String], column: Int
    ) throws(PredicateFormatProblem) -> WherePredicate {
        let resolved = try resolve(components, column: column)
        guard let toMany = resolved.toMany, case .object(let target) = resolved.end,
            resolved.path == ValuePath(field: nil)
        else {
            throw problem(
                "IN takes the key path on its left, or a to-many relationship on its right (%@ IN pets)",
                at: valueColumn)
        }
        let name = components.joined(separator: ".")
        do throws(PredicateFormatProblem) {
            let id = try value.rowID(of: target, field: name)
            return .members(
                owner: toMany.owner, relationship: toMany.name, .any,
                .compare(ValuePath(field: nil), .equal, id))
        } catch {
            throw PredicateFormatProblem(error.message, at: error.column ?? valueColumn)
        }
    }

    private func count(
        _ toMany: (owner: ValuePath, name: String), _ op: WrittenOperator, _ rhs: Operand
    ) throws(PredicateFormatProblem) -> WherePredicate {
        guard case .compare(let comparison) = op.kind, op.options.isEmpty else {
            throw problem("@count compares with ==, !=, <, <=, > or >= only", at: op.column)
        }
        guard case .value(let value, _) = rhs,
            let number = value.exactInteger.flatMap({ Int(exactly: $0) })
        else { throw problem("@count compares with an integer", at: rhs.column) }
        return .count(owner: toMany.owner, relationship: toMany.name, comparison, number)
    }

    private func leaf(
        _ path: ValuePath, _ end: ResolvedPath.End, _ op: WrittenOperator, _ rhs: Operand,
        name: String
    ) throws(PredicateFormatProblem) -> WherePredicate {
        if case .matches = op.kind {
            throw problem("MATCHES (regular expressions) is not supported; use LIKE", at: op.column)
        }
        let isTextComparison: Bool
        switch op.kind {
        case .text: isTextComparison = true
        case .compare(.equal), .compare(.notEqual): isTextComparison = !op.options.isEmpty
        default: isTextComparison = false
        }
        if !op.options.isEmpty, !isTextComparison {
            throw problem("[c] and [d] apply to ==, != and the text operators only", at: op.column)
        }
        guard case .stored(let type) = end else {
            guard case .object(let target) = end else {
                throw problem("@count cannot be tested here", at: op.column)
            }
            switch op.kind {
            case .compare(let comparison)
            where !isTextComparison && (comparison == .equal || comparison == .notEqual):
                return .compare(
                    path, comparison, try single(rhs, op).rowID(of: target, field: name))
            case .isIn:
                let ids = try collection(rhs, op).map { value throws(PredicateFormatProblem) in
                    try value.rowID(of: target, field: name)
                }
                return .isIn(path, StoredValueSet(ids))
            default:
                throw problem(
                    "'\(name)' is a relationship: compare it with ==, != or IN", at: op.column)
            }
        }
        if isTextComparison {
            guard type == .text else {
                throw problem(
                    "\(op.name) needs a text field; '\(name)' holds \(type.rawValue)", at: op.column
                )
            }
            let pattern = try text(single(rhs, op), op)
            switch op.kind {
            case .text(let operation):
                if operation == .like, pattern.contains("\\") {
                    throw problem(
                        "LIKE patterns cannot escape '*' and '?' in Strata", at: rhs.column)
                }
                return .text(path, operation, pattern, op.options)
            default:
                // `==[c] "ann"` is a wildcard-free LIKE; `!=[c]` its negation.
                guard !pattern.contains("*"), !pattern.contains("?") else {
                    throw problem(
                        "\(op.name) with [c] or [d] and a text holding '*' or '?' cannot be expressed; use LIKE",
                        at: rhs.column)
                }
                let like = WherePredicate.text(path, .like, pattern, op.options)
                if case .compare(.notEqual) = op.kind { return like.negated }
                return like
            }
        }
        switch op.kind {
        case .compare(let comparison):
            return .compare(
                path, comparison,
                try single(rhs, op).stored(for: type, field: name, decimal: path.isDecimal))
        case .between:
            let bounds = try collection(rhs, op)
            guard bounds.count == 2 else {
                throw problem(
                    "BETWEEN needs two values, { low, high }; got \(bounds.count)", at: rhs.column)
            }
            return .between(
                path, try bounds[0].stored(for: type, field: name, decimal: path.isDecimal),
                try bounds[1].stored(for: type, field: name, decimal: path.isDecimal))
        case .isIn:
            let values = try collection(rhs, op).map { value throws(PredicateFormatProblem) in
                try value.stored(for: type, field: name, decimal: path.isDecimal)
            }
            return .isIn(path, StoredValueSet(values))
        case .text, .matches:
            throw problem("\(op.name) is not supported here", at: op.column)
        }
    }

    private func single(_ rhs: Operand, _ op: WrittenOperator) throws(PredicateFormatProblem)
        -> PredicateFormatValue
    {
        guard case .value(let value, _) = rhs else {
            throw problem("\(op.name) compares with one value, not a list { }", at: rhs.column)
        }
        return value
    }

    /// The values of `{ a, b }` or of a collection argument.
    private func collection(_ rhs: Operand, _ op: WrittenOperator) throws(PredicateFormatProblem)
        -> [PredicateFormatValue]
    {
        switch rhs {
        case .list(let values, _):
            return values
        case .value(.argument(let argument), _):
            if let elements = PredicateFormatValue.elements(of: argument) { return elements }
        default:
            break
        }
        throw problem(
            "\(op.name) needs a collection: { … } or an array or set argument", at: rhs.column)
    }

    private func text(_ value: PredicateFormatValue, _ op: WrittenOperator)
        throws(PredicateFormatProblem) -> String
    {
        switch value {
        case .text(let text):
            return text
        case .argument(let argument):
            let argument = PredicateFormatValue.unwrapped(argument)
            if let text = argument as? String { return text }
            if let text = argument as? Substring { return String(text) }
        default:
            break
        }
        throw PredicateFormatProblem("\(op.name) needs a string, got \(value.described)", at: nil)
    }
}

extension WherePredicate.Comparison {
    /// The comparison with its sides swapped: `30 < age` is `age > 30`.
    var mirrored: WherePredicate.Comparison {
        switch self {
        case .equal, .notEqual: return self
        case .less: return .greater
        case .lessOrEqual: return .greaterOrEqual
        case .greater: return .less
        case .greaterOrEqual: return .lessOrEqual
        }
    }
}
