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
        guard case .completed(let segment)? = done.first else { Issue.record("\(done)"); return }
        #expect(segment.id == 4 && segment.samples.count == 8_000 && segment.decidedAt == 77)
        #expect(collector.append([1, 2, 3], pts: second, maxSegmentMs: 30_000) == nil)
        #expect(collector.finish() == nil, "audio after speech-end belongs to no segment")
    }

    /// A likely end hands over the segment as heard so far; the segment
    /// goes on collecting, and speech resumed withdraws that likely end.
    @Test func aLikelyEndIsTheSegmentSoFarAndResumingWithdrawsIt() {
        var collector = SegmentCollector(rate: 16_000)
        _ = collector.boundary(.start(segmentID: 2, pts: 0))
        _ = collector.append([Int16](repeating: 5, count: 3_200), pts: 0, maxSegmentMs: 30_000)
        let likely = collector.boundary(.likelyEnd(segmentID: 2, position: second / 5, speechEnd: second / 10, decidedAt: 9))
        guard case .likelyEnd(let heard)? = likely.first else { Issue.record("\(likely)"); return }
        #expect(heard.id == 2 && heard.samples.count == 3_200 && heard.speechEnd == second / 10 && heard.decidedAt == 9)
        #expect(collector.boundary(.likelyEnd(segmentID: 7, position: 0, speechEnd: 0, decidedAt: 0)).isEmpty,
                "another segment's likely end is not this one's")
        guard case .resumed(id: 2)? = collector.boundary(.resumed(segmentID: 2, at: second)).first else {
            Issue.record("resumed"); return
        }
        _ = collector.append([Int16](repeating: 6, count: 1_600), pts: second, maxSegmentMs: 30_000)
        let done = collector.boundary(.end(segmentID: 2, start: 0, end: second, speechEnd: second, reason: .silence, decidedAt: 10))
        guard case .completed(let segment)? = done.first else { Issue.record("\(done)"); return }
        #expect(segment.samples.count == 4_800, "the likely end took nothing away")
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
