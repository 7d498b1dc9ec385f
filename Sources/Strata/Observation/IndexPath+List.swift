import Foundation

// Foundation on Linux has IndexPath but not the item/section spelling Apple platforms add.
#if !canImport(Darwin)
extension IndexPath {
    /// An index path of `item` in `section`.
    public init(item: Int, section: Int) {
        self.init(indexes: [section, item])
    }

    /// The section index (the first index).
    public var section: Int { self[0] }

    /// The item index within the section (the second index).
    public var item: Int { self[1] }
}
#endif
