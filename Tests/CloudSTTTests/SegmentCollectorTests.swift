import GstKit
import ParleySpeech
import Testing
@testable import CloudSTT

/// How cloudstt gathers audio into segments, on its own.
@Suite struct SegmentCollectorTests {
    let second = Gst.second

    @Test func speechEventsDelimitSegmentsAndAudioBetweenThemIsNotSpeech() {
        var collector = SegmentCollector(rate: 16_000)
        #expect(collector.boundary(.start(segmentID: 4, pts: 0)).isEmpty)
        #expect(collector.append([Int16](repeating: 1, count: 8_000), pts: 0, maxSegmentMs: 30_000) == nil)
        let done = collector.boundary(.end(segmentID: 4, start: 0, end: second / 2, speechEnd: second / 3,
                                           reason: .silence, decidedAt: 77))
        #expect(done.count == 1)
        #expect(done.first?.id == 4 && done.first?.samples.count == 8_000 && done.first?.decidedAt == 77)
        #expect(collector.append([1, 2, 3], pts: second, maxSegmentMs: 30_000) == nil)
        #expect(collector.finish() == nil, "audio after speech-end belongs to no segment")
    }

    @Test func withoutEventsAudioIsCutEveryMaxSegment() {
        var collector = SegmentCollector(rate: 8_000)
        var segments: [SpeechSegment] = []
        for index in 0..<5 {
            if let done = collector.append([Int16](repeating: 0, count: 4_000), pts: UInt64(index) * second / 2, maxSegmentMs: 1000) {
                segments.append(done)
            }
        }
        if let last = collector.finish() { segments.append(last) }
        #expect(segments.map(\.id) == [0, 1, 2])
        #expect(segments.map(\.samples.count) == [8_000, 8_000, 4_000], "nothing lost")
    }
}

extension SpeechSegment: Equatable {
    public static func == (a: SpeechSegment, b: SpeechSegment) -> Bool { a.id == b.id && a.samples == b.samples }
}
