import Foundation
import Parley
import ParleyCore
import Testing

/// `parley serve` as a real server on loopback, and cloudstt talking to it.
@Suite(.serialized) struct ServeTests {
    /// A running `parley serve`, stopped when the test ends.
    final class Server: @unchecked Sendable {
        let process = Process()
        var url = ""

        init(_ arguments: [String] = []) async throws {
            process.executableURL = URL(fileURLWithPath: TestSupport.parleyExecutable)
            process.arguments = ["serve", "--port", "0"] + arguments
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            try process.run()
            url = await withCheckedContinuation { continuation in
                Thread {
                    var seen = Data()
                    while true {
                        let chunk = out.fileHandleForReading.availableData
                        if chunk.isEmpty { continuation.resume(returning: ""); return }
                        seen.append(chunk)
                        let text = String(decoding: seen, as: UTF8.self)
                        if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("listening on ") }) {
                            continuation.resume(returning: String(line.dropFirst("listening on ".count)))
                            return
                        }
                    }
                }.start()
            }
        }

        func stop() {
            process.terminate()
            process.waitUntilExit()
        }
    }

    let scratch = TestSupport.temporaryFolder()

    func transcripts(_ stt: String) async throws -> [TextResult] {
        let recording = try SpeechFixtures.threeUtterances(in: scratch)
        let pipeline = try Pipeline(launch: "filesrc location=\(recording.path) ! wavparse ! vadsegmenter ! \(stt) ! fakesink")
        var results: [TextResult] = []
        try await pipeline.run { if case .transcript(let result) = $0 { results.append(result) } }
        return results
    }

    @Test func transcriptsThroughHTTPEqualTheInProcessEngine() async throws {
        let server = try await Server()
        defer { server.stop() }
        #expect(server.url.hasPrefix("http://127.0.0.1:"))
        let overHTTP = try await transcripts("cloudstt provider=compatible base-url=\(server.url)/v1 response-format=verbose_json")
        let inProcess = try await transcripts("cloudstt provider=local")
        #expect(overHTTP.count == 3)
        #expect(overHTTP.map(\.text) == inProcess.map(\.text))
        #expect(overHTTP.allSatisfy { $0.status == .final && $0.language == "en" })
    }

    @Test func flacUploadsGiveTheSameTranscriptsInHalfTheBytes() async throws {
        let server = try await Server()
        defer { server.stop() }
        let wav = try await transcripts("cloudstt provider=compatible base-url=\(server.url)/v1")
        let flac = try await transcripts("cloudstt provider=compatible base-url=\(server.url)/v1 upload-format=flac")
        #expect(flac.map(\.text) == wav.map(\.text))
        #expect(flac.count == 3)
    }

    @Test func answersInEveryFormatAndWithOpenAIsErrorEnvelope() async throws {
        let server = try await Server()
        defer { server.stop() }
        let client = HTTPClient()
        let models = try await client.send(HTTPRequest(url: server.url + "/v1/models"))
        #expect(String(decoding: models.body, as: UTF8.self).contains("\"whisper-1\""))
        let wav = try Data(contentsOf: URL(fileURLWithPath: SpeechFixtures.clips[0]))
        for (format, expected) in [("text", "young man\n"), ("srt", "00:00:00,000 --> 00:00:02,990"), ("vtt", "WEBVTT")] {
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
        let server = try await Server(["--api-key", "right-key-123456"])
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
