/// The compact binary form of a record's changes, as the log's `changes`
/// column holds it.
///
/// Row IDs are written sorted, as runs of consecutive IDs (the gap from the
/// previous run, then the length), each number a LEB128 varint: a commit that
/// inserts 100,000 new rows logs one run, a few bytes. Updated rows are
/// grouped by the set of fields they changed, each set written once.
///
/// ```
/// record  := 0x01 count(entities) entity*
///          | 0x02 count(entities) entity2*
/// entity  := text(name) runs(inserted) runs(deleted) count(groups) group*
/// entity2 := text(name) flags runs(inserted) runs(deleted) count(groups) group*
/// group   := count(fields) text(field)* runs(rows)
/// runs    := count(runs) (varint(gap) varint(length - 1))*
/// text    := count(bytes) UTF-8 bytes
/// flags   := one byte; bit 0: the entity was cleared
/// ```
///
/// Version 2 is written only for a record that clears an entity, so that
/// every other record stays readable by a Strata that knows version 1 only
/// (which refreshes on a version-2 record, as on any record it cannot read).
enum CommitRecordCoding {
    static let formatVersion: UInt8 = 1
    static let formatVersionWithFlags: UInt8 = 2

    static func encode(_ entities: [String: LoggedChanges]) -> [UInt8] {
        var writer = Writer()
        let hasFlags = entities.values.contains { $0.cleared }
        writer.bytes.append(hasFlags ? formatVersionWithFlags : formatVersion)
        writer.varint(UInt64(entities.count))
        for name in entities.keys.sorted() {
            let changes = entities[name]!
            writer.text(name)
            if hasFlags { writer.bytes.append(changes.cleared ? 1 : 0) }
            writer.runs(changes.inserted)
            writer.runs(changes.deleted)
            let groups = groupedByFields(changes.updated)
            writer.varint(UInt64(groups.count))
            for (fields, rowIDs) in groups {
                writer.varint(UInt64(fields.count))
                for field in fields.sorted() { writer.text(field) }
                writer.runs(rowIDs)
            }
        }
        return writer.bytes
    }

    /// Updated rows grouped by their set of changed fields, the groups in
    /// the order of their first row. Rows of one bulk write share one set,
    /// which compares equal to itself at once: a row costs no hashing of
    /// its field names.
    private static func groupedByFields(_ updated: [Int64: Set<String>]) -> [(Set<String>, [Int64])] {
        var groups: [(fields: Set<String>, rowIDs: [Int64], first: Int64)] = []
        var last = -1
        for (rowID, fields) in updated {
            if last < 0 || groups[last].fields != fields {
                last = groups.firstIndex { $0.fields == fields } ?? -1
                if last < 0 {
                    groups.append((fields, [], rowID))
                    last = groups.count - 1
                }
            }
            groups[last].rowIDs.append(rowID)
            groups[last].first = min(groups[last].first, rowID)
        }
        return groups.sorted { $0.first < $1.first }.map { ($0.fields, $0.rowIDs) }
    }

    /// The changes in `bytes`, or `nil` when they are not a record this
    /// version of Strata can read (a newer format, or damaged bytes).
    static func decode(_ bytes: UnsafeRawBufferPointer) -> [String: LoggedChanges]? {
        var reader = Reader(bytes: bytes)
        let version = reader.byte()
        guard version == formatVersion || version == formatVersionWithFlags, let entityCount = reader.count()
        else { return nil }
        var entities: [String: LoggedChanges] = [:]
        for _ in 0..<entityCount {
            guard let name = reader.text() else { return nil }
            var flags: UInt8 = 0
            if version == formatVersionWithFlags {
                guard let byte = reader.byte(), byte <= 1 else { return nil }
                flags = byte
            }
            guard let inserted = reader.runs(), let deleted = reader.runs(), let groupCount = reader.count()
            else { return nil }
            var changes = LoggedChanges(inserted: inserted, deleted: deleted, cleared: flags & 1 != 0)
            for _ in 0..<groupCount {
                guard let fieldCount = reader.count() else { return nil }
                var fields: Set<String> = []
                for _ in 0..<fieldCount {
                    guard let field = reader.text() else { return nil }
                    fields.insert(field)
                }
                guard let rowIDs = reader.runs() else { return nil }
                for rowID in rowIDs { changes.updated[rowID] = fields }
            }
            entities[name] = changes
        }
        return reader.isAtEnd ? entities : nil
    }

    private struct Writer {
        var bytes: [UInt8] = []

        mutating func varint(_ value: UInt64) {
            var value = value
            while value >= 0x80 {
                bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
                value >>= 7
            }
            bytes.append(UInt8(value))
        }

        mutating func text(_ string: String) {
            varint(UInt64(string.utf8.count))
            bytes.append(contentsOf: string.utf8)
        }

        mutating func runs(_ rowIDs: [Int64]) {
            let sorted = rowIDs.sorted()
            var runs: [(start: Int64, length: UInt64)] = []
            for rowID in sorted {
                if let last = runs.last, last.start &+ Int64(bitPattern: last.length) == rowID {
                    runs[runs.count - 1].length += 1
                } else if runs.last.map({ $0.start &+ Int64(bitPattern: $0.length) > rowID }) != true {
                    runs.append((rowID, 1))
                }
            }
            varint(UInt64(runs.count))
            var end: Int64 = 0
            for run in runs {
                varint(UInt64(bitPattern: run.start &- end))
                varint(run.length - 1)
                end = run.start &+ Int64(bitPattern: run.length)
            }
        }
    }

    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var offset = 0

        var isAtEnd: Bool { offset == bytes.count }

        mutating func byte() -> UInt8? {
            guard offset < bytes.count else { return nil }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func varint() -> UInt64? {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while let byte = byte() {
                guard shift < 64 else { return nil }
                value |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { return value }
                shift += 7
            }
            return nil
        }

        /// A count, bounded by the bytes left: damaged bytes must not make a huge allocation.
        mutating func count() -> Int? {
            guard let value = varint(), value <= UInt64(bytes.count - offset) else { return nil }
            return Int(value)
        }

        mutating func text() -> String? {
            guard let length = count() else { return nil }
            defer { offset += length }
            return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + length]), as: UTF8.self)
        }

        mutating func runs() -> [Int64]? {
            guard let runCount = count() else { return nil }
            var rowIDs: [Int64] = []
            var end: Int64 = 0
            for _ in 0..<runCount {
                guard let gap = varint(), let extra = varint(), extra < 1 << 40 else { return nil }
                let start = end &+ Int64(bitPattern: gap)
                let length = Int64(extra) + 1
                // Bounded by what a commit can hold, not by a damaged length.
                guard rowIDs.count + Int(length) <= 1 << 24 else { return nil }
                rowIDs.append(contentsOf: (0..<length).map { start &+ $0 })
                end = start &+ length
            }
            return rowIDs
        }
    }
}
