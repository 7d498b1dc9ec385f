import Foundation

// `IndexPath(item:section:)`, `.item` and `.section` come from UIKit and
// AppKit on Apple platforms (`IndexPath(row:section:)` and `.row`, a table
// view's spelling, from UIKit), not from Foundation; Foundation elsewhere has
// IndexPath without them, so Strata adds the same spellings there.
#if canImport(UIKit)
import UIKit
#elseif canImport(AppKit)
import AppKit
#else
extension IndexPath {
    /// An index path of `item` in `section`.
    public init(item: Int, section: Int) {
        // Two appends, not an array literal: no array is allocated per path.
        self.init(index: section)
        append(item)
    }

    /// The section index (the first index).
    public var section: Int { self[0] }

    /// The item index within the section (the second index).
    public var item: Int { self[1] }

    /// An index path of `row` in `section`, a table view's spelling of
    /// ``init(item:section:)``: `monitor[IndexPath(row: 2, section: 1)]`.
    public init(row: Int, section: Int) {
        self.init(item: row, section: section)
    }

    /// The row index within the section (the second index), a table view's
    /// spelling of ``item``.
    public var row: Int { self[1] }
}
#endif

extension IndexPath {
    /// The index path of `position` in a sectioned list whose sections end
    /// at `sectionEnds` (ascending; a section's end is the next one's start),
    /// by binary search.
    init(position: Int, sectionEnds: [Int]) {
        // The first section whose end lies past `position`.
        var low = 0, high = sectionEnds.count
        while low < high {
            let middle = (low + high) / 2
            if sectionEnds[middle] <= position { low = middle + 1 } else { high = middle }
        }
        self.init(item: position - (low == 0 ? 0 : sectionEnds[low - 1]), section: low)
    }
}
