import Foundation
import Parley
import ParleyCore
import ParleyTestSupport
import Testing

/// vadsegmenter in real pipelines, in-process through the Parley API, on
/// real recorded speech.
@Suite struct VADSegmenterTests {
    let scratch = TestSupport.temporaryFolder()

    func segments(_ description: String) async throws -> [SegmentEvent] {
        let pipeline = try Pipeline(launch: description)
        var found: [SegmentEvent] = []
        try await pipeline.run { event in
            if case .segment(let segment) = event, segment.end != nil { found.append(segment) }
        }
        return found
    }

    func seconds(_ time: UInt64?) -> Double { Double(time ?? 0) / 1e9 }

    @Test(arguments: [8000, 16000, 32000, 44100, 48000])
    func findsEachUtteranceAtEverySampleRate(rate: Int) async throws {
        let recording = try SpeechFixtures.threeUtterances(in: scratch)
        let found = try await segments("""
            filesrc location=\(recording.path) ! wavparse ! audioconvert ! audioresample
            ! audio/x-raw,format=S16LE,channels=1,rate=\(rate) ! vadsegmenter ! fakesink
            """)
        #expect(found.count == 3, "one segment per utterance at \(rate) Hz: \(found)")
        for (segment, span) in zip(found, recording.spans) {
            // Each segment covers its utterance (the clips hold a little
            // silence at their edges, so allow that much inside the span).
            #expect(seconds(segment.start) <= span.lowerBound + 0.6)
            #expect(seconds(segment.end) >= span.upperBound - 0.6)
            #expect(seconds(segment.start) >= span.lowerBound - 0.35, "prefix padding is 300 ms")
        }
        #expect(found.map(\.segmentID) == [0, 1, 2])
        #expect(found.dropLast().allSatisfy { $0.reason == "silence" })
    }

    @Test func silenceAndAPureToneMakeNoSegments() async throws {
        let silence = try await segments(
            "audiotestsrc wave=silence num-buffers=200 ! audio/x-raw,format=S16LE,channels=1,rate=16000 ! vadsegmenter ! fakesink")
        #expect(silence.isEmpty)
        let tone = try await segments(
            "audiotestsrc wave=sine freq=440 volume=0.3 num-buffers=300 ! audio/x-raw,format=S16LE,channels=1,rate=16000 ! vadsegmenter ! fakesink")
        #expect(tone.isEmpty)
    }

    @Test func endOfStreamInsideSpeechClosesTheSegment() async throws {
        let samples = try SpeechFixtures.samples(ofWAV: SpeechFixtures.clips[2])
        let cut = scratch.appendingPathComponent("cut.wav").path
        try SpeechFixtures.writeWAV(Array(samples[0..<(16_000 * 2)]), rate: 16_000, to: cut)
        let found = try await segments(
            "filesrc location=\(cut) ! wavparse ! vadsegmenter ! fakesink")
        #expect(found.last?.reason == "eos")
        #expect(abs(seconds(found.last?.end) - 2.0) < 0.05)
    }

    @Test func longSpeechIsCutAtMaxSegment() async throws {
        let recording = try SpeechFixtures.threeUtterances(gap: 0.2, in: scratch)
        let found = try await segments("""
            filesrc location=\(recording.path) ! wavparse ! vadsegmenter max-segment-ms=2000 silence-duration-ms=800 ! fakesink
            """)
        let cuts = found.filter { $0.reason == "max-duration" }
        #expect(cuts.count >= 4)
        for segment in found {
            #expect(seconds(segment.end) - seconds(segment.start) <= 2.0 + 0.01)
        }
        // Segments tile the speech: each cut segment's successor starts where it ended.
        for (first, second) in zip(found, found.dropFirst()) where first.reason == "max-duration" {
            #expect(second.start == first.end)
        }
    }

    @Test func pushToTalkFollowsThePropertyWhilePlaying() async throws {
        let pipeline = try Pipeline(launch: """
            audiotestsrc is-live=true wave=white-noise volume=0.2 ! audio/x-raw,format=S16LE,channels=1,rate=16000
            ! vadsegmenter name=vad mode=ptt ! fakesink
            """)
        try pipeline.play()
        try await Task.sleep(nanoseconds: 300_000_000)
        let clock = ContinuousClock()
        try pipeline.set("ptt-active", of: "vad", to: "true")
        let pressed = clock.now
        try await Task.sleep(nanoseconds: 600_000_000)
        try pipeline.set("ptt-active", of: "vad", to: "false")
        // A loaded machine may wake the test late: the button was held for
        // as long as it really was, and the live source's audio says so too.
        let held = pressed.duration(to: clock.now)
        let heldSeconds = Double(held.components.seconds) + Double(held.components.attoseconds) / 1e18
        try await Task.sleep(nanoseconds: 300_000_000)
        pipeline.sendEOS()
        var found: [SegmentEvent] = []
        for await event in pipeline.events {
            if case .segment(let segment) = event, segment.end != nil { found.append(segment) }
            if case .eos = event { break }
        }
        await onThread { pipeline.stop() }
        #expect(found.count == 1)
        #expect(found.first?.reason == "ptt-release")
        let length = seconds(found.first?.end) - seconds(found.first?.start)
        #expect(abs(length - heldSeconds) < 0.35, "about the \(heldSeconds) s the button was held: \(length)")
    }

    @Test func segmentsArriveAsTypedEventsWithLatency() async throws {
        let recording = try SpeechFixtures.threeUtterances(in: scratch)
        let pipeline = try Pipeline(launch: "filesrc location=\(recording.path) ! wavparse ! vadsegmenter ! fakesink")
        var latencies: [LatencyReport] = []
        try await pipeline.run { event in
            if case .latency(let report) = event { latencies.append(report) }
        }
        #expect(latencies.count == 3)
        #expect(latencies.allSatisfy { $0.stage == "vad" })
        // Segments closed by silence were decided silence-duration-ms after the
        // speech ended; the last one is closed by EOS.
        #expect(latencies.prefix(2).allSatisfy { ($0.figures["eos-detection-ms"] ?? 0) >= 490 })
    }
}
