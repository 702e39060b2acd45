import Foundation
import GstKit
import Parley
import ParleyCore
import ParleyTestSupport
import PipelineTestSupport
import Testing

/// cloudtts against servers speaking ElevenLabs' and Google's wire formats
/// (vendors we cannot run here), and fallback chains whose providers fail
/// the ways real ones do: a closed port, a rejected key, a run of 5xx.
@Suite struct CloudTTSProviderTests {
    init() { Parley.register(testElements) }

    struct Run {
        var spans: [AudioRecordingSink.Span]
        var samples: [Int16]
        var warnings: [String]
        var messages: [Structure]
        var fallbacks: [FallbackEvent]
        var error: PipelineError?

        func messages(_ name: String) -> [Structure] { messages.filter { $0.name == name } }
        /// Who served each segment, in the order the parley/tts messages came.
        var servedBy: [(segment: UInt64, status: String, provider: String)] {
            messages("parley/tts").map { ($0["segment-id"]?.uint64 ?? 99, $0["status"]?.string ?? "", $0["provider"]?.string ?? "") }
        }
    }

    func speak(_ texts: [String], _ options: String, sink: String, source: String = "",
               onMessage: @escaping (Structure) -> Void = { _ in }) async throws -> Run {
        let pipeline = try Pipeline(launch: """
            parleytestsrc texts="\(texts.joined(separator: "|"))" spacing-ms=100 \(source) ! cloudtts \(options) ! parleytestaudiosink name=\(sink)
            """)
        var warnings: [String] = [], messages: [Structure] = [], fallbacks: [FallbackEvent] = [], failure: PipelineError?
        do {
            try await pipeline.run { event in
                if case .warning(_, let message, _) = event { warnings.append(message) }
                if case .elementMessage(_, let structure) = event { messages.append(structure); onMessage(structure) }
                if case .fallback(let move) = event { fallbacks.append(move) }
            }
        } catch {
            failure = error
        }
        let recorded = AudioRecordingSink.take(sink)
        return Run(spans: recorded.spans, samples: recorded.samples, warnings: warnings, messages: messages, fallbacks: fallbacks, error: failure)
    }

    static func pcm(_ samples: [Int16]) -> Data {
        Data(samples.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] })
    }

    @Test func elevenLabsIsAskedForStreamedPCMAtTheChosenRate() async throws {
        ProcessEnvironment.set("PARLEY_TEST_ELEVENLABS_KEY", "xi-test-key-0123456789")
        let speech = (0..<3200).map { Int16(truncatingIfNeeded: $0 &* 37) }
        let server = try ScriptedHTTPServer([.bytes(pieces: [(Self.pcm(Array(speech[..<1600])), 0), (Self.pcm(Array(speech[1600...])), 100)],
                                                    contentType: "audio/pcm")])
        defer { server.stop() }
        let run = try await speak(["Hola, ¿qué tal?"], """
            provider=elevenlabs base-url=\(server.url) voice=VoiceId42 sample-rate=16000 api-key-env=PARLEY_TEST_ELEVENLABS_KEY
            """, sink: "ttseleven")
        #expect(run.error == nil, "\(String(describing: run.error))")
        let request = try #require(server.requests.first)
        #expect(request.method == "POST")
        #expect(request.path == "/v1/text-to-speech/VoiceId42/stream?output_format=pcm_16000")
        #expect(request.headers["xi-api-key"] == "xi-test-key-0123456789")
        #expect(request.headers["authorization"] == nil)
        let body = try #require(try JSONSerialization.jsonObject(with: request.body) as? [String: Any])
        #expect(body["text"] as? String == "Hola, ¿qué tal?")
        #expect(body["model_id"] as? String == "eleven_flash_v2_5")
        #expect(run.samples == speech, "the bytes sent are the samples played")
        #expect(run.spans.count >= 2, "pushed as the pieces arrived")
        #expect(run.spans.allSatisfy { $0.rate == 16000 }, "caps at the asked rate")
        #expect(run.servedBy.map(\.status) == ["final"])
        #expect(run.servedBy.first?.provider.hasPrefix("elevenlabs") == true)
    }

    @Test func googleAnswersOneBase64WAVThatIsDecodedAndCutIntoChunks() async throws {
        ProcessEnvironment.set("PARLEY_TEST_GOOGLE_KEY", "goog-test-key-0123456789")
        // Google says LINEAR16 at 24 kHz in a WAV header; we asked for 16 kHz.
        let speech = (0..<24_000).map { Int16(8000 * sin(Double($0) * 2 * .pi * 220 / 24_000)) }
        let wav = WAVEncoder.encode(speech, rate: 24_000).base64EncodedString()
        let server = try ScriptedHTTPServer([
            .respond(status: 200, headers: ["Content-Type": "application/json"], body: #"{"audioContent": "\#(wav)"}"#),
            .respond(status: 400, headers: ["Content-Type": "application/json"],
                     body: #"{"error": {"code": 400, "message": "Voice 'xx' does not exist.", "status": "INVALID_ARGUMENT"}}"#),
        ])
        defer { server.stop() }
        let run = try await speak(["Buenos días.", "Adiós."], """
            provider=google base-url=\(server.url) voice=es-ES-Neural2-A gender=female sample-rate=16000 api-key-env=PARLEY_TEST_GOOGLE_KEY max-in-flight=1
            """, sink: "ttsgoogle")
        #expect(run.error == nil, "\(String(describing: run.error))")
        let request = try #require(server.requests.first)
        #expect(request.path == "/v1/text:synthesize", "the key travels in a header, never in the URL")
        #expect(request.headers["x-goog-api-key"] == "goog-test-key-0123456789")
        let body = try #require(try JSONSerialization.jsonObject(with: request.body) as? [String: Any])
        let voice = try #require(body["voice"] as? [String: Any])
        let audio = try #require(body["audioConfig"] as? [String: Any])
        #expect((body["input"] as? [String: Any])?["text"] as? String == "Buenos días.")
        #expect(voice["languageCode"] as? String == "es-ES" && voice["name"] as? String == "es-ES-Neural2-A")
        #expect(voice["ssmlGender"] as? String == "FEMALE")
        #expect(audio["audioEncoding"] as? String == "LINEAR16" && audio["sampleRateHertz"] as? Int == 16000)
        let first = run.spans.filter { $0.segment == 0 }
        #expect(first.count == 10, "one second in 100 ms chunks: \(first.count)")
        #expect(abs(run.samples.count - 16_000) < 10, "resampled from the file's 24 kHz to the asked 16 kHz: \(run.samples.count)")
        #expect(run.spans.allSatisfy { $0.rate == 16000 })
        #expect(run.servedBy.map(\.status) == ["final", "failed"])
        #expect(run.warnings.contains { $0.contains("segment 1") && $0.contains("Voice 'xx' does not exist. (400)") }, "\(run.warnings)")
        #expect(!run.warnings.joined().contains("goog-test-key"))
    }

    @Test func aChainKeepsTalkingPastAClosedPortARejectedKeyAndARunOfFailures() async throws {
        ProcessEnvironment.set("PARLEY_TEST_REJECTED_KEY", "sk-test-rejected-0123456789")
        let closed = ScriptedHTTPServer.closedURL()
        let rejecting = try ScriptedHTTPServer([.respond(status: 401, body: #"{"error": {"message": "Incorrect API key provided", "code": "invalid_api_key"}}"#)])
        let piece = String(repeating: "A", count: 4800)
        let flaky = try ScriptedHTTPServer([.respond(status: 503, body: "busy"), .respond(status: 503, body: "busy"),
                                            .respond(status: 503, body: "busy"), .stream(pieces: [(piece, 0)])])
        defer { rejecting.stop(); flaky.stop() }
        let texts = (1...10).map { "Sentence \($0)." }
        // Segments 0-5 come at once; 6-9 only once 5 was spoken and the cooldown is over.
        let gate = "ttschain-\(UUID())"
        let run = try await speak(texts, """
            provider=compatible,compatible,compatible,local base-url=\(closed)/v1,\(rejecting.url)/v1,\(flaky.url)/v1 \
            api-key-env=,PARLEY_TEST_REJECTED_KEY max-retries=0 breaker-failures=3 breaker-cooldown-ms=500 max-in-flight=1 \
            local-engine=espeak
            """, sink: "ttschain", source: "gate=\(gate) gate-before=6") { message in
            if message.name == "parley/tts" && message["segment-id"]?.uint64 == 5 {
                Task { try? await Task.sleep(for: .milliseconds(600)); NumberSource.open(gate: gate) }
            }
        }
        #expect(run.error == nil, "\(String(describing: run.error))")
        // Every segment spoken, in order.
        #expect(run.servedBy.map(\.segment) == Array(0..<10))
        #expect(run.servedBy.allSatisfy { $0.status == "final" }, "\(run.servedBy)")
        let segments = run.spans.compactMap(\.segment)
        #expect(Set(segments) == Set(0..<10) && segments == segments.sorted())
        // The first three go to espeak-ng past all three failures.
        #expect(run.servedBy.prefix(3).allSatisfy { $0.provider == "local (espeak-ng)" })
        let firstMoves = run.fallbacks.filter { $0.segmentID == 0 }
        #expect(firstMoves.map { String($0.reason.prefix(6)) } == ["failed", "failed", "failed"])
        #expect(firstMoves[safe: 0]?.reason.contains("network error") == true)
        #expect(firstMoves[safe: 1]?.reason.contains("rest of the run") == true, "\(firstMoves.map(\.reason))")
        #expect(firstMoves[safe: 2]?.to == "local (espeak-ng)")
        // The rejected key is tried once, named by its variable, never shown.
        #expect(rejecting.requests.count == 1)
        #expect(run.warnings.contains { $0.contains("PARLEY_TEST_REJECTED_KEY") })
        #expect(!(run.warnings + run.messages.map { "\($0)" } + run.fallbacks.map(\.reason)).joined().contains("sk-test-rejected"))
        // After three failures the breaker skips the flaky server, then a probe closes it again.
        let reasons = run.fallbacks.map(\.reason)
        #expect(reasons.contains { $0.contains("circuit open after 3 consecutive failures") }, "\(reasons)")
        let flakyName = "compatible (127.0.0.1:\(flaky.port))"
        let flakyServed = run.servedBy.filter { $0.provider == flakyName }.count
        #expect(flakyServed >= 1 && run.servedBy.last?.provider == flakyName, "\(run.servedBy)")
        #expect(flaky.requests.count == 3 + flakyServed, "not asked while its circuit was open")
        // Rates follow the provider: caps change between espeak-ng's 22050 Hz and the server's 24 kHz.
        for span in run.spans {
            let provider = run.servedBy.first { $0.segment == span.segment }?.provider ?? ""
            #expect(span.rate == (provider == flakyName ? 24_000 : 22_050), "segment \(String(describing: span.segment)) from \(provider)")
        }
    }

    @Test func aChainWithNoUsableProviderSaysWhyForEach() async throws {
        ProcessEnvironment.unset("PARLEY_TEST_UNSET_KEY")
        let run = try await speak(["Hi."], "provider=openai,elevenlabs,compatible api-key-env=PARLEY_TEST_UNSET_KEY,PARLEY_TEST_UNSET_KEY",
                                  sink: "ttsnone")
        let error = try #require(run.error)
        let text = "\(error)"
        #expect(text.contains("openai: PARLEY_TEST_UNSET_KEY is not set"), "\(text)")
        #expect(text.contains("elevenlabs: PARLEY_TEST_UNSET_KEY is not set"))
        #expect(text.contains("compatible: provider=compatible needs base-url"))

        let typo = try await speak(["Hi."], "provider=elevenlab,local", sink: "ttstypo")
        #expect("\(String(describing: typo.error))".contains("did you mean elevenlabs?"))
    }
}

extension CloudTTSProviderTests {
    @Test func bytesThatAreNotUTF8AndA100KBTextFailTheirResultWithAReason() async throws {
        let folder = TestSupport.temporaryFolder()
        let binary = folder.appendingPathComponent("binary.txt"), huge = folder.appendingPathComponent("huge.txt")
        try Data([0x48, 0x69, 0xFF, 0xFE, 0x00, 0x80]).write(to: binary)
        try Data(String(repeating: "All work and no play. ", count: 4700).utf8).write(to: huge)
        for (file, expected) in [(binary, "not valid UTF-8"), (huge, "over the 4096-character limit")] {
            let pipeline = try Pipeline(launch: """
                filesrc location=\(file.path) blocksize=200000 ! text/x-raw,format=utf8 ! cloudtts ! parleytestaudiosink name=ttsbytes
                """)
            var warnings: [String] = [], statuses: [String] = []
            try await pipeline.run { event in
                if case .warning(_, let message, _) = event { warnings.append(message) }
                if case .elementMessage(_, let structure) = event, structure.name == "parley/tts" { statuses.append(structure["status"]?.string ?? "") }
            }
            #expect(statuses == ["failed"], "\(file.lastPathComponent)")
            #expect(warnings.contains { $0.contains("segment 0") && $0.contains(expected) }, "\(warnings)")
            #expect(AudioRecordingSink.take("ttsbytes").samples.isEmpty)
        }
    }
}
