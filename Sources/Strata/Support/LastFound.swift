import Synchronization

/// The entry a table's look-up found last, read without the table's lock: a
/// look-up repeated in a loop (a query built anew on every call) finds its
/// entry here, with no lock and no hashing.
///
/// Only for entries that are never freed nor changed once kept: the slot
/// holds an unretained address. It is written with release once the entry
/// is made, read with acquire, and written only when it changes, so that
/// threads reading the same entry do not take the cache line from each other.
struct LastFound<Entry: AnyObject & Sendable>: ~Copyable, Sendable {
    private let address = Atomic<UInt>(0)

    /// The entry remembered last, or `nil` before any.
    func entry() -> Entry? {
        let last = address.load(ordering: .acquiring)
        guard last != 0 else { return nil }
        return Unmanaged<Entry>.fromOpaque(UnsafeRawPointer(bitPattern: last)!).takeUnretainedValue()
    }

    /// Remembers `entry`, one its table keeps for good.
    func remember(_ entry: Entry) {
        let new = UInt(bitPattern: Unmanaged.passUnretained(entry).toOpaque())
        if address.load(ordering: .relaxed) != new {
            address.store(new, ordering: .releasing)
        }
    }
}
