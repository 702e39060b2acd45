import Foundation
import GstKit
import Parley
import ParleyCore
import ParleyTestSupport
import Testing
import VADSegmenter

/// vadsegmenter in real pipelines, in-process through the Parley API, on
/// real recorded speech.
@Suite struct VADSegmenterPipelineTests {
    let scratch = TestSupport.temporaryFolder()

    func segments(_ description: String) async throws -> [SegmentEvent] {
        try await segmentsWithLatency(description).segments
    }

    /// The segments a pipeline closed and the latency reports, in order.
    func segmentsWithLatency(_ description: String) async throws -> (segments: [SegmentEvent], latencies: [LatencyReport]) {
        let pipeline = try Pipeline(launch: description)
        var segments: [SegmentEvent] = [], latencies: [LatencyReport] = []
        try await pipeline.run { event in
            if case .latency(let report) = event { latencies.append(report) }
            if case .segment(let segment) = event, segment.end != nil { segments.append(segment) }
        }
        return (segments, latencies)
    }

    /// The segments a playing pipeline closes until its EOS (sent by the
    /// caller), then the pipeline stopped.
    func closedSegments(of pipeline: Pipeline) async -> [SegmentEvent] {
        var found: [SegmentEvent] = []
        for await event in pipeline.events {
            if case .segment(let segment) = event, segment.end != nil { found.append(segment) }
            if case .eos = event { break }
        }
        await onThread { pipeline.stop() }
        return found
    }

    /// The `parley/vad-level` messages of a pipeline, in order.
    func levelReadings(_ description: String) async throws -> [Structure] {
        let pipeline = try Pipeline(launch: description)
        var readings: [Structure] = []
        try await pipeline.run { event in
            if case .elementMessage(_, let s) = event, s.name == "parley/vad-level" { readings.append(s) }
        }
        return readings
    }

    /// One of alsa-utils' voice clips (48 kHz, starting on its first word), as S16LE mono at `rate`.
    func alsaClip(_ name: String, rate: Int) -> String {
        """
        filesrc location=/usr/share/sounds/alsa/\(name).wav ! wavparse ! audioconvert ! audioresample
        ! audio/x-raw,format=S16LE,channels=1,rate=\(rate)
        """
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

    /// A short phrase with a pause between its words is one utterance, not
    /// two: alsa-utils' voice clips start on their first word, and "Front ...
    /// Center" holds 230 ms of digital zeros between the words, after which
    /// the detector is slow to hear the "s" of "Center" (models trained with
    /// other seeds split it: benchmarks/vad/train/train.py, "Which seed
    /// ships"). At the clips' own 48 kHz and resampled to 16 kHz.
    @Test(arguments: [48000, 16000])
    func aShortPhraseWithAPauseIsOneSegment(rate: Int) async throws {
        for name in ["Front_Center", "Front_Left", "Side_Left", "Rear_Right"] {
            let found = try await segments("\(alsaClip(name, rate: rate)) ! vadsegmenter ! fakesink")
            #expect(found.count == 1, "\(name) at \(rate) Hz: \(found)")
            #expect(seconds(found.first?.start) < 0.2, "\(name) starts on its first word")
        }
    }

    /// The word after a pause is heard from its vowel on: in "Front ...
    /// Center" the "s" follows a fade to -100 dBFS and digital zeros, and
    /// the loud "en" after it (0.93-1.07 s) is speech in every frame, not
    /// taken for the tail of a noise burst (the noise floor's range,
    /// `NoiseFloor`). At the clip's own 48 kHz and resampled to 16 kHz.
    @Test(arguments: [48000, 16000])
    func theVowelAfterAPauseIsSpeechInEveryFrame(rate: Int) async throws {
        let readings = try await levelReadings("\(alsaClip("Front_Center", rate: rate)) ! vadsegmenter level-interval-ms=10 ! fakesink")
        let vowel = readings.map { (start: seconds($0["start"]?.uint64), probability: $0["probability"]?.double ?? 0) }
            .filter { (0.95..<1.05).contains($0.start) }
        #expect(vowel.count == 10)
        #expect(vowel.allSatisfy { $0.probability > 0.5 }, "\(rate) Hz: \(vowel)")
    }

    /// post-messages=false keeps the bus quiet (as level's does) and cuts the
    /// same segments: parley/latency still comes once per segment.
    @Test func postMessagesFalseSilencesTheVADMessagesOnly() async throws {
        let recording = try SpeechFixtures.threeUtterances(in: scratch)
        let source = """
            filesrc location=\(recording.path) ! wavparse ! audioconvert ! audioresample
            ! audio/x-raw,format=S16LE,channels=1,rate=16000
            """
        let loud = try await segmentsWithLatency("\(source) ! vadsegmenter level-interval-ms=100 ! fakesink")
        let quiet = try await segmentsWithLatency("\(source) ! vadsegmenter level-interval-ms=100 post-messages=false ! fakesink")
        #expect(loud.segments.count == 3)
        #expect(quiet.segments.isEmpty, "no parley/vad: \(quiet.segments)")
        #expect(quiet.latencies.filter { $0.stage == "vad" }.map(\.segmentID) == loud.segments.map(\.segmentID))
        let levels = try await levelReadings("\(source) ! vadsegmenter level-interval-ms=100 post-messages=false ! fakesink")
        #expect(levels.isEmpty)
    }

    /// The "listening" indicator the apps draw: a level every 100 ms, loud and
    /// speaking during each utterance, quiet and not speaking between them.
    @Test func levelMessagesFollowTheSpeechEveryInterval() async throws {
        let recording = try SpeechFixtures.threeUtterances(in: scratch)
        let pipeline = try Pipeline(launch: """
            filesrc location=\(recording.path) ! wavparse ! audioconvert ! audioresample
            ! audio/x-raw,format=S16LE,channels=1,rate=16000 ! vadsegmenter level-interval-ms=100 ! fakesink
            """)
        var levels: [(start: Double, probability: Double, level: Double, speaking: Bool)] = []
        try await pipeline.run { event in
            if case .elementMessage(_, let s) = event, s.name == "parley/vad-level" {
                #expect(s["duration"]?.uint64 == 100_000_000)
                levels.append((seconds(s["start"]?.uint64), s["probability"]?.double ?? -1, s["level-db"]?.double ?? 0,
                               s["speaking"]?.bool ?? false))
            }
        }
        let total = Double(try SpeechFixtures.samples(ofWAV: recording.path).count) / 16_000
        #expect(abs(Double(levels.count) - total * 10) <= 1, "one reading per 100 ms of \(total) s")
        #expect(zip(levels, levels.dropFirst()).allSatisfy { abs($1.start - $0.start - 0.1) < 1e-6 })
        for span in recording.spans {
            // The middle of each utterance, and the middle of the pause after it.
            let inside = levels.filter { abs($0.start - (span.lowerBound + span.upperBound) / 2) < 0.3 }
            #expect(!inside.isEmpty && inside.allSatisfy { $0.speaking && $0.level > -40 }, "\(inside)")
            #expect(inside.contains { $0.probability > 0.5 })
        }
        let pauses = zip(recording.spans, recording.spans.dropFirst()).map { ($0.upperBound + $1.lowerBound) / 2 }
        for pause in pauses {
            let quiet = levels.filter { abs($0.start - pause) < 0.05 }
            #expect(!quiet.isEmpty && quiet.allSatisfy { $0.probability < 0.5 && $0.level < -50 }, "\(quiet)")
        }
        #expect(levels.allSatisfy { (0...1).contains($0.probability) && $0.level >= -100 && $0.level <= 0 })
    }

    /// A stream whose rate changes (concat of a 48 kHz and a 16 kHz clip):
    /// the frames the detector still holds for its lookahead when the new
    /// caps arrive are decided at the old rate, so every 10 ms frame of both
    /// parts gets its level reading and none is lost at the change.
    @Test func aRateChangeLosesNoFrameTheDetectorWasStillJudging() async throws {
        let starts = try await levelReadings("""
            concat name=c ! vadsegmenter level-interval-ms=10 ! fakesink
            \(alsaClip("Front_Center", rate: 48000)) ! c. \(alsaClip("Front_Left", rate: 16000)) ! c.
            """).map { seconds($0["start"]?.uint64) }
        // Both clips are 48 kHz: the second's frames are counted after resampling to 16 kHz.
        let clip = { (name: String) in try SpeechFixtures.samples(ofWAV: "/usr/share/sounds/alsa/\(name).wav").count }
        let frames = try clip("Front_Center") / 480 + clip("Front_Left") / 3 / 160
        #expect(abs(starts.count - frames) <= 1, "\(starts.count) readings for \(frames) frames")
        #expect(zip(starts, starts.dropFirst()).allSatisfy { $1 > $0 }, "one timeline across the change")
    }

    /// In always (and ptt) mode the stream or the button cuts, not the
    /// detector, so no frame waits for its lookahead: each level reading is
    /// posted as its frame arrives, with the detector's latest output (the
    /// one vad mode gives `SpeechClassifier.lookahead` frames later), and a cut's end-of-speech
    /// figure adds no wait.
    @Test func alwaysModeDoesNotWaitForTheDetectorsLookahead() async throws {
        let probabilities = { (mode: String) in
            try await self.levelReadings("\(self.alsaClip("Front_Center", rate: 16000)) ! vadsegmenter mode=\(mode) level-interval-ms=10 ! fakesink")
                .map { $0["probability"]?.double ?? -1 }
        }
        let waited = try await probabilities("vad"), atOnce = try await probabilities("always")
        #expect(waited.count == atOnce.count && waited.count > 100)
        let lookahead = SpeechClassifier.lookahead
        #expect(Array(atOnce.dropFirst(lookahead)) == Array(waited.dropLast(lookahead)),
                "always mode's readings are vad mode's, \(lookahead * 10) ms sooner")
        #expect(waited.contains { $0 > 0.5 }, "the clip is speech")

        let (segments, reports) = try await segmentsWithLatency(
            "\(alsaClip("Front_Center", rate: 16000)) ! vadsegmenter mode=always max-segment-ms=1000 ! fakesink")
        let latencies = reports.map { $0.figures["eos-detection-ms"] ?? -1 }
        #expect(segments.map(\.reason) == ["max-duration", "eos"])
        for (reported, segment) in zip(latencies, segments) {
            #expect(abs(reported - (seconds(segment.end) - seconds(segment.speechEnd)) * 1000) < 0.5, "reported \(reported) ms for \(segment)")
        }
    }

    @Test func noLevelMessagesByDefault() async throws {
        let pipeline = try Pipeline(launch:
            "audiotestsrc num-buffers=50 ! audio/x-raw,format=S16LE,channels=1,rate=16000 ! vadsegmenter ! fakesink")
        var count = 0
        try await pipeline.run { event in
            if case .elementMessage(_, let s) = event, s.name == "parley/vad-level" { count += 1 }
        }
        #expect(count == 0)
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

    /// Plays a live white-noise source in 10 ms buffers (16 kHz) into
    /// vadsegmenter mode=ptt, each buffer reaching it `lag` s after it was
    /// made when `lag` is above 0 (a queue holding that much, as a
    /// microphone's buffering or a loaded machine does); presses the button
    /// after `before` s and releases it `held` s later. Returns the segments
    /// and the pipeline's running time just before and just after each
    /// change was made: the element stamps the change in between, however
    /// late the test's thread or the audio runs.
    private func pushToTalk(lag: Double, before: Double, held: Double) async throws
        -> (segments: [SegmentEvent], press: ClosedRange<Double>, release: ClosedRange<Double>) {
        let delay = lag > 0 ? "! queue max-size-buffers=0 max-size-bytes=0 max-size-time=0 min-threshold-time=\(UInt64(lag * 1e9))" : ""
        let pipeline = try Pipeline(launch: """
            audiotestsrc is-live=true wave=white-noise volume=0.2 samplesperbuffer=160
            ! audio/x-raw,format=S16LE,channels=1,rate=16000 \(delay) ! vadsegmenter name=vad mode=ptt ! fakesink
            """)
        try pipeline.play()
        // The button is pressed and released from a thread of its own: under
        // the whole suite, Swift's pool can be held by other tests for longer
        // than max-segment-ms (a Task.sleep of 0.6 s once returned after 30 s).
        let (press, release) = try await OffPool.run { () throws(PipelineError) -> (ClosedRange<Double>, ClosedRange<Double>) in
            func now() -> Double { pipeline.runningTime.map { Double($0) / 1e9 } ?? -1 }
            func set(_ down: Bool) throws(PipelineError) -> ClosedRange<Double> {
                let before = now()
                try pipeline.set("ptt-active", of: "vad", to: down ? "true" : "false")
                return before...now()
            }
            usleep(UInt32(before * 1e6))
            let press = try set(true)
            usleep(UInt32(held * 1e6))
            return (press, try set(false))
        }
        // The segment closes once the audio after the release reaches the
        // element: wait for that however loaded the machine is (a fixed
        // wait let EOS close it first under the whole suite), then end.
        let fallback = Task {
            try? await Task.sleep(nanoseconds: UInt64((lag + 120) * 1e9))
            pipeline.sendEOS()
        }
        var segments: [SegmentEvent] = []
        for await event in pipeline.events {
            if case .segment(let segment) = event, segment.end != nil {
                segments.append(segment)
                pipeline.sendEOS()
            }
            if case .eos = event { break }
        }
        fallback.cancel()
        await onThread { pipeline.stop() }
        return (segments, press, release)
    }

    @Test func pushToTalkFollowsThePropertyWhilePlaying() async throws {
        let run = try await pushToTalk(lag: 0, before: 0.3, held: 0.6)
        #expect(run.segments.count == 1)
        #expect(run.segments.first?.reason == "ptt-release")
        // The first 10 ms frame at or after each change (a live test source
        // makes each buffer at its start: one may already be in when a change comes).
        let start = seconds(run.segments.first?.start), end = seconds(run.segments.first?.end)
        #expect(run.press.lowerBound > 0 && start >= run.press.lowerBound && start <= run.press.upperBound + 0.02,
                "pressed within \(run.press) s of running time: \(start)")
        #expect(end >= run.release.lowerBound && end <= run.release.upperBound + 0.02, "released within \(run.release): \(end)")
    }

    @Test func pushToTalkCutsWhereTheButtonWasNotWhereTheLateAudioIs() async throws {
        // Each buffer reaches the element a second after it was captured.
        // Applied to the next buffer, the press would take in the second of
        // audio before it and the release cut off the last second before it.
        let run = try await pushToTalk(lag: 1, before: 0.45, held: 1.1)
        #expect(run.segments.count == 1)
        let start = seconds(run.segments.first?.start), end = seconds(run.segments.first?.end)
        #expect(start >= run.press.lowerBound && start <= run.press.upperBound + 0.02, "pressed within \(run.press): \(start)")
        #expect(end >= run.release.lowerBound && end <= run.release.upperBound + 0.02, "released within \(run.release): \(end)")
    }

    @Test func switchingModeEndsTheSegmentWhereTheSwitchWasMadeNotWhereTheLateAudioIs() async throws {
        // A reading played in real time, reaching vadsegmenter a second late
        // (a queue holding that much), switched to push-to-talk (button up)
        // two seconds in, in the middle of a sentence. The reading is the
        // three clips three times with 0.2 s between them (one segment of
        // about 48 s at a 1.5 s silence), so the switch lands in speech however late a loaded machine
        // makes it; it is made from a thread of its own, which no test
        // blocking Swift's pool can hold up.
        let clips = SpeechFixtures.clips + SpeechFixtures.clips + SpeechFixtures.clips
        let reading = try SpeechFixtures.recording(of: clips, gap: 0.2, named: "reading", in: scratch)
        let pipeline = try Pipeline(launch: """
            filesrc location=\(reading.path) ! wavparse ! identity sync=true
            ! queue max-size-buffers=0 max-size-bytes=0 max-size-time=0 min-threshold-time=1000000000
            ! vadsegmenter name=vad silence-duration-ms=1500 max-segment-ms=300000 ! fakesink async=false
            """)
        try pipeline.play()
        let switched = try await OffPool.run { () throws(PipelineError) -> ClosedRange<Double> in
            func now() -> Double { pipeline.runningTime.map { Double($0) / 1e9 } ?? 0 }
            for _ in 0..<24_000 where now() < 2.0 { usleep(5_000) }
            let before = now()
            try pipeline.set("mode", of: "vad", to: "ptt")
            let switched = before...now()
            usleep(1_300_000)
            pipeline.sendEOS()
            return switched
        }
        let found = await closedSegments(of: pipeline)
        #expect(found.map(\.reason) == ["mode-change"], "\(found)")
        // The first 10 ms frame at or after the switch (a buffer of the
        // file may already be in when the switch comes).
        let end = seconds(found.first?.end)
        #expect(switched.upperBound < 45 && end >= switched.lowerBound && end <= switched.upperBound + 0.02,
                "switched within \(switched) s of running time: \(end)")
    }

    @Test func segmentsArriveAsTypedEventsWithLatency() async throws {
        let recording = try SpeechFixtures.threeUtterances(in: scratch)
        let (segments, latencies) = try await segmentsWithLatency("filesrc location=\(recording.path) ! wavparse ! vadsegmenter ! fakesink")
        #expect(latencies.count == 3 && segments.count == 3)
        #expect(latencies.allSatisfy { $0.stage == "vad" })
        let silence = zip(latencies, segments).map { report, segment in
            (reported: report.figures["eos-detection-ms"] ?? 0, heard: (seconds(segment.end) - seconds(segment.speechEnd)) * 1000)
        }
        // Segments closed by silence were decided at most silence-duration-ms
        // (500) after the speech ended (sooner when the detector doubted
        // before its last speech frame: those frames counted in part): their
        // audio ends the detector's lookahead sooner, and the lookahead,
        // already heard, completes the silence. The last one is closed by
        // EOS, when the frames still waiting are decided at once.
        let lookaheadMs = Double(VADSegmenterElement.lookaheadMs)
        #expect(silence.prefix(2).allSatisfy { abs($0.reported - $0.heard - lookaheadMs) < 0.5 && $0.reported > 200 && $0.reported < 500.5 },
                "\(silence)")
        #expect(segments.last?.reason == "eos")
        #expect(silence.last.map { abs($0.reported - $0.heard) < 0.5 } == true, "\(silence)")
    }
}
