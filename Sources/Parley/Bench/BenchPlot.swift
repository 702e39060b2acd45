import Foundation
import ParleyCore

/// `latency.svg` beside a bench report, embedded in report.md: where each
/// segment's time went. Two panels, drawn by hand (no plotting library):
///
/// - the distribution of each stage's figure: every value a dot, the box
///   from p25 to p75, a tick at the median;
/// - the per-segment timeline: one stacked bar per measured segment, in
///   the order they were spoken — end of speech detection, the services,
///   the framework's overhead — adding up to voice to voice (or to text).
public enum BenchPlot {
    /// The figures the first panel shows, in the order of the path.
    static let stages = ["eos-detection-ms", "stt.ttfs-ms", "translate.time-to-final-ms", "tts.time-to-first-audio-ms",
                         "services-ms", "overhead-ms", "voice-to-voice-ms", "voice-to-text-ms"]
    /// The parts of a segment's bar, with their colours.
    static let parts = [("eos-detection-ms", "#8da0cb", "end of speech detected"), ("services-ms", "#fc8d62", "services"),
                        ("overhead-ms", "#66c2a5", "framework overhead")]

    static let width = 960.0
    static let left = 220.0
    static let right = 30.0

    /// The SVG, or nil when no segment carries a latency figure.
    public static func svg(_ records: [SegmentRecord]) -> String? {
        let rows = stages.compactMap { name -> (String, [Double])? in
            let values = records.compactMap { $0.figures[name] }.filter(\.isFinite)
            return values.isEmpty ? nil : (name, values.sorted())
        }
        guard !rows.isEmpty else { return nil }
        let timeline = records.filter { record in parts.allSatisfy { record.figures[$0.0] != nil } }
        let rowHeight = 34.0, distributionTop = 50.0
        let distributionHeight = Double(rows.count) * rowHeight
        let timelineTop = distributionTop + distributionHeight + 90
        let timelineHeight = timeline.isEmpty ? 0 : 220.0
        let height = timelineTop + timelineHeight + (timeline.isEmpty ? 0 : 60)
        var svg = [##"<svg xmlns="http://www.w3.org/2000/svg" width="\##(Int(width))" height="\##(Int(height))" font-family="sans-serif" font-size="12">"##,
                   ##"<rect width="100%" height="100%" fill="white"/>"##,
                   ##"<text x="10" y="24" font-size="15" font-weight="bold">Latency by stage (ms): each dot a segment, box p25–p75, bar the median</text>"##]
        let scaleMax = niceCeiling(rows.map { $0.1.last ?? 0 }.max() ?? 1)
        svg += axis(top: distributionTop, bottom: distributionTop + distributionHeight, maximum: scaleMax)
        for (index, (name, values)) in rows.enumerated() {
            let y = distributionTop + Double(index) * rowHeight + rowHeight / 2
            svg.append(##"<text x="\##(left - 8)" y="\##(format(y + 4))" text-anchor="end">\##(name) (n=\##(values.count))</text>"##)
            let p25 = Distribution.percentile(values, 25), p50 = Distribution.percentile(values, 50), p75 = Distribution.percentile(values, 75)
            svg.append(##"<rect x="\##(format(x(p25, scaleMax)))" y="\##(format(y - 9))" width="\##(format(Swift.max(1, x(p75, scaleMax) - x(p25, scaleMax))))" height="18" fill="#e6e6e6" stroke="#999"/>"##)
            for value in values {
                svg.append(##"<circle cx="\##(format(x(value, scaleMax)))" cy="\##(format(y))" r="2.5" fill="#1f77b4" fill-opacity="0.6"/>"##)
            }
            svg.append(##"<line x1="\##(format(x(p50, scaleMax)))" x2="\##(format(x(p50, scaleMax)))" y1="\##(format(y - 11))" y2="\##(format(y + 11))" stroke="#d62728" stroke-width="2"/>"##)
        }
        if !timeline.isEmpty {
            svg.append(##"<text x="10" y="\##(format(timelineTop - 40))" font-size="15" font-weight="bold">Each measured segment, in the order spoken (ms)</text>"##)
            let totals = timeline.map { record in parts.reduce(0) { $0 + Swift.max(0, record.figures[$1.0] ?? 0) } }
            let barMax = niceCeiling(totals.max() ?? 1)
            let bottom = timelineTop + timelineHeight
            svg += [##"<line x1="\##(left)" x2="\##(left)" y1="\##(timelineTop)" y2="\##(bottom)" stroke="#333"/>"##,
                    ##"<line x1="\##(left)" x2="\##(width - right)" y1="\##(bottom)" y2="\##(bottom)" stroke="#333"/>"##]
            for step in 0...4 {
                let value = barMax * Double(step) / 4, y = bottom - timelineHeight * Double(step) / 4
                svg.append(##"<text x="\##(left - 8)" y="\##(format(y + 4))" text-anchor="end">\##(Int(value))</text>"##)
                svg.append(##"<line x1="\##(left)" x2="\##(width - right)" y1="\##(format(y))" y2="\##(format(y))" stroke="#eee"/>"##)
            }
            let slot = (width - left - right) / Double(timeline.count)
            for (index, record) in timeline.enumerated() {
                var y = bottom
                for (name, colour, _) in parts {
                    let value = Swift.max(0, record.figures[name] ?? 0)
                    let h = timelineHeight * value / barMax
                    y -= h
                    svg.append(##"<rect x="\##(format(left + Double(index) * slot + slot * 0.1))" y="\##(format(y))" width="\##(format(slot * 0.8))" height="\##(format(h))" fill="\##(colour)"><title>\##(escape(record.entry)) segment \##(record.segment): \##(name) \##(format(value))</title></rect>"##)
                }
            }
            var legendX = left
            for (_, colour, label) in parts {
                svg.append(##"<rect x="\##(format(legendX))" y="\##(format(bottom + 20))" width="12" height="12" fill="\##(colour)"/>"##)
                svg.append(##"<text x="\##(format(legendX + 18))" y="\##(format(bottom + 30))">\##(label)</text>"##)
                legendX += 200
            }
        }
        svg.append("</svg>")
        return svg.joined(separator: "\n") + "\n"
    }

    /// Ticks and grid lines of the distribution panel, 0 to `maximum`.
    static func axis(top: Double, bottom: Double, maximum: Double) -> [String] {
        (0...5).flatMap { step -> [String] in
            let value = maximum * Double(step) / 5, position = x(value, maximum)
            return [##"<line x1="\##(format(position))" x2="\##(format(position))" y1="\##(format(top))" y2="\##(format(bottom))" stroke="#eee"/>"##,
                    ##"<text x="\##(format(position))" y="\##(format(bottom + 16))" text-anchor="middle">\##(Int(value))</text>"##]
        }
    }

    static func x(_ value: Double, _ maximum: Double) -> Double {
        left + (width - left - right) * Swift.min(1, Swift.max(0, value / maximum))
    }

    /// 1, 2 or 5 times a power of ten, at or above `value`.
    static func niceCeiling(_ value: Double) -> Double {
        guard value > 0 else { return 1 }
        let power = pow(10, (log10(value)).rounded(.down))
        return [1.0, 2, 5, 10].map { $0 * power }.first { $0 >= value } ?? 10 * power
    }

    static func format(_ value: Double) -> String { String(format: "%.1f", value) }

    /// Text for an SVG element: the corpus's entry names are the user's.
    static func escape(_ text: String) -> String {
        SafeText.oneLine(text).replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}
