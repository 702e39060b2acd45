/// "1 segment", "3 segments": a count with its noun in the number it takes
/// (English nouns whose plural adds an s, which are all the ones we count).
public func counted(_ count: Int, _ noun: String) -> String {
    "\(count) \(noun)\(count == 1 ? "" : "s")"
}
