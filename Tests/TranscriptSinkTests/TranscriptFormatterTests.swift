import Foundation
import GstKit
import ParleyCore
import ParleySpeech
import Testing
@testable import TranscriptSink

/// What transcriptsink writes for one result, in each of its formats.
@Suite struct TranscriptFormatterTests {
    let second = Gst.second

    @Test func textIsOneSafeLineWhateverTheProviderSent() {
        let line = TranscriptFormatter.format("  hello\nforged line\u{1B}[31m red ", format: .text, cue: 1, meta: nil,
                                              start: 0, duration: second)
        #expect(line.hasSuffix("\n"))
        #expect(line.dropLast().contains("\n") == false, "a newline in the text must not forge a second line")
        #expect(!line.contains("\u{1B}"), "an escape sequence must not reach a terminal")
        #expect(line.hasPrefix("hello"))
    }

    @Test func jsonLinesCarryTheSegmentStatusLanguageAndTimes() throws {
        let meta = SpeechMeta(segmentID: 7, status: .final, language: "es")
        let line = TranscriptFormatter.format("hola\n", format: .jsonl, cue: 1, meta: meta, start: 1_500 * Gst.millisecond,
                                              duration: 2 * second)
        #expect(line.hasSuffix("\n") && line.dropLast().contains("\n") == false)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["text"] as? String == "hola")
        #expect(object["segment"] as? Int == 7)
        #expect(object["status"] as? String == "final")
        #expect(object["language"] as? String == "es")
        #expect(object["start"] as? Double == 1.5)
        #expect(object["end"] as? Double == 3.5)
    }

    @Test func jsonLinesLeaveOutWhatIsUnknown() throws {
        let line = TranscriptFormatter.format("hi", format: .jsonl, cue: 1, meta: nil, start: Gst.clockTimeNone,
                                              duration: Gst.clockTimeNone)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["text"])
    }

    @Test func srtCuesAreNumberedTimedAndCannotForgeACue() {
        let cue = TranscriptFormatter.format("one --> two\n\n3\n00:00:00,000 --> 00:00:01,000", format: .srt, cue: 4, meta: nil,
                                             start: 61 * second + 250 * Gst.millisecond, duration: 2 * second)
        let lines = cue.components(separatedBy: "\n")
        #expect(lines[0] == "4")
        #expect(lines[1] == "00:01:01,250 --> 00:01:03,250")
        #expect(cue.hasSuffix("\n\n"))
        // The text's own arrows and blank lines cannot start another cue.
        #expect(cue.components(separatedBy: "-->").count == 2)
        #expect(!cue.dropLast(2).contains("\n\n"))
    }

    @Test func anSRTCueWithoutTimesLastsTwoSeconds() {
        let cue = TranscriptFormatter.format("untimed", format: .srt, cue: 1, meta: nil, start: Gst.clockTimeNone,
                                             duration: Gst.clockTimeNone)
        #expect(cue.components(separatedBy: "\n")[1] == "00:00:00,000 --> 00:00:02,000")
    }
}
