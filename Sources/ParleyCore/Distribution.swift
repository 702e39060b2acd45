/// The summary a latency figure gets in reports: count, mean, percentiles
/// and maximum. Percentiles interpolate linearly between the two nearest
/// ranks (numpy's default), so p50 of [1, 2] is 1.5.
public struct Distribution: Sendable, Equatable, Codable {
    public var n: Int
    /// nil in reports written before it was kept.
    public var min: Double?
    public var mean: Double
    /// The sample standard deviation (0 for one value); nil in reports written before it was kept.
    public var standardDeviation: Double?
    public var p50: Double
    public var p90: Double
    public var p95: Double
    public var p99: Double
    public var max: Double

    /// Kebab-case, as every key of a bench report.
    enum CodingKeys: String, CodingKey {
        case n, min, mean, p50, p90, p95, p99, max
        case standardDeviation = "standard-deviation"
    }

    /// nil for no values: a figure nobody measured has no summary, not zeros.
    public init?(_ values: [Double]) {
        let sorted = values.filter(\.isFinite).sorted()
        guard !sorted.isEmpty else { return nil }
        n = sorted.count
        min = sorted[0]
        let mean = sorted.reduce(0, +) / Double(sorted.count)
        self.mean = mean
        standardDeviation = sorted.count > 1
            ? (sorted.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(sorted.count - 1)).squareRoot() : 0
        p50 = Self.percentile(sorted, 50)
        p90 = Self.percentile(sorted, 90)
        p95 = Self.percentile(sorted, 95)
        p99 = Self.percentile(sorted, 99)
        max = sorted[sorted.count - 1]
    }

    /// The `p`th percentile of sorted values.
    public static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        guard sorted.count > 1 else { return sorted.first ?? .nan }
        let rank = p / 100 * Double(sorted.count - 1)
        let below = Int(rank.rounded(.down)), above = Swift.min(below + 1, sorted.count - 1)
        return sorted[below] + (sorted[above] - sorted[below]) * (rank - Double(below))
    }
}
