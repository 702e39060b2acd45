/// Comparisons whose time does not depend on where two secrets differ, so a
/// client timing the answers cannot guess a key byte by byte.
public enum ConstantTime {
    /// True when `a` and `b` are the same bytes. Time depends only on the lengths.
    public static func equal(_ a: String, _ b: String) -> Bool {
        let left = Array(a.utf8), right = Array(b.utf8)
        var difference = UInt8(truncatingIfNeeded: left.count ^ right.count) | (left.count == right.count ? 0 : 1)
        for index in 0..<max(left.count, right.count) {
            let x = index < left.count ? left[index] : 0, y = index < right.count ? right[index] : 0
            difference |= x ^ y
        }
        return difference == 0
    }
}
