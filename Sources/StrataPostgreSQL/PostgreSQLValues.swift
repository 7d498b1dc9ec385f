import CLibPQ
import Foundation
import Strata

/// The values bound to a statement, encoded for libpq in one byte buffer:
/// binary where the type has a fixed binary form (integers, floats, text,
/// bytes), PostgreSQL's text input form for the rest (`numeric`, …).
struct ParameterBuffer {
    private var bytes: [UInt8] = []
    /// Per parameter: where its bytes start, or -1 for NULL.
    private var offsets: [Int] = []
    private var lengths: [Int32] = []
    private var formats: [Int32] = []
    private var pointers: [UnsafePointer<CChar>?] = []

    var count: Int { offsets.count }

    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        offsets.removeAll(keepingCapacity: true)
        lengths.removeAll(keepingCapacity: true)
        formats.removeAll(keepingCapacity: true)
    }

    /// Appends `value` as the server's `type`; `false` when the type cannot
    /// hold it (a fraction for an integer column, text for a number).
    mutating func append(_ value: StoredValue, as type: Oid) -> Bool {
        let start = bytes.count
        var binary = true
        switch (value, type) {
        case (.null, _):
            offsets.append(-1)
            lengths.append(0)
            formats.append(1)
            return true
        case (.integer(let int), PostgreSQLType.int8), (.integer(let int), PostgreSQLType.oid):
            appendBigEndian(UInt64(bitPattern: int))
        case (.integer(let int), PostgreSQLType.int4):
            guard let narrow = Int32(exactly: int) else { return false }
            appendBigEndian(UInt32(bitPattern: narrow))
        case (.integer(let int), PostgreSQLType.int2):
            guard let narrow = Int16(exactly: int) else { return false }
            appendBigEndian(UInt16(bitPattern: narrow))
        case (.integer(let int), PostgreSQLType.bool):
            bytes.append(int == 0 ? 0 : 1)
        case (.integer(let int), PostgreSQLType.float8):
            appendBigEndian(Double(int).bitPattern)
        case (.integer(let int), PostgreSQLType.float4):
            appendBigEndian(Float(int).bitPattern)
        case (.real(let double), PostgreSQLType.float8):
            appendBigEndian(double.bitPattern)
        case (.real(let double), PostgreSQLType.float4):
            appendBigEndian(Float(double).bitPattern)
        case (.real(let double), PostgreSQLType.int8):
            guard let int = Int64(exactly: double) else { return false }
            appendBigEndian(UInt64(bitPattern: int))
        case (.text(let text), PostgreSQLType.bytea):
            bytes.append(contentsOf: text.utf8)
        case (.blob(let data), PostgreSQLType.bytea):
            bytes.append(contentsOf: data)
        case (.blob, _):
            return false
        case (.text(let text), _):
            // text, varchar, name, unknown — and any other type, whose text
            // input form the server parses (`numeric`, `json`, …).
            bytes.append(contentsOf: text.utf8)
            binary = Self.isTextual(type)
        case (.integer(let int), _):
            bytes.append(contentsOf: String(int).utf8)
            binary = false
        case (.real(let double), _):
            guard double.isFinite else { return false }
            bytes.append(contentsOf: "\(double)".utf8)
            binary = false
        }
        offsets.append(start)
        lengths.append(Int32(bytes.count - start))
        formats.append(binary ? 1 : 0)
        // libpq reads a text-format value up to its NUL, ignoring the length.
        if !binary { bytes.append(0) }
        return true
    }

    /// Calls `body` with libpq's parallel arrays: values, lengths, formats.
    mutating func withParameterArrays<Result>(
        _ body: (UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?,
            UnsafePointer<Int32>?) -> Result
    ) -> Result {
        return bytes.withUnsafeBufferPointer { buffer in
            // An empty buffer (no values, or only NULLs) has no base address; no pointer is read then.
            let base = UnsafeRawPointer(buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!).assumingMemoryBound(to: CChar.self)
            pointers.removeAll(keepingCapacity: true)
            for offset in offsets { pointers.append(offset < 0 ? nil : base + offset) }
            return pointers.withUnsafeBufferPointer { values in
                lengths.withUnsafeBufferPointer { lengths in
                    formats.withUnsafeBufferPointer { formats in
                        body(values.baseAddress, lengths.baseAddress, formats.baseAddress)
                    }
                }
            }
        }
    }

    private mutating func appendBigEndian<Integer: FixedWidthInteger>(_ value: Integer) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    /// Whether the type's binary form is its UTF-8 text.
    private static func isTextual(_ type: Oid) -> Bool {
        switch type {
        case PostgreSQLType.text, PostgreSQLType.varchar, PostgreSQLType.name,
            PostgreSQLType.unknown, 0:
            return true
        default:
            return false
        }
    }
}

/// PostgreSQL's binary `numeric`: a sign, a weight and base-10,000 digits.
enum PostgreSQLNumeric {
    /// The value as an integer when it has no fraction and fits in 64 bits,
    /// else as the nearest double (NaN and infinities included).
    static func decode(_ bytes: UnsafeRawBufferPointer) -> StoredValue {
        guard bytes.count >= 8 else { return .null }
        func word(_ index: Int) -> UInt16 {
            UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: index * 2, as: UInt16.self))
        }
        let digitCount = Int(word(0))
        let weight = Int(Int16(bitPattern: word(1)))
        let sign = word(2)
        switch sign {
        case 0xC000: return .real(.nan)
        case 0xD000: return .real(.infinity)
        case 0xF000: return .real(-.infinity)
        default: break
        }
        guard bytes.count >= 8 + digitCount * 2 else { return .null }
        let digits = (0..<digitCount).map { Int(word(4 + $0)) }
        let negative = sign == 0x4000
        let scale = Int(word(3))
        // An integer when nothing is past the decimal point, by value or by
        // declared scale (`avg` of integers is numeric with a scale: a real,
        // as SQLite's avg is).
        if scale == 0, digitCount <= weight + 1 {
            var value: Int64 = 0
            var fits = true
            for position in 0...max(weight, 0) where weight >= 0 {
                let digit = position < digitCount ? Int64(digits[position]) : 0
                let (scaled, overflowScaled) = value.multipliedReportingOverflow(by: 10_000)
                let (sum, overflowSum) = scaled.addingReportingOverflow(negative ? -digit : digit)
                if overflowScaled || overflowSum { fits = false; break }
                value = sum
            }
            if fits { return .integer(value) }
        }
        var text = negative ? "-0." : "0."
        var exponent = (weight + 1) * 4
        for digit in digits {
            let group = String(digit)
            text += String(repeating: "0", count: 4 - group.count) + group
        }
        if digits.isEmpty { text += "0"; exponent = 0 }
        text += "e\(exponent)"
        return .real(Double(text) ?? .nan)
    }
}
