import Foundation
import ParleyCore
import Testing
@testable import ParleyCore

@Suite struct RetryPolicyTests {
    @Test func goDurationsAsRateLimitHeadersWriteThem() {
        #expect(RetryPolicy.goDuration("1s") == .seconds(1))
        #expect(RetryPolicy.goDuration("6m0s") == .seconds(360))
        #expect(RetryPolicy.goDuration("1m30.5s") == .milliseconds(90_500))
        #expect(RetryPolicy.goDuration("250ms") == .milliseconds(250))
        #expect(RetryPolicy.goDuration("2h") == .seconds(7200))
        #expect(RetryPolicy.goDuration("soon") == nil)
        #expect(RetryPolicy.goDuration("") == nil)
    }

    @Test func serverDelayReadsRetryAfterThenRateLimitResets() {
        #expect(RetryPolicy.serverDelay(headers: ["retry-after": "3"]) == .seconds(3))
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let later = "Tue, 14 Nov 2023 22:13:30 GMT"  // 10 s after `now`
        #expect(RetryPolicy.serverDelay(headers: ["retry-after": later], now: now) == .seconds(10))
        #expect(RetryPolicy.serverDelay(headers: ["x-ratelimit-reset-requests": "1s", "x-ratelimit-reset-tokens": "6m0s"])
                == .seconds(360))
        #expect(RetryPolicy.serverDelay(headers: [:]) == nil)
    }

    @Test func backoffIsBoundedJitteredAndRespectsTheServer() {
        let policy = RetryPolicy(maxAttempts: 4, baseDelay: .milliseconds(100), maxDelay: .seconds(1))
        let server = ProviderError.server(status: 503, message: "busy")
        #expect(policy.delay(after: server, attempt: 1, random: { $0.upperBound }) == .milliseconds(100))
        #expect(policy.delay(after: server, attempt: 3, random: { $0.upperBound }) == .milliseconds(400))
        #expect(policy.delay(after: server, attempt: 3, random: { $0.lowerBound }) == .zero)
        #expect(policy.delay(after: server, attempt: 4) == nil, "attempts are bounded")
        #expect(policy.delay(after: .unauthorized(message: "no"), attempt: 1) == nil, "401 is never retried")
        #expect(policy.delay(after: .badRequest(status: 413, message: "too large"), attempt: 1) == nil)
        #expect(policy.delay(after: .rateLimited(retryAfter: .milliseconds(700), message: ""), attempt: 1) == .milliseconds(700))
        #expect(policy.delay(after: .rateLimited(retryAfter: .seconds(30), message: ""), attempt: 1) == .seconds(1),
                "capped at max-delay")
    }
}

@Suite struct ProviderErrorTests {
    @Test func statusesMapToTheTaxonomyWithTheProvidersMessage() {
        let envelope = Data(#"{"error":{"message":"Incorrect API key provided.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}"#.utf8)
        #expect(ProviderError.from(status: 401, headers: [:], body: envelope)
                == .unauthorized(message: "Incorrect API key provided. (invalid_api_key)"))
        #expect(ProviderError.from(status: 429, headers: ["retry-after": "2"], body: Data())
                == .rateLimited(retryAfter: .seconds(2), message: "HTTP status 429"))
        #expect(ProviderError.from(status: 502, headers: [:], body: Data("bad gateway".utf8)) == .server(status: 502, message: "bad gateway"))
        #expect(ProviderError.from(status: 413, headers: [:], body: Data()).isRetryable == false)
    }

    @Test func aProvidersMessageIsOneLineOf300CharactersAtMost() {
        // A proxy's HTML page, and an envelope whose message would forge a log line and colour a terminal.
        let page = Data(("<html>\r\n<body>\r\n" + String(repeating: "gateway ", count: 200) + "</body></html>").utf8)
        guard case .server(_, let fromPage) = ProviderError.from(status: 502, headers: [:], body: page) else {
            Issue.record("a 502 is a server error")
            return
        }
        #expect(fromPage.hasPrefix("<html> <body> gateway gateway") && fromPage.count == 300, "\(fromPage)")
        let envelope = Data(#"{"error":{"message":"bad\r\n2026-11-27 worker: all done\u001b[31m red","code":"x"}}"#.utf8)
        let message = ProviderError.from(status: 400, headers: [:], body: envelope).description
        #expect(!message.unicodeScalars.contains { SafeText.isControl($0) }, "\(message)")
        #expect(message.contains("bad 2026-11-27 worker: all done [31m red (x)"), "\(message)")
    }

    @Test func keysNeverSurviveInMessages() {
        let key = "sk-proj-AbCdEf0123456789xyz"
        let envelope = Data(#"{"error":{"message":"Incorrect API key provided: sk-proj-AbCdEf0123456789xyz."}}"#.utf8)
        let error = ProviderError.from(status: 401, headers: [:], body: envelope)
        #expect(!error.description.contains(key))
        #expect(error.description.contains("[redacted]"))
        #expect(Redaction.redact("Authorization: Bearer gsk_0123456789abcdef") == "Authorization: Bearer [redacted]")
        #expect(Redaction.redact("my key is hunter2hunter2", secrets: ["hunter2hunter2"]) == "my key is [redacted]")
        #expect(Redaction.redact("base-url http://ann:s3cret@llm.local:8080/v1") == "base-url http://[redacted]@llm.local:8080/v1")
        #expect(Session.publicVariables(["URL": "https://ann:s3cret@host/v1", "FROM": "en"]) == ["FROM": "en"],
                "a URL with credentials is left out of session.json")
        #expect(ProviderError.scrubbed(.rateLimited(retryAfter: nil, message: "slow, hunter2hunter2"), key: "hunter2hunter2")
                == .rateLimited(retryAfter: nil, message: "slow, [redacted]"))
        // Tokens with base64's + / = go whole; a short key echoed back goes too, but not inside other words.
        #expect(Redaction.redact("Authorization: Bearer Zm9v+/SECRET==, retry") == "Authorization: Bearer [redacted], retry")
        #expect(Redaction.redact("Incorrect API key provided: 'abc12'. abc123 stays", secrets: ["abc12"])
                == "Incorrect API key provided: '[redacted]'. abc123 stays")
    }

    @Test func secretsCompareInTimeThatDoesNotDependOnTheirContent() {
        #expect(ConstantTime.equal("Bearer k3y", "Bearer k3y"))
        #expect(!ConstantTime.equal("Bearer k3y", "Bearer k3z"))
        #expect(!ConstantTime.equal("Bearer k3y", "Bearer k3y-longer"))
        #expect(!ConstantTime.equal("", "x"))
        #expect(ConstantTime.equal("", ""))
    }
}

@Suite struct MultipartTests {
    @Test func aStrictParserReadsTheFieldsAndTheFile() throws {
        var form = MultipartForm()
        form.add(field: "model", value: "whisper-1")
        form.add(field: "language", value: "en")
        // Binary, but without CR or LF: Python's email parser folds line endings inside parts.
        let bytes: [UInt8] = (0..<2048).map { index -> UInt8 in
            let byte = UInt8(index % 251)
            return byte == 10 || byte == 13 ? 0 : byte
        }
        let audio = Data(bytes)
        form.add(file: "file", filename: "segment-0.wav", contentType: "audio/wav", data: audio)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("multipart-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("body").path
        try (Data("Content-Type: \(form.contentType)\r\n\r\n".utf8) + form.data).write(to: URL(fileURLWithPath: path))
        // Python's email package, with the strict HTTP policy, is an independent parser.
        let script = """
            import sys
            from email.parser import BytesParser
            from email.policy import HTTP
            message = BytesParser(policy=HTTP).parse(open(sys.argv[1], "rb"))
            assert message.is_multipart() and not message.defects, message.defects
            for part in message.iter_parts():
                assert not part.defects, part.defects
                payload = part.get_payload(decode=True)
                print(part.get_param("name", header="content-disposition"), part.get_filename(), part.get_content_type(), len(payload), sum(payload) % 65521)
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, path]
        let out = Pipe()
        process.standardOutput = out
        try ProcessEnvironment.whileSpawning { try process.run() }
        process.waitUntilExit()
        let lines = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .split(separator: "\n").map(String.init)
        #expect(process.terminationStatus == 0)
        #expect(lines == [
            "model None text/plain 9 \(Data("whisper-1".utf8).reduce(0) { $0 + Int($1) } % 65521)",
            "language None text/plain 2 \(Data("en".utf8).reduce(0) { $0 + Int($1) } % 65521)",
            "file segment-0.wav audio/wav 2048 \(audio.reduce(0) { $0 + Int($1) } % 65521)",
        ])
    }
}

@Suite struct AudioCodecTests {
    /// Real speech from pocketsphinx-testdata, through the WAV reader.
    func speech() throws -> (samples: [Int16], rate: Int) {
        let path = "/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0880.wav"
        return try WAVDecoder.decode(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    @Test func flacIsLosslessAndSmallerThanWAV() throws {
        let (samples, rate) = try speech()
        #expect(rate == 16_000 && samples.count == 47_840)
        let flac = try FLACCodec.encode(samples, rate: rate)
        let wav = WAVEncoder.encode(samples, rate: rate)
        let decoded = try FLACCodec.decode(flac)
        #expect(decoded.rate == rate)
        #expect(decoded.samples == samples, "lossless")
        #expect(Double(flac.count) < Double(wav.count) * 0.75, "\(flac.count) vs \(wav.count) bytes")
    }

    @Test func wavRoundTripsAndBadInputIsNamed() throws {
        let (samples, rate) = try speech()
        let again = try WAVDecoder.decode(WAVEncoder.encode(samples, rate: rate))
        #expect(again.samples == samples && again.rate == rate)
        #expect(throws: WAVDecoder.DecodeError.notWAV) { try WAVDecoder.decode(Data("hello".utf8)) }
        #expect(throws: FLACCodec.CodecError.self) { try FLACCodec.decode(Data("fLaC garbage".utf8)) }
    }

    @Test func multipartParsesWhatTheFormBuilds() throws {
        var form = MultipartForm()
        form.add(field: "model", value: "whisper-1")
        form.add(file: "file", filename: "a.wav", contentType: "audio/wav", data: Data([0, 13, 10, 45, 45, 255]))
        let parts = try MultipartParser.parse(form.data, contentType: form.contentType)
        #expect(parts.map(\.name) == ["model", "file"])
        #expect(parts[0].text == "whisper-1")
        #expect(parts[1].filename == "a.wav" && parts[1].contentType == "audio/wav")
        #expect(parts[1].data == Data([0, 13, 10, 45, 45, 255]), "binary with CR, LF and dashes survives")
        #expect(throws: MultipartParser.ParseError.notMultipart) { try MultipartParser.parse(Data(), contentType: "text/plain") }
    }
}

@Suite struct SSEParserTests {
    @Test func eventsSurviveArbitraryChunking() {
        let stream = Array(": keep-alive\r\ndata: {\"type\":\"transcript.text.delta\",\"delta\":\"Hé\"}\r\n\r\nevent: done\ndata: line one\ndata: line two\n\n".utf8)
        for split in 1..<stream.count {
            var parser = SSEParser()
            let events = parser.feed(stream[..<split]) + parser.feed(stream[split...])
            #expect(events == [
                SSEParser.Event(name: "message", data: "{\"type\":\"transcript.text.delta\",\"delta\":\"Hé\"}"),
                SSEParser.Event(name: "done", data: "line one\nline two"),
            ], "split at \(split)")
        }
    }

    /// 2 MB of answer in one piece (loopback delivers it so): 40,000 events,
    /// parsed in one pass. Cutting the buffer per line made this take
    /// minutes; the bound here is a stuck parser's, not a speed check.
    @Test func aLongAnswerInOnePieceIsParsedInOnePass() async throws {
        let event = "data: {\"choices\":[{\"delta\":{\"content\":\"abcdefghijklmnopqrstuvwxyz0123456789\"}}]}\n\n"
        let bytes = Array(String(repeating: event, count: 40_000).utf8)
        let parsed = Flag()
        let watchdog = Task {
            try await Task.sleep(for: .seconds(30))
            #expect(parsed.isSet, "2 MB of events still not parsed after 30 s")
        }
        var parser = SSEParser()
        let events = parser.feed(bytes)
        parsed.set()
        watchdog.cancel()
        #expect(events.count == 40_000 && events.last?.data.hasSuffix("}]}") == true)
    }
}
