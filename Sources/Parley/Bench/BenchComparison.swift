import Foundation
import ParleyCore

/// Two bench reports side by side (`parley bench compare A B`): for every
/// figure both have, their medians and p95s and B's as a share of A's, and
/// the quality and resource figures likewise. An A/B of two pipelines, two
/// settings or two commits on the same corpus is what a bench is run for.
public struct BenchComparison: Sendable {
    public struct Row: Sendable, Equatable {
        public var name: String
        public var a: Double
        public var b: Double
        /// b / a; nil when a is 0.
        public var ratio: Double? { a == 0 ? nil : b / a }
    }

    public var a: BenchReport
    public var b: BenchReport
    public var nameA: String
    public var nameB: String

    public init(_ a: BenchReport, _ b: BenchReport, names: (String, String)) {
        self.a = a
        self.b = b
        (nameA, nameB) = names
    }

    /// p50 and p95 of every latency figure both reports have, in A's order.
    public var latency: [Row] {
        a.figureOrder.compactMap { name -> [Row]? in
            guard let x = a.figures[name], let y = b.figures[name] else { return nil }
            return [Row(name: "\(name) p50", a: x.p50, b: y.p50), Row(name: "\(name) p95", a: x.p95, b: y.p95)]
        }.flatMap { $0 }
    }

    /// WER, chrF per language, VAD F1, CPU per stream second and peak RSS (medians over runs).
    public var other: [Row] {
        var rows: [Row] = []
        if let x = a.quality.wordErrorRate, let y = b.quality.wordErrorRate { rows.append(Row(name: "WER %", a: x * 100, b: y * 100)) }
        for (language, x) in a.quality.chrF.sorted(by: { $0.key < $1.key }) {
            if let y = b.quality.chrF[language] { rows.append(Row(name: "chrF \(language)", a: x, b: y)) }
        }
        if let x = a.quality.vadF1, let y = b.quality.vadF1 { rows.append(Row(name: "VAD F1", a: x, b: y)) }
        func median(_ report: BenchReport, _ value: (BenchReport.Run) -> Double?) -> Double? {
            let values = report.runs.compactMap(value).sorted()
            return values.isEmpty ? nil : values[values.count / 2]
        }
        for (name, value) in [("CPU s per stream s", { (run: BenchReport.Run) in run.cpuPerStreamSecond }),
                              ("peak RSS MB parley", { (run: BenchReport.Run) in run.peakRSSMegabytes }),
                              ("peak RSS MB workers", { (run: BenchReport.Run) in run.workerPeakRSSMegabytes })] {
            if let x = median(a, value), let y = median(b, value) { rows.append(Row(name: name, a: x, b: y)) }
        }
        return rows
    }

    public var markdown: String {
        func number(_ value: Double) -> String { String(format: "%.1f", value) }
        func table(_ title: String, _ rows: [Row]) -> [String] {
            guard !rows.isEmpty else { return [] }
            return ["", "## \(title)", "", "| figure | A | B | B / A |", "|---|---:|---:|---:|"] + rows.map { row in
                "| \(row.name) | \(number(row.a)) | \(number(row.b)) | \(row.ratio.map { String(format: "%.2f×", $0) } ?? "–") |"
            }
        }
        var lines = ["# parley bench compare", "",
                     "- A: \(nameA) — \(a.pipeline), \(a.corpus)\(Self.made(a.metadata))",
                     "- B: \(nameB) — \(b.pipeline), \(b.corpus)\(Self.made(b.metadata))"]
        if a.corpus != b.corpus { lines += ["", "**The corpora differ**: the figures are not of the same speech."] }
        lines += table("Latency (ms)", latency)
        lines += table("Quality and resources", other)
        if latency.isEmpty && other.isEmpty { lines += ["", "The reports have no figure in common."] }
        return lines.joined(separator: "\n") + "\n"
    }

    static func made(_ metadata: BenchMetadata?) -> String {
        guard let metadata else { return "" }
        return " (Parley \(metadata.parleyVersion)\(metadata.commit.map { " \($0.prefix(12))" } ?? ""), \(metadata.date), \(metadata.cores) cores)"
    }
}
