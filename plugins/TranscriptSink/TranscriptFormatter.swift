import Foundation
import GstKit
import ParleySpeech
import ParleyCore

/// Turns one result into the bytes `transcriptsink` writes for it.
enum TranscriptFormatter {
    static func format(_ text: String, format: TranscriptFormat, cue: Int, meta: SpeechMeta?,
                       start: UInt64, duration: UInt64) -> String {
        let text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        switch format {
        case .text:
            // One result, one line: a newline or escape sequence in a provider's
            // text must not forge lines or reach a terminal.
            return SafeText.oneLine(text) + "\n"
        case .jsonl:
            var object: [String: Any] = ["text": text]
            if let meta {
                object["segment"] = meta.segmentID
                object["status"] = meta.status.description
                if !meta.language.isEmpty { object["language"] = meta.language }
            }
            if start != Gst.clockTimeNone { object["start"] = seconds(start) }
            if start != Gst.clockTimeNone && duration != Gst.clockTimeNone { object["end"] = seconds(start + duration) }
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
            return String(decoding: data, as: UTF8.self) + "\n"
        case .srt:
            let from = start == Gst.clockTimeNone ? 0 : start
            let to = duration == Gst.clockTimeNone ? from + 2 * Gst.second : from + duration
            return "\(cue)\n\(srtTime(from)) --> \(srtTime(to))\n\(Subtitles.clean(text))\n\n"
        }
    }

    static func seconds(_ time: UInt64) -> Double {
        (Double(time / Gst.millisecond) / 1000)
    }

    static func srtTime(_ time: UInt64) -> String {
        SubtitleTime.format(milliseconds: Int(time / Gst.millisecond), separator: ",")
    }
}
