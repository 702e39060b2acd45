/// chrF, the character n-gram F-score of the WMT metrics tasks, computed as
/// sacreBLEU 2 does by default: whitespace removed, n = 1…6, β = 2 (recall
/// weighted twice), the F-score of each order averaged over the orders both
/// texts are long enough for. 0…100; 100 for identical text.
public enum CharacterFScore {
    public static let maxOrder = 6
    public static let beta = 2.0

    public static func score(reference: String, hypothesis: String) -> Double {
        let reference = Array(reference.filter { !$0.isWhitespace })
        let hypothesis = Array(hypothesis.filter { !$0.isWhitespace })
        if reference.isEmpty && hypothesis.isEmpty { return 100 }
        let beta2 = beta * beta
        var total = 0.0, orders = 0
        for order in 1...maxOrder {
            let referenceGrams = grams(reference, order), hypothesisGrams = grams(hypothesis, order)
            let referenceTotal = referenceGrams.values.reduce(0, +), hypothesisTotal = hypothesisGrams.values.reduce(0, +)
            guard referenceTotal > 0 && hypothesisTotal > 0 else { continue }
            let matches = hypothesisGrams.reduce(0) { $0 + min($1.value, referenceGrams[$1.key] ?? 0) }
            let precision = Double(matches) / Double(hypothesisTotal), recall = Double(matches) / Double(referenceTotal)
            let denominator = beta2 * precision + recall
            total += denominator > 0 ? (1 + beta2) * precision * recall / denominator : 0
            orders += 1
        }
        return orders == 0 ? 0 : 100 * total / Double(orders)
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
