import Foundation

/// The ```swift blocks of a Markdown document, assembled into Swift files
/// that type-check against the built `Strata` module.
///
/// A block's top-level declarations (types, extensions, functions, imports)
/// go at file scope, in order; the rest of it becomes the body of a method
/// of its own on `SnippetHost`, `async throws`, with the two names most
/// snippets assume in scope: `stack` (a `DataStack`) and `tx` (a
/// `BaseDataTransaction`). `SnippetHost` is an empty `@MainActor` class
/// unless the page declares its own (to give `self` a conformance, such as
/// a list observer's). What else a page's snippets assume (its model, stubs
/// such as `show(_:)`) is declared once per page in a comment the rendered
/// page hides:
///
///     <!-- swift-prelude
///     final class Person: ManagedObject { ... }
///     -->
///
/// A block preceded by `<!-- swift-snippet: own-file -->` is checked in a
/// file of its own (with the prelude), for a page that shows two versions of
/// one declaration; one preceded by `<!-- swift-snippet: package-manifest -->`
/// is a whole `Package.swift`, checked against the toolchain's manifest API.
struct DocSnippets {
    /// A ```swift block: its lines and the document line of its first one.
    struct Block {
        enum Kind { case shared, ownFile, packageManifest }

        var lines: [String]
        var firstLine: Int
        var kind: Kind
    }

    /// A Swift source to type-check, with the document line of each of its lines.
    struct Source {
        var isPackageManifest = false
        var text = ""
        var documentLines: [Int?] = []

        mutating func append(_ line: String, from documentLine: Int?) {
            text += line + "\n"
            documentLines.append(documentLine)
        }
    }

    let prelude: Block?
    let blocks: [Block]

    init(markdown: String) {
        let lines = markdown.components(separatedBy: "\n")
        var blocks: [Block] = []
        var prelude: Block?
        var index = 0
        var nextKind = Block.Kind.shared
        while index < lines.count {
            let line = lines[index]
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed == "<!-- swift-prelude" {
                let body = Self.lines(from: index + 1, of: lines) { $0.trimmingCharacters(in: .whitespaces) == "-->" }
                prelude = Block(lines: body, firstLine: index + 2, kind: .shared)
                index += body.count + 2
                continue
            }
            if trimmed == "<!-- swift-snippet: own-file -->" {
                nextKind = .ownFile
            } else if trimmed == "<!-- swift-snippet: package-manifest -->" {
                nextKind = .packageManifest
            } else if trimmed == "```swift" {
                let indent = line.prefix { $0 == " " }.count
                let body = Self.lines(from: index + 1, of: lines) { $0.trimmingCharacters(in: .whitespaces) == "```" }
                blocks.append(Block(
                    lines: body.map { String($0.dropFirst(min(indent, $0.prefix { $0 == " " }.count))) },
                    firstLine: index + 2, kind: nextKind))
                nextKind = .shared
                index += body.count + 2
                continue
            }
            index += 1
        }
        self.prelude = prelude
        self.blocks = blocks
    }

    private static func lines(from start: Int, of lines: [String], until end: (String) -> Bool) -> [String] {
        var body: [String] = []
        var index = start
        while index < lines.count, !end(lines[index]) {
            body.append(lines[index])
            index += 1
        }
        return body
    }

    /// The files to type-check: every block not checked alone in one, then
    /// one per block that is.
    var sources: [Source] {
        let numbered = Array(blocks.enumerated())
        let shared = numbered.filter { $0.element.kind == .shared }
        let alone = numbered.filter { $0.element.kind == .ownFile }
        let manifests = numbered.filter { $0.element.kind == .packageManifest }.map { _, block in
            var source = Source(isPackageManifest: true)
            for (offset, line) in block.lines.enumerated() { source.append(line, from: block.firstLine + offset) }
            return source
        }
        return [source(for: shared)] + alone.map { source(for: [$0]) } + manifests
    }

    private func source(for blocks: [(offset: Int, element: Block)]) -> Source {
        var source = Source()
        source.append("import Foundation", from: nil)
        source.append("import Strata", from: nil)
        if let prelude {
            for (offset, line) in prelude.lines.enumerated() { source.append(line, from: prelude.firstLine + offset) }
        }
        if !(prelude?.lines.contains { $0.contains("class SnippetHost") } ?? false) {
            source.append("@MainActor final class SnippetHost {}", from: nil)
        }
        for (number, block) in blocks {
            let (declarations, statements) = Self.split(block.lines)
            for index in declarations { source.append(block.lines[index], from: block.firstLine + index) }
            source.append(
                "extension SnippetHost { func snippet\(number)(stack: DataStack, tx: BaseDataTransaction) async throws {",
                from: nil)
            for index in statements { source.append(block.lines[index], from: block.firstLine + index) }
            source.append("} }", from: nil)
        }
        return source
    }

    /// The lines of a block that are top-level declarations, and the rest.
    static func split(_ lines: [String]) -> (declarations: [Int], statements: [Int]) {
        var declarations: [Int] = []
        var statements: [Int] = []
        var index = 0
        while index < lines.count {
            guard startsDeclaration(at: index, in: lines) else {
                statements.append(index)
                index += 1
                continue
            }
            var depth = 0
            var opened = false
            repeat {
                let braces = braceBalance(lines[index])
                depth += braces.balance
                opened = opened || braces.opens
                declarations.append(index)
                index += 1
            } while index < lines.count && (depth > 0 || (!opened && continuesDeclaration(lines[index])))
        }
        return (declarations, statements)
    }

    private static var declarationStart: Regex<AnyRegexOutput> {
        try! Regex(
        #"^(@\w+(\([^)]*\))?\s+)*((public|private|fileprivate|internal|final|open|nonisolated|indirect)\s+)*"#
            + #"(class|struct|enum|extension|protocol|actor|func|typealias|import)\b"#)
    }

    /// Whether the line at `index` begins a top-level declaration: it is not
    /// indented and starts with a declaration keyword, or is an attribute
    /// line right before one.
    private static func startsDeclaration(at index: Int, in lines: [String]) -> Bool {
        let line = lines[index]
        guard let first = line.first, first != " " else { return false }
        if line.wholeMatch(of: #/@\w+(\([^)]*\))?/#) != nil {
            return index + 1 < lines.count && startsDeclaration(at: index + 1, in: lines)
        }
        return line.prefixMatch(of: declarationStart) != nil
    }

    /// A declaration whose braces have not opened yet goes on over indented
    /// lines (a long signature, a `where` clause).
    private static func continuesDeclaration(_ line: String) -> Bool {
        line.hasPrefix(" ") || line.hasPrefix("{") || line.hasPrefix(")") || line.hasPrefix("where ")
    }

    /// How many more `{` than `}` the line has outside string literals and comments.
    static func braceBalance(_ line: String) -> (balance: Int, opens: Bool) {
        var balance = 0
        var opens = false
        var inString = false
        var previous: Character = " "
        for character in line {
            if inString {
                if character == "\"", previous != "\\" { inString = false }
            } else if character == "\"" {
                inString = true
            } else if character == "/", previous == "/" {
                break
            } else if character == "{" {
                balance += 1
                opens = true
            } else if character == "}" {
                balance -= 1
            }
            previous = character
        }
        return (balance, opens)
    }
}
