import Foundation
import Parley
import ParleyCore
import ParleyTestSupport
import Testing

/// `parley serve` as a real server on loopback, and cloudstt talking to it.
@Suite(.serialized) struct ServeTests {
    let scratch = TestSupport.temporaryFolder()

    func transcripts(_ stt: String) async throws -> [TextResult] {
        let recording = try SpeechFixtures.threeUtterances(in: scratch)
        let pipeline = try Pipeline(launch: "filesrc location=\(recording.path) ! wavparse ! vadsegmenter ! \(stt) ! fakesink")
        var results: [TextResult] = []
        try await pipeline.run { if case .transcript(let result) = $0 { results.append(result) } }
        return results
    }

    @Test(arguments: ["whisper", "pocketsphinx"])
    func transcriptsThroughHTTPEqualTheInProcessEngine(engine: String) async throws {
        let server = try await ServeProcess(["--engine", engine])
        defer { server.stop() }
        #expect(server.url.hasPrefix("http://127.0.0.1:"))
        let overHTTP = try await transcripts("cloudstt provider=compatible base-url=\(server.url)/v1 response-format=verbose_json")
        let inProcess = try await transcripts("cloudstt provider=local local-engine=\(engine)")
        #expect(overHTTP.count == 3)
        #expect(overHTTP.map(\.text) == inProcess.map(\.text))
        #expect(overHTTP.allSatisfy { $0.status == .final && $0.language == "en" })
    }

    @Test func flacUploadsGiveTheSameTranscriptsInHalfTheBytes() async throws {
        let server = try await ServeProcess()
        defer { server.stop() }
        let wav = try await transcripts("cloudstt provider=compatible base-url=\(server.url)/v1")
        let flac = try await transcripts("cloudstt provider=compatible base-url=\(server.url)/v1 upload-format=flac")
        #expect(flac.map(\.text) == wav.map(\.text))
        #expect(flac.count == 3)
    }

    @Test func answersInEveryFormatAndWithOpenAIsErrorEnvelope() async throws {
        let server = try await ServeProcess()
        defer { server.stop() }
        let client = HTTPClient()
        let models = try await client.send(HTTPRequest(url: server.url + "/v1/models"))
        #expect(String(decoding: models.body, as: UTF8.self).contains("\"whisper-1\""))
        let wav = try Data(contentsOf: URL(fileURLWithPath: SpeechFixtures.clips[0]))
        for (format, expected) in [("text", "young man.\n"), ("srt", "1\n00:00:00,000 --> 00:00:0"), ("vtt", "WEBVTT\n\n00:00:00.000 --> "),
                                   ("verbose_json", "\"language\":\"english\""), ("json", "{\"text\":\"He was not an ill-disposed young man.\"}")] {
            var form = MultipartForm()
            form.add(file: "file", filename: "clip.wav", contentType: "audio/wav", data: wav)
            form.add(field: "model", value: "whisper-1")
            form.add(field: "response_format", value: format)
            let response = try await client.send(HTTPRequest(
                method: "POST", url: server.url + "/v1/audio/transcriptions",
                headers: [("Content-Type", form.contentType)], body: form.data))
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self).contains(expected), "\(format)")
        }
        var missing = MultipartForm()
        missing.add(field: "model", value: "whisper-1")
        let bad = try await client.send(HTTPRequest(method: "POST", url: server.url + "/v1/audio/transcriptions",
                                                    headers: [("Content-Type", missing.contentType)], body: missing.data))
        #expect(bad.status == 400)
        #expect(ProviderError.from(status: bad.status, headers: bad.headers, body: bad.body)
                == .badRequest(status: 400, message: "Missing required parameter: 'file'."))
    }

    @Test func aKeyProtectedServerRejectsAWrongKeyAndCloudsttSaysSo() async throws {
        let server = try await ServeProcess(["--api-key", "right-key-123456"])
        defer { server.stop() }
        setenv("PARLEY_TEST_SERVE_KEY", "wrong-key-654321", 1)
        do {
            _ = try await transcripts("cloudstt provider=compatible base-url=\(server.url)/v1 api-key-env=PARLEY_TEST_SERVE_KEY")
            Issue.record("a wrong key must stop the pipeline")
        } catch {
            #expect("\(error)".contains("PARLEY_TEST_SERVE_KEY was rejected by 127.0.0.1"))
            #expect(!"\(error)".contains("wrong-key-654321"))
        }
        setenv("PARLEY_TEST_SERVE_KEY", "right-key-123456", 1)
        let results = try await transcripts("cloudstt provider=compatible base-url=\(server.url)/v1 api-key-env=PARLEY_TEST_SERVE_KEY")
        #expect(results.count == 3)
    }

    @Test func bindingBeyondLoopbackNeedsAKey() async throws {
        let result = try await TestSupport.run(TestSupport.parleyExecutable, ["serve", "--host", "0.0.0.0", "--port", "0"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--api-key"))
    }
}

/// `parley serve`'s chat completions over apertium, through curl and through
/// streamtranslator.
@Suite(.serialized) struct ServeChatTests {
    @Test func curlGetsTheChunkFormatAndTheTranslation() async throws {
        let server = try await ServeProcess(["--engine", "pocketsphinx"])
        defer { _ = server.stop() }
        let body = #"{"model":"gpt-4o-mini","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"system","content":"Translate from English to Spanish."},{"role":"user","content":"The young man went home."}]}"#
        let result = try await TestSupport.run("/usr/bin/curl", [
            "-sS", "--noproxy", "*", "-N", "-H", "Content-Type: application/json", "-d", body, "\(server.url)/v1/chat/completions",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let events = result.stdout.components(separatedBy: "\n\n").filter { !$0.isEmpty }
        #expect(events.first?.contains(#""role":"assistant""#) == true, "a role chunk first")
        #expect(events.last == "data: [DONE]")
        #expect(events.dropLast().last?.contains(#""usage""#) == true, "the usage chunk before [DONE]")
        let stream = ChatStreamReader(result.stdout)
        let cli = try await TestSupport.run("/usr/bin/apertium", ["-u", "eng-spa"], input: "The young man went home.")
        #expect(stream.text == cli.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(stream.contentChunks >= 4, "word-sized chunks")

        let plain = try await TestSupport.run("/usr/bin/curl", [
            "-sS", "--noproxy", "*", "-H", "Content-Type: application/json",
            "-d", #"{"messages":[{"role":"user","content":"Good morning."}]}"#, "\(server.url)/v1/chat/completions",
        ])
        #expect(plain.stdout.contains(#""object":"chat.completion""#) && plain.stdout.contains("Buenos"), "\(plain.stdout)")
    }
}

/// The official `openai` Python package against `parley serve` (its venv is made by scripts/setup).
@Suite struct OpenAIClientTests {
    @Test func theOpenAIPythonClientStreamsAndGetsWholeAnswers() async throws {
        let python = TestSupport.packageRoot.appendingPathComponent(".build/openai-venv/bin/python").path
        try #require(FileManager.default.isExecutableFile(atPath: python), "run scripts/setup: it makes .build/openai-venv")
        let server = try await ServeProcess(["--engine", "pocketsphinx"])
        defer { _ = server.stop() }
        let script = TestSupport.packageRoot.appendingPathComponent("Examples/python/openai_chat.py").path
        let result = try await TestSupport.run(python, [script, "\(server.url)/v1"])
        #expect(result.status == 0, "\(result.stderr)")
        let cli = try await TestSupport.run("/usr/bin/apertium", ["-u", "eng-spa"], input: "The young man went home.")
        #expect(result.stdout.contains("stream: \(cli.stdout.trimmingCharacters(in: .whitespacesAndNewlines))"), "\(result.stdout)")
        #expect(result.stdout.contains("whole: Buenos días."), "\(result.stdout)")
        let chunks = result.stdout.split(separator: "\n").first { $0.hasPrefix("chunks:") }
        #expect(chunks.map { !$0.hasPrefix("chunks: 0 ") && !$0.hasSuffix("None") } == true, "word chunks and a usage total: \(result.stdout)")
    }
}

/// Reads the content of a chat completion event stream (for tests).
struct ChatStreamReader {
    var text = ""
    var contentChunks = 0
    init(_ stream: String) {
        for event in stream.components(separatedBy: "\n\n") where event.hasPrefix("data: {") {
            guard let json = try? JSONSerialization.jsonObject(with: Data(event.dropFirst(6).utf8)) as? [String: Any],
                  let choices = json["choices"] as? [[String: Any]], let delta = choices.first?["delta"] as? [String: Any],
                  let content = delta["content"] as? String, !content.isEmpty else { continue }
            text += content
            contentChunks += 1
        }
    }
}
