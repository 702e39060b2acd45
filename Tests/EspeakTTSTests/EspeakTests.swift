import EspeakEngine
import Foundation
import Parley
import ParleyTestSupport
import PipelineTestSupport
import Testing

/// espeaktts and espeaksrc making real audio with espeak-ng.
@Suite struct EspeakTests {
    init() { Parley.register(testElements) }
    let scratch = TestSupport.temporaryFolder()

    func run(_ description: String) async throws -> [PipelineEvent] {
        let pipeline = try Pipeline(launch: description)
        var events: [PipelineEvent] = []
        try await pipeline.run { events.append($0) }
        return events
    }

    func rms(_ samples: [Int16]) -> Double {
        guard !samples.isEmpty else { return 0 }
        return (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)).squareRoot()
    }

    func textFile(_ text: String) throws -> String {
        let path = scratch.appendingPathComponent("\(UUID().uuidString).txt").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func helloWorldIsAudibleAndAsLongAsItShouldBe() async throws {
        let events = try await run(
            "filesrc location=\(try textFile("hello world")) ! text/x-raw,format=utf8 ! espeaktts voice=en-us ! parleytestaudiosink name=hello")
        let audio = AudioRecordingSink.take("hello")
        let seconds = Double(audio.samples.count) / 22050
        #expect(seconds > 0.5 && seconds < 2.5, "\(seconds) s")
        #expect(rms(audio.samples) > 500, "not silence")
        let words = events.compactMap { if case .elementMessage(_, let s) = $0, s.name == "parley/tts-word" { s["word"]?.string } else { nil } }
        #expect(words == ["hello", "world"])
        #expect(events.contains { if case .elementMessage(_, let s) = $0 { s.name == "parley/tts-sentence" } else { false } })
        let latency = events.compactMap { if case .latency(let r) = $0 { r.figures["time-to-first-audio-ms"] } else { nil } }
        #expect(latency.count == 1)
    }

    /// A NUL inside a result is a space to espeak-ng, not the end of the text.
    @Test func everyWordAfterANulIsSpoken() async throws {
        let events = try await run(
            "filesrc location=\(try textFile("hello\0world and more words")) ! text/x-raw,format=utf8 ! espeaktts voice=en-us ! parleytestaudiosink name=nul")
        _ = AudioRecordingSink.take("nul")
        let words = events.compactMap { if case .elementMessage(_, let s) = $0, s.name == "parley/tts-word" { s["word"]?.string } else { nil } }
        #expect(words == ["hello", "world", "and", "more", "words"])
    }

    @Test(arguments: ["en", "es", "fr", "de", "it", "nl", "zh", "ko", "ja", "zh-Hans", "zh-HK", "pt-BR", "en_US"])
    func eachLanguageOfTheAppsGetsAVoiceOfThatLanguage(language: String) async throws {
        let voice = try #require(EspeakEngine.shared.voice(forLanguage: language))
        // BCP-47 as the apps write it: Chinese by its spoken language, regions kept.
        let expected = ["zh": "cmn", "zh-Hans": "cmn", "zh-HK": "yue", "pt-BR": "pt-br", "en_US": "en-us"][language] ?? language
        #expect(voice.hasPrefix(expected), "\(language) → \(voice)")
        let sink = "lang\(language)"
        let events = try await run("""
            filesrc location=\(try textFile("1 2 3")) ! text/x-raw,format=utf8
            ! taginject tags="language-code=\(language)" ! espeaktts ! parleytestaudiosink name=\(sink)
            """)
        #expect(rms(AudioRecordingSink.take(sink).samples) > 300)
        #expect(!events.contains { if case .warning = $0 { true } else { false } }, "no fallback warning")
    }

    @Test func queuedResultsNeverOverlap() async throws {
        _ = try await run("""
            parleytestsrc count=3 spacing-ms=100 prefix="this is sentence number " ! espeaktts voice=en overlap=queue
            ! parleytestaudiosink name=queued
            """)
        let spans = AudioRecordingSink.take("queued").spans
        #expect(Set(spans.compactMap(\.segment)).count == 3, "three utterances")
        for (previous, next) in zip(spans, spans.dropFirst()) {
            #expect(next.pts >= previous.end, "no overlap")
        }
        // The second sentence starts right after the first, not at its own 100 ms.
        let secondStart = try #require(spans.first { $0.segment == 1 }).pts
        #expect(secondStart > 500_000_000)
    }

    @Test func interruptCutsTheSpeechInProgress() async throws {
        // The second result arrives 300 ms into the first, which plays in real time.
        _ = try await run("""
            parleytestsrc texts="this is a rather long sentence that will be interrupted|stop" spacing-ms=100 interval-ms=300
            ! espeaktts voice=en overlap=interrupt ! identity sync=true ! parleytestaudiosink name=interrupted
            """)
        let spans = AudioRecordingSink.take("interrupted").spans
        _ = try await run("""
            parleytestsrc texts="this is a rather long sentence that will be interrupted"
            ! espeaktts voice=en ! parleytestaudiosink name=whole
            """)
        let whole = AudioRecordingSink.take("whole").spans
        let firstLength = spans.filter { $0.segment == 0 }.reduce(0) { $0 + $1.duration }
        let wholeLength = whole.reduce(0) { $0 + $1.duration }
        #expect(firstLength < wholeLength / 2, "the first sentence was cut: \(firstLength) of \(wholeLength)")
        #expect(spans.contains { $0.segment == 1 }, "the new one is spoken")
        for (previous, next) in zip(spans, spans.dropFirst()) { #expect(next.pts >= previous.end) }
    }

    @Test func twoElementsSpeakInParallel() async throws {
        _ = try await run("""
            parleytestsrc count=3 prefix="number " ! tee name=split
            split. ! queue ! espeaktts voice=en ! parleytestaudiosink name=english
            split. ! queue ! espeaktts voice=es ! parleytestaudiosink name=spanish
            """)
        let english = AudioRecordingSink.take("english"), spanish = AudioRecordingSink.take("spanish")
        #expect(Set(english.spans.compactMap(\.segment)).count == 3)
        #expect(Set(spanish.spans.compactMap(\.segment)).count == 3)
        #expect(english.samples != spanish.samples)
        #expect(rms(english.samples) > 300 && rms(spanish.samples) > 300)
    }

    @Test func anUnknownVoiceFailsAtStartNamingCloseMatches() async throws {
        let pipeline = try Pipeline(launch: "espeaksrc voice=englsh ! fakesink")
        await #expect(throws: PipelineError.self) { try await pipeline.run() }
        let again = try Pipeline(launch: "espeaksrc voice=spanis ! fakesink")
        do {
            try await again.run()
        } catch {
            #expect("\(error)".contains("no voice \"spanis\""))
            #expect("\(error)".contains("close matches"))
        }
    }

    @Test func espeaksrcSpeaksItsText() async throws {
        _ = try await run("espeaksrc text=\"go forward ten meters\" ! parleytestaudiosink name=src")
        let audio = AudioRecordingSink.take("src")
        #expect(Double(audio.samples.count) / 22050 > 0.8)
        #expect(rms(audio.samples) > 500)
        #expect(audio.spans.first?.pts == 0)
    }

    // The round trip through cloudstt is CloudSTTPipelineTests.espeakSpeechRoundTripsThroughRecognition.
}
