/// chrF, the character n-gram F-score of the WMT metrics tasks, computed as
/// sacreBLEU 2 does by default: whitespace removed, n = 1…6, precision and
/// recall each averaged over the orders both texts are long enough for, then
/// their F-score with β = 2 (recall weighted twice). 0…100; 100 for identical text.
public enum CharacterFScore {
    public static let maxOrder = 6
    public static let beta = 2.0

    public static func score(reference: String, hypothesis: String) -> Double {
        let reference = Array(reference.filter { !$0.isWhitespace })
        let hypothesis = Array(hypothesis.filter { !$0.isWhitespace })
        if reference.isEmpty && hypothesis.isEmpty { return 100 }
        let beta2 = beta * beta
        var precisions = 0.0, recalls = 0.0, orders = 0
        for order in 1...maxOrder {
            let referenceGrams = grams(reference, order), hypothesisGrams = grams(hypothesis, order)
            let referenceTotal = referenceGrams.values.reduce(0, +), hypothesisTotal = hypothesisGrams.values.reduce(0, +)
            guard referenceTotal > 0 && hypothesisTotal > 0 else { continue }
            let matches = hypothesisGrams.reduce(0) { $0 + min($1.value, referenceGrams[$1.key] ?? 0) }
            precisions += Double(matches) / Double(hypothesisTotal)
            recalls += Double(matches) / Double(referenceTotal)
            orders += 1
        }
        guard orders > 0 else { return 0 }
        let precision = precisions / Double(orders), recall = recalls / Double(orders)
        guard precision + recall > 0 else { return 0 }
        return 100 * (1 + beta2) * precision * recall / (beta2 * precision + recall)
    }

    static func grams(_ characters: [Character], _ order: Int) -> [String: Int] {
        guard characters.count >= order else { return [:] }
        var counts: [String: Int] = [:]
        for start in 0...(characters.count - order) {
            counts[String(characters[start..<(start + order)]), default: 0] += 1
        }
        return counts
    }
}
