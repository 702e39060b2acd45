import Foundation
import Parley
import ParleyCore
import ParleyTestSupport
import ParleyServer
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
        // The same audio both ways: no transcription started early at a likely end.
        let inProcess = try await transcripts("cloudstt provider=local local-engine=\(engine) speculate=never")
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
        let listed = String(decoding: models.body, as: UTF8.self)
        for name in ["whisper-1", "gpt-4o-mini", "tts-1"] { #expect(listed.contains("\"\(name)\""), "\(name) in \(listed)") }
        let one = try await client.send(HTTPRequest(url: server.url + "/v1/models/whisper-1"))
        #expect(one.status == 200 && String(decoding: one.body, as: UTF8.self).contains("\"id\":\"whisper-1\""))
        let none = try await client.send(HTTPRequest(url: server.url + "/v1/models/gpt-5"))
        #expect(none.status == 404 && String(decoding: none.body, as: UTF8.self).contains("model_not_found"))
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
        // What a client sent is quoted in an error on one line and 40 characters at most, however long it was.
        let sent = "whisper-1\r\nX-Injected: 1\r\n" + String(repeating: "x", count: 5000)
        for (model, filename, data, status, quoted) in [(sent, "clip.wav", wav, 404, "The model 'whisper-1 X-Injected: 1 xxx"),
                                                         ("whisper-1", "x" + sent, Data("RIFF, not audio".utf8), 415, "file 'xwhisper-1")] {
            var form = MultipartForm()
            form.add(file: "file", filename: filename, contentType: "audio/wav", data: data)
            form.add(field: "model", value: model)
            let refused = try await client.send(HTTPRequest(method: "POST", url: server.url + "/v1/audio/transcriptions",
                                                            headers: [("Content-Type", form.contentType)], body: form.data))
            #expect(refused.status == status)
            let message = Self.errorMessage(refused.body)
            #expect(message.contains(quoted) && !message.contains("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx") && !message.contains("\n"), "\(message)")
        }
        let speech = try await client.send(HTTPRequest(method: "POST", url: server.url + "/v1/audio/speech", headers: [("Content-Type", "application/json")],
                                                       body: Data(#"{"input": "hello", "voice": "\#(String(repeating: "v", count: 5000))"}"#.utf8)))
        #expect(speech.status == 400)
        #expect(Self.errorMessage(speech.body).count < 200, "\(Self.errorMessage(speech.body))")
    }

    static func errorMessage(_ body: Data) -> String {
        let json = try? JSONSerialization.jsonObject(with: body) as? [String: Any]
        return (json?["error"] as? [String: Any])?["message"] as? String ?? ""
    }

    @Test func aKeyProtectedServerRejectsAWrongKeyAndCloudsttSaysSo() async throws {
        let server = try await ServeProcess(["--api-key", "right-key-123456"])
        defer { server.stop() }
        ProcessEnvironment.set("PARLEY_TEST_SERVE_KEY", "wrong-key-654321")
        do {
            _ = try await transcripts("cloudstt provider=compatible base-url=\(server.url)/v1 api-key-env=PARLEY_TEST_SERVE_KEY")
            Issue.record("a wrong key must stop the pipeline")
        } catch {
            #expect("\(error)".contains("PARLEY_TEST_SERVE_KEY was rejected by 127.0.0.1"))
            #expect(!"\(error)".contains("wrong-key-654321"))
        }
        ProcessEnvironment.set("PARLEY_TEST_SERVE_KEY", "right-key-123456")
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
            "-d", #"{"model":"apertium","messages":[{"role":"user","content":"Good morning."}]}"#, "\(server.url)/v1/chat/completions",
        ])
        #expect(plain.stdout.contains(#""object":"chat.completion""#) && plain.stdout.contains("Buenos"), "\(plain.stdout)")
        #expect(plain.stdout.contains(#""model":"apertium-eng-spa""#), "the model that translated is named: \(plain.stdout)")
    }
}

extension ServeChatTests {
    @Test func contentPartsAndTheDeveloperRoleAreReadAsOpenAIReadsThem() async throws {
        let server = try await ServeProcess(["--engine", "pocketsphinx"])
        defer { _ = server.stop() }
        // Newer clients send content as parts and the instructions as "developer".
        let body = #"{"model":"gpt-4o-mini","messages":[{"role":"developer","content":"Translate from English to French."},{"role":"user","content":[{"type":"text","text":"Good"},{"type":"text","text":"night."}]}]}"#
        let result = try await TestSupport.run("/usr/bin/curl", [
            "-sS", "--noproxy", "*", "-H", "Content-Type: application/json", "-d", body, "\(server.url)/v1/chat/completions",
        ])
        // English to French goes through Spanish (eng-spa+es-fr), as streamtranslator's does.
        let french = try await TestSupport.run("/bin/sh", ["-c", "echo 'Good night.' | apertium -u eng-spa | apertium -u es-fr"])
        let answer = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let message = ((answer?["choices"] as? [[String: Any]])?.first?["message"] as? [String: Any])?["content"] as? String
        #expect(message == french.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "\(result.stdout)")
        // One language named is the target, from English (not French into Spanish).
        for (prompt, expected) in [("Translate the user's message into French.", french.stdout), ("Translate into English.", "Good night.")] {
            let oneName = try await TestSupport.run("/usr/bin/curl", [
                "-sS", "--noproxy", "*", "-H", "Content-Type: application/json", "-d",
                #"{"messages":[{"role":"system","content":"\#(prompt)"},{"role":"user","content":"Good night."}]}"#, "\(server.url)/v1/chat/completions",
            ])
            let object = try JSONSerialization.jsonObject(with: Data(oneName.stdout.utf8)) as? [String: Any]
            let content = ((object?["choices"] as? [[String: Any]])?.first?["message"] as? [String: Any])?["content"] as? String
            #expect(content == expected.trimmingCharacters(in: .whitespacesAndNewlines), "\(prompt): \(oneName.stdout)")
        }
        let empty = try await TestSupport.run("/usr/bin/curl", [
            "-sS", "--noproxy", "*", "-H", "Content-Type: application/json",
            "-d", #"{"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"x"}}]}]}"#, "\(server.url)/v1/chat/completions",
        ])
        #expect(empty.stdout.contains("no text to translate") && empty.stdout.contains(#""param":"messages""#), "\(empty.stdout)")
    }
}

extension ServeChatTests {
    /// One huge message neither freezes the server nor reaches the engine:
    /// it is refused as OpenAI refuses what it will not take, and the next
    /// request is answered.
    @Test func aMessageOverTheTextLimitIsRefusedAndChatGoesOn() async throws {
        let server = try await ServeProcess(["--engine", "pocketsphinx"])
        defer { _ = server.stop() }
        let scratch = TestSupport.temporaryFolder()
        let huge = String(repeating: "The young man went home. ", count: 16_000)  // 400 KB, under the 1 MiB body limit
        let body = scratch.appendingPathComponent("huge.json")
        try JSONSerialization.data(withJSONObject: ["messages": [["role": "user", "content": huge]]]).write(to: body)
        let refused = try await TestSupport.run("/usr/bin/curl", [
            "-sS", "--noproxy", "*", "-m", "60", "-w", "\n%{http_code}", "-H", "Content-Type: application/json",
            "--data-binary", "@\(body.path)", "\(server.url)/v1/chat/completions",
        ])
        #expect(refused.stdout.hasSuffix("\n400"), "\(refused.stdout.suffix(300))")
        #expect(refused.stdout.contains("at most 16384 are translated in one request") && refused.stdout.contains(#""param":"messages""#),
                "\(refused.stdout.suffix(300))")
        let next = try await TestSupport.run("/usr/bin/curl", [
            "-sS", "--noproxy", "*", "-m", "30", "-H", "Content-Type: application/json",
            "-d", #"{"messages":[{"role":"system","content":"Translate into Spanish."},{"role":"user","content":"Good morning."}]}"#, "\(server.url)/v1/chat/completions",
        ])
        #expect(next.stdout.contains("Buenos"), "\(next.stdout)")
    }
}

extension ServeChatTests {
    /// A question is answered, not translated: the server says what it is and
    /// which model answered; a translation is what a prompt or the model asks for.
    @Test func aQuestionIsAnsweredByTheAssistantAndATranslationOnlyWhenAskedFor() async throws {
        let server = try await ServeProcess(["--engine", "pocketsphinx"])
        defer { _ = server.stop() }
        func ask(_ body: String) async throws -> (model: String?, content: String?) {
            let result = try await TestSupport.run("/usr/bin/curl", [
                "-sS", "--noproxy", "*", "-H", "Content-Type: application/json", "-d", body, "\(server.url)/v1/chat/completions",
            ])
            let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
            let content = ((object?["choices"] as? [[String: Any]])?.first?["message"] as? [String: Any])?["content"] as? String
            return (object?["model"] as? String, content)
        }
        let capital = try await ask(#"{"model":"gpt-4o-mini","messages":[{"role":"system","content":"You are a helpful assistant."},{"role":"user","content":"What is the capital of France?"}]}"#)
        #expect(capital.model == "parley-assistant")
        #expect(capital.content?.hasPrefix("I heard: What is the capital of France?") == true, "\(capital)")
        #expect(capital.content?.contains("Francia") == false, "not translated: \(capital)")
        let sum = try await ask(#"{"messages":[{"role":"user","content":"What is 12 times 7?"}]}"#)
        #expect(sum.content == "12 times 7 is 84." && sum.model == "parley-assistant", "\(sum)")
        // Earlier user messages are the conversation it can repeat.
        let repeated = try await ask(#"{"messages":[{"role":"user","content":"I like green tea."},{"role":"assistant","content":"Noted."},{"role":"user","content":"What did I say?"}]}"#)
        #expect(repeated.content == "You said: I like green tea.", "\(repeated)")
        // Asked to answer in Spanish: the answer, translated by apertium, and both named.
        let spanish = try await ask(#"{"messages":[{"role":"system","content":"Answer in Spanish."},{"role":"user","content":"What is 12 times 7?"}]}"#)
        let cli = try await TestSupport.run("/usr/bin/apertium", ["-u", "eng-spa"], input: "12 times 7 is 84.")
        #expect(spanish.content == cli.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "\(spanish)")
        #expect(spanish.model == "parley-assistant+apertium-eng-spa")
        // The assistant model is listed, and asking for it answers whatever the prompt says.
        let models = try await TestSupport.run("/usr/bin/curl", ["-sS", "--noproxy", "*", "\(server.url)/v1/models/parley-assistant"])
        #expect(models.stdout.contains(#""id":"parley-assistant""#), "\(models.stdout)")
        let forced = try await ask(#"{"model":"parley-assistant","messages":[{"role":"system","content":"Translate the user's words."},{"role":"user","content":"What is 3 plus 4?"}]}"#)
        #expect(forced.content == "3 plus 4 is 7." && forced.model == "parley-assistant", "\(forced)")
    }

    @Test func whatARequestAsksIsDecidedByTheModelThenThePrompt() {
        typealias Handler = ChatRequest
        #expect(Handler.task(model: "gpt-4o-mini", instructions: "") == .answer(in: "en"))
        #expect(Handler.task(model: nil, instructions: "You are a helpful assistant.") == .answer(in: "en"))
        #expect(Handler.task(model: nil, instructions: "Reply in French.") == .answer(in: "fr"))
        #expect(Handler.task(model: nil, instructions: "Translate from Spanish to English.") == .translate(from: "es", into: "en"))
        #expect(Handler.task(model: nil, instructions: "You are an interpreter: English to German.") == .translate(from: "en", into: "de"))
        #expect(Handler.task(model: nil, instructions: "Give the translation in Italian.") == .translate(from: "en", into: "it"))
        #expect(Handler.task(model: "apertium", instructions: "") == .translate(from: "en", into: "es"))
        #expect(Handler.task(model: "parley-assistant", instructions: "Translate into French.") == .answer(in: "fr"))
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
        #expect(result.stdout.contains("answer: 12 times 7 is 84. model: parley-assistant"), "\(result.stdout)")
        let chunks = result.stdout.split(separator: "\n").first { $0.hasPrefix("chunks:") }
        #expect(chunks.map { !$0.hasPrefix("chunks: 0 ") && !$0.hasSuffix("None") } == true, "word chunks and a usage total: \(result.stdout)")
    }
}

/// `parley serve`'s `/v1/audio/speech` over espeak-ng.
@Suite(.serialized) struct ServeSpeechTests {
    func speech(_ server: ServeProcess, _ json: String, to file: URL) async throws -> (status: String, bytes: Data) {
        let result = try await TestSupport.run("/usr/bin/curl", [
            "-sS", "--noproxy", "*", "-o", file.path, "-w", "%{http_code}", "-H", "Content-Type: application/json",
            "-d", json, "\(server.url)/v1/audio/speech",
        ])
        return (result.stdout, (try? Data(contentsOf: file)) ?? Data())
    }

    func rms(_ pcm: Data) -> Double {
        let samples = pcm.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        guard !samples.isEmpty else { return 0 }
        return (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)).squareRoot()
    }

    @Test func everyOpenAIFormatCarriesTheSameSpeechAndMP3IsTheDefault() async throws {
        let server = try await ServeProcess(["--engine", "pocketsphinx"])
        defer { _ = server.stop() }
        let folder = TestSupport.temporaryFolder()
        let sentence = "Good morning, this is Parley speaking."
        let wav = try await speech(server, #"{"input":"\#(sentence)","response_format":"wav"}"#, to: folder.appendingPathComponent("s.wav"))
        let reference = try WAVDecoder.decode(wav.bytes).samples
        let expected = ["mp3": "audio/mpeg", "opus": "audio/ogg", "aac": "audio/aac", "flac": "audio/flac", "": "audio/mpeg"]
        for (format, contentType) in expected.sorted(by: { $0.key < $1.key }) {
            let field = format.isEmpty ? "" : #","response_format":"\#(format)""#
            let file = folder.appendingPathComponent("s.\(format.isEmpty ? "default" : format)")
            let result = try await TestSupport.run("/usr/bin/curl", [
                "-sS", "--noproxy", "*", "-o", file.path, "-w", "%{http_code} %{content_type}", "-H", "Content-Type: application/json",
                "-d", #"{"input":"\#(sentence)"\#(field)}"#, "\(server.url)/v1/audio/speech",
            ])
            #expect(result.stdout == "200 \(contentType)", "\(format): \(result.stdout)")
            // Decoded by GStreamer, as a player would: the same speech, as long and as loud as the WAV.
            // Off Swift's pool: the decoder blocks its thread until GStreamer is done.
            let path = file.path
            let samples = try await OffPool.run { () throws(AudioFileDecoder.Failure) in try AudioFileDecoder.decode(path: path, rate: 24_000) }
            let seconds = Double(samples.count) / 24_000, referenceSeconds = Double(reference.count) / 24_000
            #expect(abs(seconds - referenceSeconds) < 0.1, "\(format): \(seconds) s against \(referenceSeconds) s")
            let level = rms(samples.withUnsafeBytes { Data($0) }), referenceLevel = rms(reference.withUnsafeBytes { Data($0) })
            #expect(abs(level - referenceLevel) < referenceLevel * 0.2, "\(format): RMS \(level) against \(referenceLevel)")
        }
    }

    @Test func pcmAndWavCarryTheSameSpeechAt24kHzAndSpeedShortensIt() async throws {
        let server = try await ServeProcess(["--engine", "pocketsphinx"])
        defer { _ = server.stop() }
        let folder = TestSupport.temporaryFolder()
        let text = "Hola, ¿qué tal? Me llamo Parley."
        let pcm = try await speech(server, #"{"model":"tts-1","input":"\#(text)","voice":"nova","response_format":"pcm","language":"es"}"#,
                                   to: folder.appendingPathComponent("a.pcm"))
        let wav = try await speech(server, #"{"model":"tts-1","input":"\#(text)","voice":"nova","response_format":"wav","language":"es"}"#,
                                   to: folder.appendingPathComponent("a.wav"))
        #expect(pcm.status == "200" && wav.status == "200")
        let seconds = Double(pcm.bytes.count) / 2 / 24_000
        #expect(seconds > 1 && seconds < 5, "a short Spanish sentence: \(seconds) s")
        #expect(rms(pcm.bytes) > 500, "not silent: \(rms(pcm.bytes))")
        let header = wav.bytes.prefix(44)
        #expect(String(decoding: header.prefix(4), as: UTF8.self) == "RIFF")
        #expect(header[24..<28].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) } == 24_000)
        // espeak-ng's first utterance after a voice change starts a little
        // differently, and chunk sizes vary: the same speech within 3%.
        let difference = abs(Double(wav.bytes.count - 44 - pcm.bytes.count)) / Double(pcm.bytes.count)
        #expect(difference < 0.03, "the same speech, whole or streamed: \(wav.bytes.count - 44) and \(pcm.bytes.count) bytes")
        let fast = try await speech(server, #"{"input":"\#(text)","voice":"nova","response_format":"pcm","language":"es","speed":2}"#,
                                    to: folder.appendingPathComponent("b.pcm"))
        #expect(fast.bytes.count < pcm.bytes.count * 3 / 4, "speed 2 is shorter: \(fast.bytes.count) of \(pcm.bytes.count)")
    }

    @Test func whatIsNotServedIsRefusedInOpenAIsEnvelope() async throws {
        let server = try await ServeProcess(["--engine", "pocketsphinx"])
        defer { _ = server.stop() }
        let folder = TestSupport.temporaryFolder()
        for (json, parameter) in [(#"{"input":"Hi","response_format":"ogg"}"#, "response_format"),
                                  (#"{"input":"Hi","voice":"robot"}"#, "voice"),
                                  (#"{"input":"","voice":"alloy"}"#, "input"),
                                  (#"{"input":"Hi","speed":9}"#, "speed")] {
            let answer = try await speech(server, json, to: folder.appendingPathComponent("e.json"))
            #expect(answer.status == "400", "\(json)")
            let envelope = try JSONSerialization.jsonObject(with: answer.bytes) as? [String: Any]
            let error = envelope?["error"] as? [String: Any]
            #expect(error?["param"] as? String == parameter && error?["type"] as? String == "invalid_request_error", "\(json)")
        }
    }
}

extension ServeTests {
    func transcribe(_ server: ServeProcess, file: Data, filename: String = "clip.wav",
                    fields: [(String, String)] = [], path: String = "/v1/audio/transcriptions") async throws -> Answer {
        var form = MultipartForm()
        form.add(file: "file", filename: filename, contentType: "application/octet-stream", data: file)
        form.add(field: "model", value: "whisper-1")
        for (name, value) in fields { form.add(field: name, value: value) }
        return try await post(server, form.data, contentType: form.contentType, path: path)
    }

    func post(_ server: ServeProcess, _ body: Data, contentType: String,
              path: String = "/v1/audio/transcriptions", method: String = "POST") async throws -> Answer {
        let response = try await HTTPClient().send(HTTPRequest(method: method, url: server.url + path,
                                                               headers: [("Content-Type", contentType)], body: method == "GET" ? nil : body))
        let envelope = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any]
        return Answer(status: response.status, error: envelope?["error"] as? [String: Any])
    }

    /// A status and OpenAI's error object, if the answer was one.
    struct Answer: CustomStringConvertible {
        var status: Int
        var error: [String: Any]?
        var message: String { error?["message"] as? String ?? "" }
        var description: String { "\(status) \(error ?? [:])" }
    }

    /// Each hostile request of the hardening issue gets a 400 naming what was wrong,
    /// before the engine sees it; a normal request still works after them.
    @Test func hostileRequestsAreRefusedBeforeTheEngineSeesThem() async throws {
        let server = try await ServeProcess(["--engine", "pocketsphinx", "--max-audio-seconds", "60"])
        defer { server.stop() }
        let wav = try Data(contentsOf: URL(fileURLWithPath: SpeechFixtures.clips[0]))

        // A header that claims 1 Hz: hours of audio once resampled.
        var oneHertz = wav
        oneHertz.replaceSubrange(24..<28, with: [1, 0, 0, 0])
        let slow = try await transcribe(server, file: oneHertz)
        #expect(slow.status == 400 && slow.error?["param"] as? String == "file", "\(slow)")
        #expect(slow.message.contains("1 Hz"))
        // Two minutes of FLAC silence, a few kB, against a 60 s limit: refused while decoding.
        let silence = try FLACCodec.encode([Int16](repeating: 0, count: 16_000 * 120), rate: 16_000)
        #expect(silence.count < 100_000)
        let long = try await transcribe(server, file: silence, filename: "silence.flac")
        #expect(long.status == 400 && long.message.contains("longer than 60 s"), "\(long.status) \(long.error ?? [:])")

        for value in ["nan", "inf", "1e308", "-1", "warm"] {
            let answer = try await transcribe(server, file: wav, fields: [("temperature", value)])
            #expect(answer.status == 400 && answer.error?["param"] as? String == "temperature", "\(value): \(answer)")
        }
        for value in ["../../etc", "fr", String(repeating: "a", count: 80)] {
            let answer = try await transcribe(server, file: wav, fields: [("language", value)])
            #expect(answer.status == 400 && answer.error?["param"] as? String == "language", "\(value): \(answer)")
            #expect(!answer.message.contains("ValueError"))
        }

        // A format or granularity that is not one is refused, not answered as json.
        for fields in [[("response_format", "xml")], [("timestamp_granularities[]", "word")],
                       [("response_format", "verbose_json"), ("timestamp_granularities[]", "char")]] {
            let answer = try await transcribe(server, file: wav, fields: fields)
            let param = fields.last?.0.hasPrefix("timestamp") == true ? "timestamp_granularities" : "response_format"
            #expect(answer.status == 400 && answer.error?["param"] as? String == param, "\(fields): \(answer)")
        }
        // This engine neither translates nor times words: it says so, and which engine does.
        let translation = try await transcribe(server, file: wav, path: "/v1/audio/translations")
        #expect(translation.status == 400 && translation.message.contains("--engine whisper"), "\(translation)")
        let words = try await transcribe(server, file: wav, fields: [("response_format", "verbose_json"), ("timestamp_granularities[]", "word")])
        #expect(words.status == 400 && words.error?["param"] as? String == "timestamp_granularities", "\(words)")

        // Thousands of tiny parts: refused at the 65th, not parsed in quadratic time.
        var many = MultipartForm()
        for index in 0..<5_000 { many.add(field: "f\(index)", value: "x") }
        let parts = try await post(server, many.data, contentType: many.contentType)
        #expect(parts.status == 400 && parts.message.contains("more than 64 parts"), "\(parts)")

        // What is not served answers in the envelope too.
        let unknown = try await post(server, Data(), contentType: "text/plain", path: "/v1/nothing", method: "GET")
        #expect(unknown.status == 404 && unknown.message.contains("Unknown request URL: GET /v1/nothing"), "\(unknown.error ?? [:])")
        let wrongMethod = try await post(server, Data(), contentType: "text/plain", method: "GET")
        #expect((400..<500).contains(wrongMethod.status) && wrongMethod.error?["type"] as? String == "invalid_request_error", "\(wrongMethod)")

        // And a normal request, with a BCP-47 language, is still answered.
        let fine = try await transcribe(server, file: wav, fields: [("language", "en-US"), ("temperature", "0.2")])
        #expect(fine.status == 200)
    }

    /// A client that connects and sends nothing is cut off after the idle timeout.
    @Test func aSilentConnectionIsClosed() async throws {
        let server = try await ServeProcess(["--engine", "pocketsphinx", "--idle-timeout-s", "1"])
        defer { server.stop() }
        let port = try #require(UInt16(server.url.split(separator: ":").last ?? ""))
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        #expect(connected == 0)
        // Blocks until the server closes the connection (read gives 0), or 20 s pass.
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let count = await Task.detached { () -> Int in
            var byte: UInt8 = 0
            return read(socket, &byte, 1)
        }.value
        #expect(count == 0, "the server kept a connection that sent nothing")
    }

    /// A connected socket to `server`, reads bounded by `seconds`.
    func openSocket(to server: ServeProcess, seconds: Int = 20) throws -> Int32 {
        let port = try #require(UInt16(server.url.split(separator: ":").last ?? ""))
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        #expect(connected == 0)
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return socket
    }

    /// MSG_NOSIGNAL: a server that closed the connection is an EPIPE here, not a SIGPIPE that ends the tests.
    func transmit(_ text: String, on socket: Int32) {
        _ = text.utf8CString.withUnsafeBufferPointer { Glibc.send(socket, $0.baseAddress, $0.count - 1, Int32(MSG_NOSIGNAL)) }
    }

    /// What the server answers, up to 4 KB (off the pool: the read blocks).
    func answer(on socket: Int32) async -> String {
        await Task.detached { () -> String in
            var bytes = [UInt8](repeating: 0, count: 4096)
            let count = read(socket, &bytes, bytes.count)
            return count > 0 ? String(decoding: bytes[..<count], as: UTF8.self) : ""
        }.value
    }

    /// A body declared far over the limit is refused from its header, at
    /// once (not after the idle timeout); one sent a byte every half second
    /// (each resetting the idle timeout) is cut off at the request timeout.
    @Test func aHugeDeclaredBodyIsRefusedAtOnceAndASlowOneTimesOut() async throws {
        let server = try await ServeProcess(["--engine", "pocketsphinx", "--idle-timeout-s", "5", "--request-timeout-s", "2"])
        defer { server.stop() }
        let huge = try openSocket(to: server)
        defer { close(huge) }
        transmit("POST /v1/audio/transcriptions HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: 999999999999\r\n\r\n", on: huge)
        let refused = await answer(on: huge)
        #expect(refused.hasPrefix("HTTP/1.1 413"), "\(refused)")

        let slow = try openSocket(to: server)
        defer { close(slow) }
        transmit("POST /v1/audio/transcriptions HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: 1000\r\n\r\n", on: slow)
        let dripping = Task.detached {
            for _ in 0..<40 {
                try await Task.sleep(for: .milliseconds(500))
                _ = "-".utf8CString.withUnsafeBufferPointer { Glibc.send(slow, $0.baseAddress, 1, Int32(MSG_NOSIGNAL)) }
            }
        }
        defer { dripping.cancel() }
        let cutOff = await answer(on: slow)
        #expect(cutOff.hasPrefix("HTTP/1.1 408") && cutOff.contains("took longer than 2 s"), "\(cutOff)")
    }
}

extension ServeTests {
    /// A head sent a byte every half second (each resetting the idle timeout)
    /// is cut off with a 408 at the request timeout, as nginx's
    /// client_header_timeout does; a connection kept alive between requests
    /// is the idle timeout's, and a prompt request on it is answered.
    @Test func aHeadThatTricklesInIsCutOffAndKeepAliveStillWorks() async throws {
        let server = try await ServeProcess(["--engine", "pocketsphinx", "--idle-timeout-s", "30", "--request-timeout-s", "2"])
        defer { server.stop() }
        let slow = try openSocket(to: server)
        defer { close(slow) }
        transmit("GET /v1/models HTTP/1.1\r\nHost: x\r\n", on: slow)
        let dripping = Task.detached {
            for _ in 0..<40 {
                try await Task.sleep(for: .milliseconds(500))
                _ = "X-A: b\r\n".utf8CString.withUnsafeBufferPointer { Glibc.send(slow, $0.baseAddress, $0.count - 1, Int32(MSG_NOSIGNAL)) }
            }
        }
        defer { dripping.cancel() }
        let cutOff = await answer(on: slow)
        #expect(cutOff.hasPrefix("HTTP/1.1 408"), "\(cutOff)")
        #expect(await answer(on: slow).isEmpty, "closed after the 408")

        // Two requests on one connection, 3 s apart (longer than the head's 2 s): both answered.
        let kept = try openSocket(to: server)
        defer { close(kept) }
        transmit("GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n", on: kept)
        #expect(await answer(on: kept).hasPrefix("HTTP/1.1 200"))
        try await Task.sleep(for: .seconds(3))
        transmit("GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n", on: kept)
        #expect(await answer(on: kept).hasPrefix("HTTP/1.1 200"), "a kept-alive connection waits for its next request")
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
