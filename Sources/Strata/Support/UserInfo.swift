import Foundation

/// Data of your own kept beside a ``DataStack``, a transaction, a
/// ``ListMonitor`` or an ``ObjectMonitor``, as CoreStore's `userInfo`: for a
/// library that works with stacks to keep its state where the stack is.
///
/// Each key is a ``Key`` of your own, typed by its value, which no other code
/// holds, so keys never clash:
///
/// ```swift
/// enum CacheKeys {
///     static let thumbnails = UserInfo.Key<ThumbnailCache>()
/// }
/// stack.userInfo[CacheKeys.thumbnails] = ThumbnailCache()
/// let cache = stack.userInfo[CacheKeys.thumbnails, lazyInit: { ThumbnailCache() }]
/// ```
///
/// CoreStore's keys, the address of a static variable of your own, work too:
/// `withUnsafePointer(to: &Static.key) { stack.userInfo[$0] = value }`.
///
/// Any thread may read and set values: a lock guards the table (a recursive
/// one, so that a `lazyInit` closure may use the same `userInfo`). The
/// values themselves are not made safe to share: keep there only what every
/// thread that reads it may use, as CoreStore says. The values live as long
/// as their owner, and no longer.
public final class UserInfo: @unchecked Sendable {
    /// A key to a value of type `Value`: each key made is a key of its own.
    /// Keep it in a `static let`.
    ///
    /// ```swift
    /// static let lastSync = UserInfo.Key<Date>()
    /// ```
    public final class Key<Value>: Sendable {
        /// A new key, unlike every other.
        public init() {}
    }

    // `@unchecked Sendable`: `values` is only touched while `lock` is held.
    private let lock = NSRecursiveLock()
    /// The values by key: a ``Key``'s address, or the pointer given; with the
    /// ``Key``, kept so that no other key is made at its address.
    private var values: [UnsafeRawPointer: (key: AnyObject?, value: Any)] = [:]

    init() {}

    /// The value kept under `key`, or `nil`; setting `nil` removes it.
    ///
    /// ```swift
    /// transaction.userInfo[AuditKeys.reason] = "nightly sync"
    /// ```
    public subscript<Value>(key: Key<Value>) -> Value? {
        get { self[Self.address(of: key)] as? Value }
        set { set(newValue, at: Self.address(of: key), key: key) }
    }

    /// The value kept under `key`; when there is none, `lazyInit`'s value,
    /// which is kept under `key` first. The closure runs at most once per
    /// key, while the lock is held.
    ///
    /// ```swift
    /// let counter = monitor.userInfo[ScreenKeys.counter, lazyInit: { Counter() }]
    /// ```
    public subscript<Value>(key: Key<Value>, lazyInit makeValue: () -> Value) -> Value {
        lock.withLock {
            if let value = self[key] { return value }
            let value = makeValue()
            set(value, at: Self.address(of: key), key: key)
            return value
        }
    }

    /// The value kept under the address `key`, CoreStore's kind of key, or
    /// `nil`; setting `nil` removes it.
    ///
    /// ```swift
    /// withUnsafePointer(to: &Static.myDataKey) { stack.userInfo[$0] = myObject }
    /// ```
    public subscript(key: UnsafeRawPointer) -> Any? {
        get { lock.withLock { values[key]?.value } }
        set { set(newValue, at: key, key: nil) }
    }

    /// The value kept under the address `key`; when there is none,
    /// `lazyInit`'s value, which is kept under `key` first.
    public subscript(key: UnsafeRawPointer, lazyInit makeValue: () -> Any) -> Any {
        lock.withLock {
            if let value = values[key]?.value { return value }
            let value = makeValue()
            values[key] = (nil, value)
            return value
        }
    }

    private func set(_ value: Any?, at address: UnsafeRawPointer, key: AnyObject?) {
        lock.withLock { values[address] = value.map { (key, $0) } }
    }

    private static func address(of key: AnyObject) -> UnsafeRawPointer {
        UnsafeRawPointer(Unmanaged.passUnretained(key).toOpaque())
    }
}
