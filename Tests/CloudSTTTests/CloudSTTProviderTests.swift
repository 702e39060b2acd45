import Foundation
import GstKit
import Parley
import ParleyCore
import ParleyTestSupport
import Testing

/// cloudstt speaking /v1/audio/transcriptions over HTTP to a server on
/// loopback that answers in the real wire format, with the faults real
/// providers produce: 429, 5xx, 401, slow answers.
@Suite struct CloudSTTProviderTests {
    let scratch = TestSupport.temporaryFolder()

    func run(_ server: ScriptedHTTPServer, options: String = "", key: String? = nil) async throws
        -> (results: [TextResult], events: [PipelineEvent], error: PipelineError?) {
        let recording = try SpeechFixtures.threeUtterances(in: scratch)
        let keyOption = key.map { variable -> String in
            ProcessEnvironment.set("PARLEY_TEST_STT_KEY", variable)
            return "api-key-env=PARLEY_TEST_STT_KEY"
        } ?? ""
        let pipeline = try Pipeline(launch: """
            filesrc location=\(recording.path) ! wavparse ! vadsegmenter
            ! cloudstt provider=compatible base-url=\(server.url)/v1 \(keyOption) \(options) ! fakesink
            """)
        var events: [PipelineEvent] = []
        var failure: PipelineError?
        do {
            try await pipeline.run { events.append($0) }
        } catch {
            failure = error
        }
        let results = events.compactMap { if case .transcript(let result) = $0 { result } else { nil } }
        return (results, events, failure)
    }

    func reply(_ text: String, delayMs: Int = 0) -> ScriptedHTTPServer.Reply {
        .respond(status: 200, headers: ["Content-Type": "application/json"], body: #"{"text":"\#(text)"}"#, delayMs: delayMs)
    }

    @Test func sendsTheWireFormatAndKeepsSegmentOrder() async throws {
        let server = try ScriptedHTTPServer([reply("one"), reply("two"), reply("three")])
        defer { server.stop() }
        let (results, _, error) = try await run(server, options: "language=en model=whisper-large-v3 prompt=Austen")
        #expect(error == nil)
        #expect(results.map(\.text) == ["one", "two", "three"])
        #expect(results.map(\.segmentID) == [0, 1, 2])
        let request = try #require(server.requests.first)
        #expect(request.method == "POST" && request.path == "/v1/audio/transcriptions")
        #expect(request.headers["content-type"]?.hasPrefix("multipart/form-data; boundary=") == true)
        let body = String(decoding: request.body, as: UTF8.self)
        for field in ["name=\"file\"; filename=\"segment.wav\"", "name=\"model\"\r\n\r\nwhisper-large-v3",
                      "name=\"language\"\r\n\r\nen", "name=\"prompt\"\r\n\r\nAusten", "name=\"response_format\"\r\n\r\njson"] {
            #expect(body.contains(field), "\(field)")
        }
    }

    @Test func aBCP47LanguageIsSentAsItsSubtagAndKeptOnTheResults() async throws {
        let server = try ScriptedHTTPServer([reply("um"), reply("dois"), reply("três")])
        defer { server.stop() }
        let (results, _, error) = try await run(server, options: "language=pt-BR")
        #expect(error == nil)
        let body = String(decoding: try #require(server.requests.first).body, as: UTF8.self)
        #expect(body.contains("name=\"language\"\r\n\r\npt\r\n"), "OpenAI takes ISO-639-1: \(body.prefix(600))")
        #expect(results.map(\.language) == ["pt-BR", "pt-BR", "pt-BR"])
    }

    @Test func translateAsksForTheSpeechInEnglishWithNoLanguage() async throws {
        let server = try ScriptedHTTPServer([reply("one"), reply("two"), reply("three")])
        defer { server.stop() }
        let (results, _, error) = try await run(server, options: "task=translate language=fr")
        #expect(error == nil)
        #expect(server.requests.allSatisfy { $0.path == "/v1/audio/translations" }, "\(server.requests.map(\.path))")
        let body = String(decoding: try #require(server.requests.first).body, as: UTF8.self)
        #expect(!body.contains("name=\"language\""), "OpenAI's translations take no language: Whisper detects it")
        #expect(results.map(\.text) == ["one", "two", "three"] && results.allSatisfy { $0.language == "en" })
    }

    @Test(arguments: [("provider=local local-engine=pocketsphinx", "needs Whisper"),
                      ("provider=google language=fr api-key-env=PARLEY_TEST_GOOGLE_TRANSLATE_KEY", "google does not translate"),
                      ("provider=compatible base-url=http://127.0.0.1:9/v1 model=gpt-4o-transcribe", "gpt-4o-transcribe does not translate")])
    func translateWhereItCannotBeDoneFailsAtStart(options: String, reason: String) async throws {
        ProcessEnvironment.set("PARLEY_TEST_GOOGLE_TRANSLATE_KEY", "AIza-test")
        let pipeline = try Pipeline(launch: "audiotestsrc num-buffers=1 ! cloudstt task=translate \(options) ! fakesink")
        do {
            try await pipeline.run()
            Issue.record("must fail: \(options)")
        } catch {
            #expect("\(error)".contains(reason) && "\(error)".contains("task=translate"), "\(error)")
        }
    }

    @Test func answersThatCompleteOutOfOrderLeaveInOrder() async throws {
        // Answers complete in the reverse of their arrival order.
        let server = try ScriptedHTTPServer([reply("one", delayMs: 1200), reply("two", delayMs: 600), reply("three")])
        defer { server.stop() }
        let (results, _, _) = try await run(server, options: "max-in-flight=3")
        // The server answers by arrival, and three concurrent requests may
        // arrive in any order; whichever came first answered last. Results
        // still leave in segment order, each segment's one result.
        #expect(results.map(\.segmentID) == [0, 1, 2])
        #expect(Set(results.map(\.text)) == ["one", "two", "three"])
        #expect(server.requests.count == 3)
    }

    @Test func rateLimitAndServerErrorsAreRetried() async throws {
        let server = try ScriptedHTTPServer([
            .respond(status: 429, headers: ["Retry-After": "1"], body: #"{"error":{"message":"Rate limit reached"}}"#),
            reply("one"),
            .respond(status: 503, body: #"{"error":{"message":"overloaded"}}"#),
            reply("two"), reply("three"),
        ])
        defer { server.stop() }
        let (results, events, error) = try await run(server)
        #expect(error == nil)
        #expect(results.map(\.text) == ["one", "two", "three"])
        #expect(results.allSatisfy { $0.status == .final })
        #expect(!events.contains { if case .warning = $0 { true } else { false } })
        #expect(server.requests.count == 5)
    }

    @Test func aRejectedKeyIsFatalAndNeverPrinted() async throws {
        let key = "sk-test-DoNotPrint0123456789"
        let server = try ScriptedHTTPServer([
            .respond(status: 401, body: #"{"error":{"message":"Incorrect API key provided: \#(key)","type":"invalid_request_error","code":"invalid_api_key"}}"#),
        ])
        defer { server.stop() }
        let (results, events, error) = try await run(server, key: key)
        let failure = try #require(error)
        #expect("\(failure)".contains("PARLEY_TEST_STT_KEY was rejected by 127.0.0.1"))
        #expect(results.first?.status == .failed)
        #expect(server.requests.count == 1, "401 is not retried, and the key is not sent again")
        #expect(results.allSatisfy { $0.status == .failed })
        #expect(server.requests.first?.headers["authorization"] == "Bearer \(key)")
        let everything = events.map { "\($0)" }.joined() + "\(failure)"
        #expect(!everything.contains(key), "the key appears in no message, warning or error")
    }

    /// Google Cloud Speech-to-Text, against a server answering in its format.
    func runGoogle(_ server: ScriptedHTTPServer, key: String, options: String) async throws
        -> (results: [TextResult], events: [PipelineEvent], error: PipelineError?) {
        let recording = try SpeechFixtures.threeUtterances(in: scratch)
        ProcessEnvironment.set("PARLEY_TEST_GOOGLE_STT_KEY", key)
        let pipeline = try Pipeline(launch: """
            filesrc location=\(recording.path) ! wavparse ! vadsegmenter
            ! cloudstt provider=google base-url=\(server.url) api-key-env=PARLEY_TEST_GOOGLE_STT_KEY \(options) ! fakesink
            """)
        var events: [PipelineEvent] = []
        var failure: PipelineError?
        do { try await pipeline.run { events.append($0) } } catch { failure = error }
        return (events.compactMap { if case .transcript(let result) = $0 { result } else { nil } }, events, failure)
    }

    func googleReply(_ text: String) -> ScriptedHTTPServer.Reply {
        .respond(status: 200, headers: ["Content-Type": "application/json"],
                 body: #"{"results": [{"alternatives": [{"transcript": "\#(text)", "confidence": 0.9}]}], "totalBilledTime": "3s"}"#)
    }

    @Test func googleGetsTheSegmentsAsLinear16WithTheKeyInAHeader() async throws {
        let key = "AIza-test-DoNotPrint-0123456789"
        let server = try ScriptedHTTPServer([
            googleReply("one"),
            .respond(status: 429, headers: ["Retry-After": "1"], body: #"{"error": {"code": 429, "message": "Quota exceeded", "status": "RESOURCE_EXHAUSTED"}}"#),
            googleReply("two"),
            .respond(status: 400, body: #"{"error": {"code": 400, "message": "Invalid recognition 'config': bad sample rate.", "status": "INVALID_ARGUMENT"}}"#),
        ])
        defer { server.stop() }
        let (results, events, error) = try await runGoogle(server, key: key, options: "language=en-GB max-in-flight=1 max-retries=2")
        #expect(error == nil, "\(String(describing: error))")
        #expect(results.map(\.text) == ["one", "two", ""] && results.map(\.status) == [.final, .final, .failed])
        #expect(results.allSatisfy { $0.language == "en-GB" })
        let warnings = events.compactMap { if case .warning(_, let message, _) = $0 { message } else { nil } }
        #expect(warnings.contains { $0.contains("Invalid recognition 'config': bad sample rate.") }, "Google's own message: \(warnings)")
        #expect(server.requests.count == 4, "the 429 was retried, the 400 was not")
        let request = try #require(server.requests.first)
        #expect(request.method == "POST" && request.path == "/v1/speech:recognize", "the key never in the URL: \(request.path)")
        #expect(request.headers["x-goog-api-key"] == key && request.headers["content-type"] == "application/json")
        let body = try #require(try JSONSerialization.jsonObject(with: request.body) as? [String: Any])
        let config = try #require(body["config"] as? [String: Any])
        #expect(config["encoding"] as? String == "LINEAR16" && config["languageCode"] as? String == "en-GB")
        let rate = try #require(config["sampleRateHertz"] as? Int)
        let content = try #require((body["audio"] as? [String: Any])?["content"] as? String)
        let audio = try #require(Data(base64Encoded: content))
        let seconds = Double(audio.count / 2) / Double(rate)
        #expect(seconds > 1 && seconds < 6, "one utterance of speech: \(seconds) s")
        let everything = events.map { "\($0)" }.joined()
        #expect(!everything.contains(key), "the key appears in no message")
    }

    @Test func googleWithoutALanguageFailsAtStartNamingTheProperty() async throws {
        // A variable of its own: tests run at once, and the wire test reads its key from PARLEY_TEST_GOOGLE_STT_KEY.
        ProcessEnvironment.set("PARLEY_TEST_GOOGLE_NO_LANGUAGE_KEY", "AIza-test")
        let pipeline = try Pipeline(launch: "audiotestsrc num-buffers=1 ! cloudstt provider=google language=\"\" api-key-env=PARLEY_TEST_GOOGLE_NO_LANGUAGE_KEY ! fakesink")
        do {
            try await pipeline.run()
            Issue.record("must fail")
        } catch {
            #expect("\(error)".contains("provider google needs language"), "\(error)")
        }
    }

    @Test func aMissingKeyFailsAtStartNamingTheVariable() async throws {
        let pipeline = try Pipeline(launch: "audiotestsrc num-buffers=1 ! cloudstt provider=openai api-key-env=PARLEY_NO_SUCH_KEY ! fakesink")
        do {
            try await pipeline.run()
            Issue.record("must fail")
        } catch {
            #expect("\(error)".contains("PARLEY_NO_SUCH_KEY is not set"))
        }
    }
}

/// The request queue and the fault paths, seen from the element.
@Suite struct CloudSTTQueueTests {
    let scratch = TestSupport.temporaryFolder()

    func run(_ server: ScriptedHTTPServer, _ options: String, onEvent: @escaping (PipelineEvent) -> Void = { _ in }) async throws
        -> (results: [TextResult], warnings: [String], pipeline: Pipeline, figures: [String: Double], stats: Structure?) {
        let recording = try SpeechFixtures.threeUtterances(in: scratch)
        let pipeline = try Pipeline(launch: """
            filesrc location=\(recording.path) ! wavparse ! vadsegmenter
            ! cloudstt name=stt provider=compatible base-url=\(server.url)/v1 \(options) ! fakesink
            """)
        var results: [TextResult] = [], warnings: [String] = [], figures: [String: Double] = [:], stats: Structure?
        try await pipeline.run { event in
            onEvent(event)
            if case .transcript(let result) = event { results.append(result) }
            if case .warning(_, let message, _) = event { warnings.append(message) }
            if case .eos = event {
                for name in ["blocked-ms", "results-final", "results-skipped", "results-failed"] {
                    figures[name] = (try? pipeline.get(name, of: "stt").double) ?? -1
                }
                stats = try? pipeline.get("stats", of: "stt").structure
            }
        }
        return (results, warnings, pipeline, figures, stats)
    }

    func reply(_ text: String, delayMs: Int = 0) -> ScriptedHTTPServer.Reply {
        .respond(status: 200, body: #"{"text":"\#(text)"}"#, delayMs: delayMs)
    }

    @Test func aSlowServerHoldsTheStreamBackWithBlockAndLosesNothing() async throws {
        // The first answer comes 2 s after the second segment opened, however
        // slowly a loaded machine got there: the second arrives while the
        // first is in flight.
        let server = try ScriptedHTTPServer([reply("slow", delayMs: 2000)])
        defer { server.stop() }
        server.hold()
        let (results, warnings, _, figures, _) = try await run(server, "max-in-flight=1 max-pending=0 queue-policy=block") { event in
            if case .segment(let segment) = event, segment.segmentID == 1 { server.release() }
        }
        #expect(results.map(\.status) == [.final, .final, .final])
        #expect(warnings.isEmpty)
        #expect((figures["blocked-ms"] ?? 0) > 100, "the streaming thread waited for the slow server")
    }

    @Test func dropOldestSkipsAWaitingSegmentAndTheCountsAddUp() async throws {
        // The first answer is held until the third segment has ended (a
        // debug build's detector under the whole suite's load can take
        // seconds over the recording), then comes 500 ms later: the second
        // and third segments both arrive while the first is in flight.
        let server = try ScriptedHTTPServer([reply("slow", delayMs: 500)])
        defer { server.stop() }
        server.hold()
        let (results, warnings, _, figures, stats) = try await run(server, "max-in-flight=1 max-pending=1 queue-policy=drop-oldest") { event in
            if case .segment(let segment) = event, segment.segmentID == 2, segment.end != nil { server.release() }
        }
        #expect(results.map(\.segmentID) == [0, 1, 2], "every segment leaves, in order")
        #expect(results.map(\.status) == [.final, .skipped, .final])
        #expect(warnings.count == 1 && warnings[0].contains("drop-oldest"))
        #expect(figures["results-final"] == 2 && figures["results-skipped"] == 1)
        // The same figures as one `stats` structure, as tools read queue2's.
        #expect(stats?.name == "application/x-parley-stats")
        #expect(stats?["results-final"] == .uint64(2) && stats?["results-skipped"] == .uint64(1) && stats?["results-failed"] == .uint64(0),
                "\(String(describing: stats))")
        #expect((stats?["max-queue-depth"]?.int ?? 0) >= 2 && stats?["queue-wait-ms"]?.double != nil, "\(String(describing: stats))")
    }

    @Test func timeoutsAndResetsFailTheSegmentWithTheAttemptCount() async throws {
        let slow = try ScriptedHTTPServer([reply("late", delayMs: 3000)])
        defer { slow.stop() }
        let timedOut = try await run(slow, "timeout-ms=300 max-retries=1")
        #expect(timedOut.results.allSatisfy { $0.status == .failed })
        #expect(timedOut.warnings.count == 3)
        #expect(timedOut.warnings.allSatisfy { $0.contains("after 2 attempts") && $0.contains("timed out") })

        let resetting = try ScriptedHTTPServer([.reset])
        defer { resetting.stop() }
        let reset = try await run(resetting, "max-retries=0")
        #expect(reset.results.allSatisfy { $0.status == .failed })
        #expect(reset.warnings.allSatisfy { $0.contains("after 1 attempt") && $0.contains("network error") })
    }

    @Test func contextPromptSendsThePreviousTranscript() async throws {
        let server = try ScriptedHTTPServer([reply("first words"), reply("second words"), reply("third")])
        defer { server.stop() }
        _ = try await run(server, "context-prompt=true prompt=Austen max-in-flight=1")
        let prompts = try server.requests.map { request -> String in
            let parts = try MultipartParser.parse(request.body, contentType: request.headers["content-type"] ?? "")
            return parts.first { $0.name == "prompt" }?.text ?? ""
        }
        #expect(prompts == ["Austen", "Austen first words", "Austen second words"])
    }
}

@Suite struct CloudSTTStreamingTests {
    let scratch = TestSupport.temporaryFolder()

    @Test func gpt4oModelsStreamPartialsThenTheFinalInSegmentOrder() async throws {
        let events: [(String, Int)] = [
            ("data: {\"type\":\"transcript.text.delta\",\"delta\":\"hello\"}\n\n", 0),
            ("data: {\"type\":\"transcript.text.delta\",\"delta\":\" world\"}\n\n", 100),
            ("data: {\"type\":\"transcript.text.done\",\"text\":\"hello world\"}\n\n", 50),
        ]
        let server = try ScriptedHTTPServer([.stream(pieces: events)])
        defer { server.stop() }
        let recording = try SpeechFixtures.threeUtterances(in: scratch)
        let saved = scratch.appendingPathComponent("finals.txt").path
        let pipeline = try Pipeline(launch: """
            filesrc location=\(recording.path) ! wavparse ! vadsegmenter
            ! cloudstt provider=compatible base-url=\(server.url)/v1 model=gpt-4o-transcribe max-in-flight=3
            ! transcriptsink location=\(saved)
            """)
        var results: [TextResult] = []
        try await pipeline.run { if case .transcript(let result) = $0 { results.append(result) } }
        // Segment order holds across partials and finals; each segment's
        // partials (text so far) come before its final. A segment that is not
        // yet the oldest keeps only its latest partial, so how many partials
        // arrive depends on timing, the order never does.
        #expect(results.map(\.segmentID) == results.map(\.segmentID).sorted())
        #expect(results.filter { $0.status == .final }.map(\.segmentID) == [0, 1, 2])
        for id: UInt64 in 0..<3 {
            let mine = results.filter { $0.segmentID == id }
            #expect(mine.last?.status == .final && mine.last?.text == "hello world")
            let partials = mine.dropLast()
            #expect(!partials.isEmpty && partials.allSatisfy { $0.status == .partial && "hello world".hasPrefix($0.text) })
        }
        #expect(results.first.map { $0.segmentID == 0 && $0.text == "hello" && $0.status == .partial } == true,
                "the oldest segment's partials leave as they come")
        let form = try MultipartParser.parse(try #require(server.requests.first).body,
                                             contentType: server.requests.first?.headers["content-type"] ?? "")
        #expect(form.first { $0.name == "stream" }?.text == "true")
        #expect(try String(contentsOfFile: saved, encoding: .utf8) == "hello world\nhello world\nhello world\n",
                "a transcript file holds finals only")
    }
}

@Suite struct CloudSTTEndOfPipelineTests {
    @Test func cloudsttCanEndAPipeline() async throws {
        let pipeline = try Pipeline(launch: """
            filesrc location=\(SpeechFixtures.clips[0]) ! wavparse ! vadsegmenter ! cloudstt
            """)
        var transcripts = 0
        try await pipeline.run { if case .transcript = $0 { transcripts += 1 } }
        #expect(transcripts == 1, "ran to EOS with its src pad unlinked")
    }

    @Test func theKeyIsInNoLogNorMessageOfARun() async throws {
        let key = "sk-test-NeverInTheLogs987654321"
        let server = try ScriptedHTTPServer([
            .respond(status: 401, body: #"{"error":{"message":"Incorrect API key provided: \#(key)"}}"#),
        ])
        defer { server.stop() }
        let folder = TestSupport.temporaryFolder()
        let file = folder.appendingPathComponent("stt.pipeline").path
        try """
            #@ description Transcribe with a key
            #@ var URL=http://127.0.0.1:1/v1  Server
            filesrc location=\(SpeechFixtures.clips[0]) ! wavparse ! vadsegmenter
              ! cloudstt provider=compatible base-url=${URL} api-key-env=PARLEY_LOG_TEST_KEY ! fakesink
            """.write(toFile: file, atomically: true, encoding: .utf8)
        var environment = TestSupport.gstEnvironment(registry: folder)
        environment["PARLEY_LOG_TEST_KEY"] = key
        environment["GST_DEBUG"] = "*:5"  // every element's and GStreamer's own debug log
        let result = try await TestSupport.run(TestSupport.parleyExecutable,
                                               ["run", file, "--latency", "--set", "URL=\(server.url)/v1"],
                                               environment: environment)
        #expect(result.status == 1)
        #expect(result.stderr.contains("PARLEY_LOG_TEST_KEY was rejected by 127.0.0.1"))
        #expect(result.stderr.count > 10_000, "the debug log was on")
        #expect(!result.stderr.contains(key) && !result.stdout.contains(key))
    }
}

extension CloudSTTProviderTests {
    /// A provider that answers 50 MB of "text": the answer is cut off at
    /// 4 MB and the segment fails with a warning; the pipeline goes on.
    @Test func aHugeAnswerIsCutOffNotHeld() async throws {
        let huge = String(repeating: "a", count: 50 << 20)
        let server = try ScriptedHTTPServer([reply(huge), reply("two"), reply("three")])
        defer { server.stop() }
        let (results, events, error) = try await run(server, options: "max-retries=0")
        #expect(error == nil)
        #expect(results.count == 3)
        #expect(results.first?.status == .failed && results.first?.text.isEmpty == true)
        #expect(results.dropFirst().map(\.text) == ["two", "three"])
        let warnings = events.compactMap { if case .warning(_, let message, _) = $0 { message } else { nil } }
        #expect(warnings.contains { $0.contains("over 4194304 bytes") }, "\(warnings)")
    }
}
