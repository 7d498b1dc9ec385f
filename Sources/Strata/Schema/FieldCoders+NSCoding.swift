import Foundation

extension FieldCoders {
    /// A keyed archive (`NSKeyedArchiver`) of an `NSCoding` object, as
    /// CoreStore's coder writes it: a secure archive when the class supports
    /// secure coding.
    ///
    /// ```swift
    /// final class Palette: NSObject, NSSecureCoding { ... }
    /// @Field.Coded("palette", coder: FieldCoders.NSCoding.self) var palette: Palette? = nil
    /// ```
    public struct NSCoding<V: NSObject & Foundation.NSCoding>: FieldCoderType {
        public typealias FieldStoredValue = V

        /// The object's archive; `nil` for `nil` or an object that does not archive.
        public static func encodeToStoredData(_ fieldValue: V?) -> Data? {
            try? encodeReportingErrors(fieldValue)
        }

        /// The object's archive; throws
        /// ``StrataError/invalidValue(entity:field:reason:)`` for an object
        /// that does not archive.
        public static func encodeReportingErrors(_ fieldValue: V?) throws -> Data? {
            guard let fieldValue else { return nil }
            let isSecure = (V.self as? any NSSecureCoding.Type)?.supportsSecureCoding ?? false
            return try KeyedArchive.data(of: fieldValue, secure: isSecure)
        }

        /// The object the archive holds; `nil` for `nil`, or bytes that are
        /// no archive of a `V`.
        public static func decodeFromStoredData(_ data: Data?) -> V? {
            guard let data, KeyedArchive.mayBeArchive(data) else { return nil }
            let isSecure = (V.self as? any NSSecureCoding.Type)?.supportsSecureCoding ?? false
            if isSecure {
                return try? NSKeyedUnarchiver.unarchivedObject(ofClass: V.self, from: data)
            }
            guard let unarchiver = try? NSKeyedUnarchiver(forReadingFrom: data) else { return nil }
            unarchiver.requiresSecureCoding = false
            defer { unarchiver.finishDecoding() }
            return unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) as? V
        }
    }

    /// A secure keyed archive of a Foundation value object (`NSArray`,
    /// `NSDictionary`, `NSSet`, `NSString`, `NSNumber`, `NSDate`, `NSData`,
    /// `NSURL`, `NSUUID`, `NSNull`, and collections of them): what Core
    /// Data's default transformable attribute stores
    /// (`NSSecureUnarchiveFromDataTransformer`).
    ///
    /// ```swift
    /// @Field.Coded("tags", coder: FieldCoders.DefaultNSSecureCoding.self) var tags: NSArray? = nil
    /// ```
    public struct DefaultNSSecureCoding<T: DefaultNSSecureCodable>: FieldCoderType {
        public typealias FieldStoredValue = T

        /// The object's secure archive; `nil` for `nil` or an object that does not archive.
        public static func encodeToStoredData(_ fieldValue: T?) -> Data? {
            try? encodeReportingErrors(fieldValue)
        }

        /// The object's secure archive; throws
        /// ``StrataError/invalidValue(entity:field:reason:)`` for an object
        /// that does not archive (a collection holding an object of another class).
        public static func encodeReportingErrors(_ fieldValue: T?) throws -> Data? {
            guard let fieldValue else { return nil }
            return try KeyedArchive.data(of: fieldValue, secure: true)
        }

        /// The object the archive holds, which may contain only the classes
        /// listed above; `nil` for `nil` or bytes that are no such archive of a `T`.
        public static func decodeFromStoredData(_ data: Data?) -> T? {
            guard let data, KeyedArchive.mayBeArchive(data) else { return nil }
            let classes: [AnyClass] = [T.self] + KeyedArchive.foundationValueClasses
            return (try? NSKeyedUnarchiver.unarchivedObject(ofClasses: classes, from: data)) as? T
        }
    }
}

/// The Foundation value classes ``FieldCoders/DefaultNSSecureCoding`` stores,
/// as Core Data's default transformer allows them.
///
/// ```swift
/// @Field.Coded("info", coder: FieldCoders.DefaultNSSecureCoding.self) var info: NSDictionary? = nil
/// ```
public protocol DefaultNSSecureCodable: NSObject, NSSecureCoding {}

extension NSArray: DefaultNSSecureCodable {}
extension NSDictionary: DefaultNSSecureCodable {}
extension NSSet: DefaultNSSecureCodable {}
extension NSString: DefaultNSSecureCodable {}
extension NSNumber: DefaultNSSecureCodable {}
extension NSDate: DefaultNSSecureCodable {}
extension NSData: DefaultNSSecureCodable {}
extension NSURL: DefaultNSSecureCodable {}
extension NSUUID: DefaultNSSecureCodable {}
extension NSNull: DefaultNSSecureCodable {}

/// Keyed archiving shared by the `NSCoding` coders.
private enum KeyedArchive {
    static let foundationValueClasses: [AnyClass] = [
        NSArray.self, NSDictionary.self, NSSet.self, NSString.self, NSNumber.self,
        NSDate.self, NSData.self, NSURL.self, NSUUID.self, NSNull.self,
    ]

    /// Whether `data` starts as a keyed archive does (a binary property
    /// list). Other bytes are refused before the unarchiver sees them: on
    /// Linux its failure to parse them leaks the error it makes.
    static func mayBeArchive(_ data: Data) -> Bool {
        data.starts(with: "bplist".utf8)
    }

    static func data(of object: NSObject, secure: Bool) throws -> Data {
        do {
            return try NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: secure)
        } catch {
            throw StrataError.unstorable("it does not archive with NSKeyedArchiver: \(error)")
        }
    }
}
