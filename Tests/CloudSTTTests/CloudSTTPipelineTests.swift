import Foundation
import Parley
import ParleyCore
import ParleyTestSupport
import PipelineTestSupport
import Testing

/// cloudstt with the local provider (Whisper-base once prepared, as scripts/test
/// does; pocketsphinx where named) on real recorded speech.
@Suite struct CloudSTTPipelineTests {
    init() { Parley.register(testElements) }
    let scratch = TestSupport.temporaryFolder()

    func transcripts(_ description: String) async throws -> (results: [TextResult], events: [PipelineEvent]) {
        let pipeline = try Pipeline(launch: description)
        var events: [PipelineEvent] = []
        try await pipeline.run { events.append($0) }
        let results = events.compactMap { if case .transcript(let result) = $0 { result } else { nil } }
        return (results, events)
    }

    @Test(arguments: ["whisper", "pocketsphinx"])
    func eachUtteranceBecomesOneTranscriptInOrder(engine: String) async throws {
        let recording = try SpeechFixtures.threeUtterances(in: scratch)
        let (results, events) = try await transcripts("""
            filesrc location=\(recording.path) ! wavparse ! vadsegmenter ! cloudstt local-engine=\(engine) max-in-flight=2 ! fakesink
            """)
        #expect(results.map(\.segmentID) == [0, 1, 2])
        #expect(results.allSatisfy { $0.status == .final && $0.language == "en" })
        // Words both engines hear (pocketsphinx misses others).
        #expect(results[0].text.contains("young man"), "\(results[0].text)")
        #expect(results[1].text.contains("selfish"), "\(results[1].text)")
        #expect(results[2].text.contains("married"), "\(results[2].text)")
        let sttLatency = events.compactMap { if case .latency(let r) = $0, r.stage == "stt" { r.figures["ttfs-ms"] } else { nil } }
        #expect(sttLatency.count == 3, "time to final per segment, from the VAD's decision")
        #expect(events.contains { if case .warning = $0 { true } else { false } } == false)
        #expect(events.contains { if case .info(_, let message) = $0 { message.contains("provider local (\(engine == "whisper" ? "whisper-base" : "pocketsphinx"))") } else { false } },
                "cloudstt says which engine it runs")
    }

    /// The stt latency figures per segment, with what speculation did.
    func speculation(in events: [PipelineEvent]) -> [(requests: Int, used: Bool)] {
        events.compactMap { event -> (Int, Bool)? in
            guard case .latency(let report) = event, report.stage == "stt" else { return nil }
            return (report.speculativeRequests ?? 0, report.speculationUsed ?? false)
        }
    }

    /// vadsegmenter says an end is likely after likely-end-ms of silence;
    /// cloudstt transcribes then and, the speaker having stopped, the
    /// segment's final is that transcription: the same text, in order, one
    /// per segment. At 300 ms each segment's one likely end is its
    /// sentence's end: the first sentence's weak stretch ("ill-disposed |
    /// young", ~170 ms at a tenth of its speech's energy) is judged silent
    /// for up to 200 ms by a detector trained on reverberant rooms, and 300
    /// keeps a margin over it while staying under the 500 ms silence. At the
    /// default 100 that stretch starts one that is withdrawn, and whether the
    /// sentence's own then starts before the end is confirmed depends on the
    /// host's load (Speculations.start), which this test must not.
    @Test func aLikelyEndStartsTheTranscriptionAndItsResultIsTheFinal() async throws {
        let recording = try SpeechFixtures.threeUtterances(in: scratch)
        // Live, as a microphone delivers it: speculation is for a speaker's real silence.
        let pipeline = "recordingsrc location=\(recording.path) ! vadsegmenter likely-end-ms=300 ! cloudstt"
        let (early, earlyEvents) = try await transcripts(pipeline + " ! fakesink")
        let (late, lateEvents) = try await transcripts(pipeline + " speculate=never ! fakesink")
        // Read from a file it is not live: nothing to wait for, nothing speculated.
        let (_, fileEvents) = try await transcripts("filesrc location=\(recording.path) ! wavparse ! vadsegmenter ! cloudstt speculate=always ! fakesink")
        #expect(speculation(in: fileEvents).allSatisfy { $0.requests == 0 }, "a file pipeline speculates nothing")
        #expect(early.map(\.segmentID) == [0, 1, 2])
        #expect(early.allSatisfy { $0.status == .final }, "nothing speculative leaves: finals only")
        // The speculation heard 200 ms less of the closing silence, and
        // Whisper-base may hear a word differently for it ("ill-sposed" and
        // "ill-disposed" both come): the sentences' words, not to the letter.
        for (index, expected) in ["young man", "selfish", "married"].enumerated() {
            #expect(early[safe: index]?.text.lowercased().contains(expected) == true, "\(early.map(\.text))")
            #expect(late[safe: index]?.text.lowercased().contains(expected) == true, "\(late.map(\.text))")
        }
        let speculated = speculation(in: earlyEvents)
        #expect(speculated.map(\.requests) == [1, 1, 1], "one likely end per pause")
        #expect(speculated.allSatisfy { $0.used })
        #expect(speculation(in: lateEvents).allSatisfy { $0.requests == 0 }, "speculate=never")
    }

    /// A speaker who stops between sentences for longer than the likely end
    /// and shorter than the 500 ms silence (0.25-0.3 s of the reader's room,
    /// SpeechFixtures.threeSentencesReadOn): each likely end is withdrawn
    /// when the speech goes on, the segment is one, and its final holds
    /// every word, never a withdrawn speculation's (keep-speculated-ms is
    /// 0 by default: none is kept).
    @Test func speechAfterALikelyEndWithdrawsTheSpeculationAndTheFinalHearsItAll() async throws {
        let recording = try SpeechFixtures.threeSentencesReadOn(in: scratch)
        let (results, events) = try await transcripts("""
            recordingsrc location=\(recording.path) ! vadsegmenter ! cloudstt ! fakesink
            """)
        #expect(results.count == 1, "\(results.map(\.text))")
        let text = results.first?.text.lowercased() ?? ""
        #expect(text.contains("young man") && text.contains("selfish") && text.contains("married"), "\(text)")
        let speculated = speculation(in: events)
        // Withdrawn speculations were started; whether the last likely end
        // started one depends on the engine having answered the one before
        // (Speculations.start): either way the final heard every word.
        #expect((speculated.first?.requests ?? 0) >= 1, "\(speculated)")
    }

    /// The same reading with keep-speculated-ms=2000 and likely-end-ms=250:
    /// the one pause that long is the one after the first sentence (about
    /// 280 ms judged silent; the next longest, the weak stretch inside it,
    /// 200 ms), so the segment's one likely end comes with 3 s heard. Its
    /// transcription starts at once (none before it), is withdrawn when the
    /// reader goes on, runs on, and its text is kept; the final transcribes
    /// only what came after it and says every word, once. With the default
    /// 100 ms a cancelled likely end comes first and the long one waits for
    /// the engine to drop it, which a loaded machine may not do before the
    /// segment ends (SpeculationsTests covers that path).
    @Test func aLongWithdrawnSpeculationsTextIsKeptAndTheFinalHearsOnlyTheRest() async throws {
        let recording = try SpeechFixtures.threeSentencesReadOn(in: scratch)
        let session = scratch.appendingPathComponent("kept-session")
        let (results, events) = try await transcripts("""
            recordingsrc location=\(recording.path) ! vadsegmenter likely-end-ms=250 ! cloudstt keep-speculated-ms=2000
              ! session.transcript_%u sessionrecorder name=session location=\(session.path)
            """)
        #expect(results.count == 1, "\(results.map(\.text))")
        let text = results.first?.text.lowercased() ?? ""
        for words in ["young man", "selfish", "married"] {
            #expect(text.components(separatedBy: words).count == 2, "once each: \(text)")
        }
        let kept = events.compactMap { event -> Double? in
            guard case .latency(let report) = event, report.stage == "stt" else { return nil }
            return report.figures["speculation-kept-ms"]
        }
        let said = events.compactMap { event -> String? in
            switch event {
            case .latency(let report) where report.stage == "stt": "\(report.figures), speculative-requests \(report.speculativeRequests ?? 0)"
            case .warning(let source, let message, let debug): "warning \(source): \(message) \(debug ?? "")"
            case .error(let source, let message, let debug): "error \(source): \(message) \(debug ?? "")"
            default: nil
            }
        }
        #expect(kept.count == 1 && (kept.first ?? 0) >= 2000, "the final took at least the first sentence's text: \(kept); \(said)")
        // The session log says so too, from the transcript's speech meta.
        let recorded = SessionFolder(url: session).records.map(\.speculation)
        #expect(recorded.count == 1 && recorded.first??.keptMs == kept.first.map { Int($0.rounded()) }, "\(recorded)")
    }

    @Test func tooShortSegmentsAreSkippedWithAWarningAndCounted() async throws {
        let recording = try SpeechFixtures.threeUtterances(in: scratch)
        let pipeline = try Pipeline(launch: """
            filesrc location=\(recording.path) ! wavparse ! vadsegmenter ! cloudstt name=stt min-segment-ms=4000 ! fakesink
            """)
        var results: [TextResult] = []
        var warnings = 0
        var counts: [Int] = []
        try await pipeline.run { event in
            if case .transcript(let result) = event { results.append(result) }
            if case .warning = event { warnings += 1 }
            if case .eos = event {
                counts = ["results-final", "results-skipped", "results-failed"].map {
                    (try? pipeline.get($0, of: "stt").int) ?? -1
                }
            }
        }
        #expect(results.map(\.status) == [.skipped, .final, .final], "the 3.3 s first utterance is under 4 s")
        #expect(warnings == 1)
        #expect(counts == [2, 1, 0])
    }

    @Test func aLanguageThatIsNoTagFailsAtStartNotOnEverySegment() async throws {
        var failure: (any Error)?
        do {
            _ = try await transcripts("""
                filesrc location=\(SpeechFixtures.librivox)/sense_and_sensibility_01_austen_64kb-0880.wav ! wavparse
                ! vadsegmenter ! cloudstt language=english ! fakesink
                """)
        } catch {
            failure = error
        }
        let message = "\(String(describing: failure))"
        #expect(message.contains("language 'english' is not a BCP-47 language tag"), "\(message)")
    }

    @Test func withoutSpeechEventsAudioIsCutEveryMaxSegment() async throws {
        let (results, _) = try await transcripts("""
            filesrc location=\(SpeechFixtures.librivox)/sense_and_sensibility_01_austen_64kb-0870.wav ! wavparse
            ! cloudstt max-segment-ms=2000 ! fakesink
            """)
        #expect(results.count == 4, "7.1 s in 2 s pieces")
        #expect(results.map(\.segmentID) == [0, 1, 2, 3])
    }

    @Test func espeakSpeechRoundTripsThroughRecognition() async throws {
        let (results, _) = try await transcripts("espeaksrc text=\"go forward ten meters\" voice=en-us ! cloudstt ! fakesink")
        #expect(results.count == 1)
        #expect(results.first?.text.contains("forward") == true, "\(results.first?.text ?? "")")
    }
}
