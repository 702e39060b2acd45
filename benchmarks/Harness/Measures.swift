import Foundation

/// What every benchmark reports: percentiles of its samples, as a table row.
enum Percentiles {
    /// The `p` quantile (0...1) by nearest rank; NaN when there are no samples.
    static func value(_ values: [Double], _ p: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
    }

    /// "| name | p50 | p95 | p99 |" with `digits` decimals.
    static func row(_ name: String, _ values: [Double], digits: Int = 2) -> String {
        let cells = [0.5, 0.95, 0.99].map { String(format: "%.\(digits)f", value(values, $0)) }
        return "| \(name) | " + cells.joined(separator: " | ") + " |"
    }
}

/// The bare request, measured by curl: the figure each element is held against.
enum Curl {
    /// Runs curl on `arguments` (no proxy, body discarded) and returns the
    /// space-separated numbers its `--write-out` `format` prints.
    static func measure(_ format: String, _ arguments: [String]) throws -> [Double] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["--noproxy", "*", "-s", "-N", "-o", "/dev/null", "-w", format] + arguments
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        process.waitUntilExit()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return text.split(separator: " ").map { Double($0) ?? .nan }
    }

    /// A JSON POST's arguments.
    static func postJSON(_ object: [String: Any], to url: String) throws -> [String] {
        let body = try JSONSerialization.data(withJSONObject: object)
        return ["-H", "Content-Type: application/json", "--data-binary", String(decoding: body, as: UTF8.self), url]
    }
}
