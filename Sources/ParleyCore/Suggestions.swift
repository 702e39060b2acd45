/// "Did you mean" by edit distance, for error messages.
public enum Suggestions {
    /// The candidate nearest to `word`, if it is near enough to be a likely typo.
    public static func closest(to word: String, in candidates: [String]) -> String? {
        nearest(to: word, in: candidates, count: 1).first
    }

    /// Up to `count` candidates near `word`, nearest first.
    public static func nearest(to word: String, in candidates: [String], count: Int) -> [String] {
        let limit = max(2, word.count / 2)
        return candidates.map { ($0, distance(word.lowercased(), $0.lowercased())) }
            .filter { $0.1 <= limit }
            .sorted { $0.1 < $1.1 }
            .prefix(count)
            .map(\.0)
    }

    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var row = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = row
        }
        return previous[b.count]
    }
}
