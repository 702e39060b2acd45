import Foundation
import Parley
import GstKit
import ParleyCore
import ParleyTestSupport
import PipelineTestSupport
import Testing

/// streamtranslator in real pipelines: apertium from Debian locally, and a
/// server speaking the chat completions wire format for the faults.
@Suite struct StreamTranslatorPipelineTests {
    /// Each test's own disk cache, so no run sees another's translations.
    let cacheDir = TestSupport.temporaryFolder().path

    init() { Parley.register(testElements) }

    /// Runs texts (one buffer each) through the translator; returns the translations and warnings.
    func translate(_ texts: [String], options: String, latency: (@Sendable (LatencyReport) -> Void)? = nil) async throws
        -> (results: [TextResult], warnings: [String], error: PipelineError?, figures: [String: PropertyValue]) {
        let joined = texts.joined(separator: "|")
        let pipeline = try Pipeline(launch: """
            parleytestsrc texts="\(joined)" ! streamtranslator name=translator cache-dir=\(cacheDir) \(options) ! fakesink
            """)
        var results: [TextResult] = [], warnings: [String] = [], figures: [String: PropertyValue] = [:]
        var failure: PipelineError?
        do {
            try await pipeline.run { event in
                if case .translation(let result) = event { results.append(result) }
                if case .warning(_, let message, _) = event { warnings.append(message) }
                if case .latency(let report) = event, report.stage == "translate" { latency?(report) }
                if case .eos = event {
                    for name in ["results-final", "results-skipped", "results-failed", "cache-hits"] {
                        figures[name] = try? pipeline.get(name, of: "translator")
                    }
                }
            }
        } catch {
            failure = error
        }
        return (results, warnings, failure, figures)
    }

    @Test func theLocalTranslationIsWhatTheApertiumCommandSays() async throws {
        let sentences = ["The young man went home.", "He was not an ill-disposed young man.", "Where is the station?"]
        let (results, warnings, error, _) = try await translate(sentences, options: "source-language=en target-language=es")
        #expect(error == nil && warnings.isEmpty, "\(warnings)")
        #expect(results.map(\.segmentID) == [0, 1, 2])
        #expect(results.allSatisfy { $0.language == "es" && $0.status == .final })
        for (sentence, result) in zip(sentences, results) {
            let cli = try await TestSupport.run("/usr/bin/apertium", ["-u", "eng-spa"], input: sentence)
            #expect(result.text == cli.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "\(sentence)")
        }
    }

    @Test func withoutAPairTheTextGoesThroughSpanish() async throws {
        // Debian has no English-Italian or English-French pair; scripts/setup installs spa-ita and fr-es.
        let sentences = ["He was not an ill-disposed young man.", "Where is the station?"]
        for (target, second) in [("it", "spa-ita"), ("fr", "es-fr")] {
            let (results, warnings, error, _) = try await translate(sentences, options: "source-language=en target-language=\(target)")
            #expect(error == nil && warnings.isEmpty, "\(target): \(String(describing: error)) \(warnings)")
            #expect(results.map(\.segmentID) == [0, 1] && results.allSatisfy { $0.language == target && $0.status == .final })
            #expect(results.allSatisfy { $0.provider == "local (apertium eng-spa+\(second))" }, "\(results.map(\.provider))")
            for (sentence, result) in zip(sentences, results) {
                let spanish = try await TestSupport.run("/usr/bin/apertium", ["-u", "eng-spa"], input: sentence)
                let cli = try await TestSupport.run("/usr/bin/apertium", ["-u", second], input: spanish.stdout)
                #expect(result.text == cli.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "\(target): \(sentence)")
            }
        }
    }

    @Test func withSourceLanguageAutoEachResultIsTranslatedFromItsOwnLanguage() async throws {
        let lines = TestSupport.temporaryFolder().appendingPathComponent("spanish.txt")
        try "¿Dónde está la estación?\n".write(to: lines, atomically: true, encoding: .utf8)
        let pipeline = try Pipeline(launch: """
            filesrc location=\(lines.path) ! text/x-raw,format=utf8 ! linesplitter language=es
            ! streamtranslator source-language=auto target-language=en cache=false ! fakesink
            """)
        var infos: [String] = [], results: [TextResult] = []
        try await pipeline.run { event in
            if case .info(_, let message) = event { infos.append(message) }
            if case .translation(let result) = event { results.append(result) }
        }
        let cli = try await TestSupport.run("/usr/bin/apertium", ["-u", "spa-eng"], input: "¿Dónde está la estación?")
        #expect(results.map(\.text) == [cli.stdout.trimmingCharacters(in: .whitespacesAndNewlines)], "\(results)")
        #expect(results.first?.provider == "local (apertium spa-eng)")
        // Said at start as it is: each result's language, not "en to en" (the pair for results that carry none).
        #expect(infos.contains("provider local, each result's language (en where it has none) to en"), "\(infos)")
    }

    /// A sentence cut by a pause (two results) is translated whole with
    /// max-hold-ms: one translation, the second segment's, standing for both
    /// and saying so; a whole sentence goes on alone. Without it, two pieces.
    @Test func sentenceAssemblyTranslatesACutSentenceWhole() async throws {
        let texts = ["Please press one to mute or unmute yourself,", "two to lock or unlock the conference.", "Goodbye."]
        let (joined, warnings, error, figures) = try await translate(texts, options: "source-language=en target-language=es max-hold-ms=10000")
        #expect(error == nil && warnings.isEmpty, "\(warnings)")
        #expect(joined.map(\.segmentID) == [1, 2], "\(joined)")
        #expect(joined.map(\.firstSegmentID) == [0, nil])
        let whole = try await TestSupport.run("/usr/bin/apertium", ["-u", "eng-spa"], input: texts[0] + " " + texts[1])
        #expect(joined.first?.text == whole.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(figures["results-final"] == .uint64(2))
        let (pieces, _, _, _) = try await translate(texts, options: "source-language=en target-language=es")
        #expect(pieces.map(\.segmentID) == [0, 1, 2] && pieces.allSatisfy { $0.firstSegmentID == nil })
        // At the end of the stream a held text goes at once, not after the budget
        // (a minute: a run still going after half of it is waiting it out).
        let finished = Flag()
        let watchdog = Task {
            try await Task.sleep(for: .seconds(30))
            #expect(finished.isSet, "EOS did not release the held text")
        }
        let (last, _, _, _) = try await translate(["and then we went"], options: "source-language=en target-language=es max-hold-ms=60000")
        finished.set()
        watchdog.cancel()
        #expect(last.map(\.segmentID) == [0] && last.first?.status == .final, "\(last)")
    }

    @Test func aTargetThatIsNoLanguageTagFailsAtStartNamingTheProperty() async throws {
        let (results, _, error, _) = try await translate(["Hello"], options: "source-language=en target-language=english")
        let message = "\(String(describing: error))"
        #expect(results.isEmpty)
        #expect(message.contains("target-language 'english' is not a BCP-47 language tag"), "\(message)")
    }

    @Test func aPairThatIsNotInstalledFailsAtStartListingThePairs() async throws {
        let (_, _, error, _) = try await translate(["Hello"], options: "source-language=en target-language=ko")
        let message = "\(String(describing: error))"
        #expect(message.contains("no en→ko pair"), "\(message)")
        #expect(message.contains("eng-spa"), "lists what is installed: \(message)")
    }

    @Test func aRepeatedTextIsAnsweredFromTheCache() async throws {
        let (results, _, _, figures) = try await translate(["Good morning.", "Good night.", "Good morning."],
                                                           options: "source-language=en target-language=es")
        #expect(results.count == 3)
        #expect(results[0].text == results[2].text)
        #expect(figures["cache-hits"] == .uint64(1))
        #expect(figures["results-final"] == .uint64(3))
    }

    @Test func aTextRepeatedWhileItsRequestIsOutMakesNoSecondRequest() async throws {
        // A slow stream, and three requests allowed at once: without the gate
        // both "Good morning." segments would be sent before either answer came.
        let stream = """
            data: {"choices":[{"delta":{"content":"Buenos "}}]}\n\n\
            data: {"choices":[{"delta":{"content":"días."},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n
            """
        let pieces = stream.components(separatedBy: "\n\n").filter { !$0.isEmpty }.map { ($0 + "\n\n", 300) }
        let server = try ScriptedHTTPServer([.stream(pieces: pieces)])
        defer { server.stop() }
        let (results, warnings, error, figures) = try await translate(
            ["Good morning.", "Good morning.", "Good night."],
            options: "provider=compatible base-url=\(server.url)/v1 source-language=en target-language=es max-in-flight=3")
        #expect(error == nil && warnings.isEmpty, "\(String(describing: error)) \(warnings)")
        #expect(results.map(\.segmentID) == [0, 1, 2] && results.allSatisfy { $0.status == .final })
        // Either "Good morning." may lead (with three in flight their work
        // starts in either order); the other waits and is answered from the cache.
        #expect(results.count == 3 && results[1].text == results[0].text
                && results.prefix(2).filter { $0.provider == "cache" }.count == 1, "\(results)")
        let sent = server.requests.map { String(decoding: $0.body, as: UTF8.self) }
        #expect(sent.count == 2, "\(sent)")
        #expect(sent.filter { $0.contains("Good morning.") }.count == 1, "\(sent)")
        #expect(figures["cache-hits"] == .uint64(1))
    }

    @Test func theSystemPromptAndContextSegmentsGoAsMessagesAndATextInAnotherContextIsAskedAgain() async throws {
        let stream = """
            data: {"choices":[{"delta":{"content":"Fue amable."},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n
            """
        let server = try ScriptedHTTPServer([.stream(pieces: [(stream, 0)])])
        defer { server.stop() }
        // One request at a time, so each text's context is every text before it.
        let (results, _, error, figures) = try await translate(
            ["I saw the doctor.", "She was kind.", "I saw the nurse.", "She was kind."],
            options: "provider=compatible base-url=\(server.url)/v1 source-language=en target-language=es context-segments=2 max-in-flight=1 system-prompt=\"Put {source} into {target}.\"")
        #expect(error == nil && results.count == 4 && results.allSatisfy { $0.status == .final }, "\(String(describing: error)) \(results)")
        let conversations = try server.requests.map { request in
            let body = try #require(try JSONSerialization.jsonObject(with: request.body) as? [String: Any])
            return try #require(body["messages"] as? [[String: String]])
        }
        #expect(conversations.allSatisfy { $0.first == ["role": "system", "content": "Put English into Spanish."] }, "\(conversations)")
        let turns = conversations.map { $0.dropFirst().map { "\($0["role"]!): \($0["content"]!)" } }
        #expect(turns.count == 4, "the last 'She was kind.' follows another sentence: asked again, not taken from the cache")
        #expect(turns.first == ["user: I saw the doctor."])
        #expect(turns.last == ["user: She was kind.", "assistant: Fue amable.", "user: I saw the nurse.", "assistant: Fue amable.",
                               "user: She was kind."], "\(turns)")
        #expect(figures["cache-hits"] == .uint64(0))
    }

    @Test func emptyTextIsSkippedQuietlyAndTheRestGoesOn() async throws {
        let (results, warnings, error, figures) = try await translate(["Hello.", "   ", "Thank you."],
                                                                      options: "source-language=en target-language=es")
        #expect(error == nil)
        #expect(results.map(\.status) == [.final, .skipped, .final])
        // Nothing was said (a cough's empty transcript): no fault, so no warning on the bus.
        #expect(warnings.isEmpty, "\(warnings)")
        #expect(figures["results-skipped"] == .uint64(1))
    }

    @Test func aStreamedTranslationShowsPartialsThatArePrefixesOfTheFinal() async throws {
        let stream = """
            data: {"choices":[{"delta":{"role":"assistant","content":""}}]}\n\n\
            data: {"choices":[{"delta":{"content":"Hola, "}}]}\n\n\
            data: {"choices":[{"delta":{"content":"joven."}}]}\n\n\
            data: {"choices":[{"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n
            """
        // Pieces 150 ms apart, so the partials leave before the final.
        let pieces = stream.components(separatedBy: "\n\n").filter { !$0.isEmpty }.map { ($0 + "\n\n", 150) }
        let server = try ScriptedHTTPServer([.stream(pieces: pieces)])
        defer { server.stop() }
        let reports = LockedReports()
        let (results, _, error, _) = try await translate(["Hello, young man."], options:
            "provider=compatible base-url=\(server.url)/v1 emit=partials target-language=es", latency: reports.add)
        #expect(error == nil)
        let report = try #require(reports.all.first)
        let ttft = try #require(report.figures["ttft-ms"]), toFinal = try #require(report.figures["time-to-final-ms"])
        #expect(ttft <= toFinal, "the first token comes before the end: \(ttft) ms, \(toFinal) ms")
        let final = try #require(results.last)
        #expect(final.status == .final && final.text == "Hola, joven.")
        let request = try #require(server.requests.first)
        #expect(request.path == "/v1/chat/completions")
        let body = try #require(try JSONSerialization.jsonObject(with: request.body) as? [String: Any])
        #expect(body["stream"] as? Bool == true && body["model"] as? String == "gpt-4o-mini")
    }

    @Test func aRejectedKeyIsFatalAndNamesTheVariableNotTheKey() async throws {
        ProcessEnvironment.set("PARLEY_TEST_TRANSLATE_KEY", "sk-test-secret-key-123456")
        let server = try ScriptedHTTPServer([.respond(status: 401, headers: ["Content-Type": "application/json"],
            body: #"{"error":{"message":"Incorrect API key provided: sk-test-secret-key-123456","type":"invalid_request_error"}}"#)])
        defer { server.stop() }
        let (_, warnings, error, _) = try await translate(["Hello."], options:
            "provider=compatible base-url=\(server.url)/v1 api-key-env=PARLEY_TEST_TRANSLATE_KEY")
        let everything = "\(String(describing: error)) \(warnings)"
        #expect(everything.contains("PARLEY_TEST_TRANSLATE_KEY"))
        #expect(!everything.contains("sk-test-secret-key-123456"))
        #expect(server.requests.count == 1, "401 is not retried")
    }

    /// A provider that echoes the key (not shaped like one: only knowing it
    /// finds it) in a 429's body, a content-policy 400 and an error event
    /// inside a stream: no warning, message or meta carries it.
    @Test func aKeyEchoedInAnyProviderErrorIsScrubbedEverywhere() async throws {
        let key = "hunter2-translate-key-777"
        ProcessEnvironment.set("PARLEY_TEST_ECHO_KEY", key)
        let json = ["Content-Type": "application/json"]
        let server = try ScriptedHTTPServer([
            .respond(status: 429, headers: json, body: #"{"error":{"message":"slow down, \#(key)"}}"#),
            .respond(status: 400, headers: json, body: #"{"error":{"message":"content policy violation for key \#(key)"}}"#),
            .stream(pieces: [("data: {\"error\":{\"message\":\"stream broke for \(key)\"}}\n\n", 0)]),
        ])
        defer { server.stop() }
        let (results, warnings, error, _) = try await translate(["One.", "Two.", "Three."], options:
            "provider=compatible base-url=\(server.url)/v1 api-key-env=PARLEY_TEST_ECHO_KEY max-retries=0 max-in-flight=1")
        #expect(results.count == 3 && results.allSatisfy { $0.status == .failed }, "\(results)")
        #expect(warnings.count >= 3, "\(warnings)")
        let everything = "\(String(describing: error)) \(warnings) \(results)"
        #expect(!everything.contains(key), "\(everything)")
        #expect(everything.contains("[redacted]"))
    }

    @Test func streamtranslatorThroughParleyServeEqualsTheLocalProvider() async throws {
        let server = try await ServeProcess(["--engine", "pocketsphinx"])
        defer { _ = server.stop() }
        let texts = "The young man went home.|Where is the station?|Thank you very much."
        func translations(_ options: String) async throws -> [TextResult] {
            let pipeline = try Pipeline(launch: "parleytestsrc texts=\"\(texts)\" ! streamtranslator cache-dir=none \(options) ! fakesink")
            var results: [TextResult] = []
            try await pipeline.run { if case .translation(let result) = $0 { results.append(result) } }
            return results
        }
        let remote = try await translations("provider=compatible base-url=\(server.url)/v1 source-language=en target-language=es emit=partials")
        let local = try await translations("provider=local source-language=en target-language=es")
        #expect(remote.count == 3)
        #expect(remote.map(\.text) == local.map(\.text))
        #expect(remote.map(\.segmentID) == [0, 1, 2])
    }

    @Test func aFanOutTranslatesIntoEveryLanguageInSegmentOrder() async throws {
        let texts = "The young man went home.|Where is the station?|Thank you very much.|Good night."
        let pipeline = try Pipeline(launch: """
            parleytestsrc texts="\(texts)" ! tee name=split
            split. ! queue ! streamtranslator source-language=en target-language=es cache-dir=none ! fakesink
            split. ! queue ! streamtranslator source-language=en target-language=ca cache-dir=none ! fakesink
            split. ! queue ! streamtranslator source-language=en-US target-language=gl cache-dir=none ! fakesink
            """)
        var byLanguage: [String: [TextResult]] = [:]
        try await pipeline.run { if case .translation(let result) = $0 { byLanguage[result.language, default: []].append(result) } }
        #expect(Set(byLanguage.keys) == ["es", "ca", "gl"])
        for (language, results) in byLanguage {
            #expect(results.map(\.segmentID) == [0, 1, 2, 3], "\(language) in segment order")
            #expect(results.allSatisfy { $0.status == .final && !$0.text.isEmpty })
        }
        #expect(byLanguage["es"]?.first?.text.contains("hombre") == true)
        #expect(byLanguage["ca"]?.first?.text.contains("home jove") == true, "\(byLanguage["ca"] ?? [])")
        #expect(byLanguage["gl"]?.first?.text.contains("home") == true)
    }

    @Test func aListenerOfTheSpeakersOwnLanguageGetsTheTextAsItIs() async throws {
        // An English listener of an English speaker (conversation-fanout's TARGETS=en,es), locally and
        // through a cloud provider: no round trip through Spanish, no request.
        let server = try ScriptedHTTPServer([])
        defer { server.stop() }
        let texts = ["He was not an ill-disposed young man.", "Where is the station?"]
        for options in ["provider=local", "provider=compatible base-url=\(server.url)/v1"] {
            let (results, warnings, error, _) = try await translate(texts, options: "source-language=en-US target-language=en \(options)")
            #expect(error == nil && warnings.isEmpty, "\(options): \(warnings)")
            #expect(results.map(\.text) == texts && results.allSatisfy { $0.language == "en" && $0.status == .final }, "\(options): \(results)")
            #expect(results.allSatisfy { $0.provider == "none (same language)" }, "\(options): \(results.map(\.provider))")
        }
        #expect(server.requests.isEmpty, "nothing sent to the provider")
    }

    @Test func resultsKeepSegmentOrderWhenServiceTimesAreShuffled() async throws {
        let server = try await ServeProcess(["--engine", "pocketsphinx", "--delay-ms", "200", "--jitter-ms", "180"])
        defer { _ = server.stop() }
        let texts = (1...8).map { "Number \($0) is here." }
        let (results, warnings, error, _) = try await translate(texts, options:
            "provider=compatible base-url=\(server.url)/v1 source-language=en target-language=es max-in-flight=4")
        #expect(error == nil && warnings.isEmpty, "\(warnings)")
        #expect(results.map(\.segmentID) == Array(0..<8))
        let local = try await translate(texts, options: "source-language=en target-language=es").results
        #expect(results.map(\.text) == local.map(\.text), "each result is its own segment's")
    }

    @Test func aServerErrorIsRetriedAndARateLimitWaited() async throws {
        let stream = "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"Hola.\"}}]}\n\n"
            + "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
        let server = try ScriptedHTTPServer([
            .respond(status: 503, headers: ["Content-Type": "application/json"], body: #"{"error":{"message":"overloaded"}}"#),
            .respond(status: 429, headers: ["Retry-After": "1", "Content-Type": "application/json"], body: #"{"error":{"message":"slow down"}}"#),
            .stream(pieces: [(stream, 0)]),
        ])
        defer { server.stop() }
        let (results, _, error, _) = try await translate(["Hello."], options:
            "provider=compatible base-url=\(server.url)/v1 target-language=es max-retries=3")
        #expect(error == nil)
        #expect(results.map(\.text) == ["Hola."])
        #expect(server.requests.count == 3, "503, then 429, then the answer")
    }

    @Test func aTranslationFromAnEarlierRunMakesNoRequestAndACorruptEntryIsReplaced() async throws {
        let stream = "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"Hola, joven.\"}}]}\n\n"
            + "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
        let server = try ScriptedHTTPServer([.stream(pieces: [(stream, 0)])])
        defer { server.stop() }
        let options = "provider=compatible base-url=\(server.url)/v1 target-language=es"
        let first = try await translate(["Hello, young man."], options: options).results
        #expect(first.map(\.text) == ["Hola, joven."])
        let entries = try FileManager.default.contentsOfDirectory(atPath: cacheDir).filter { $0.hasSuffix(".json") }
        #expect(entries.count == 1 && entries[0].count == 64 + 5, "one entry named by its SHA-256: \(entries)")
        let second = try await translate(["Hello, young man."], options: options)
        #expect(second.results.map(\.text) == ["Hola, joven."])
        #expect(second.figures["cache-hits"] == .uint64(1))
        #expect(server.requests.count == 1, "the second run asked no one")

        try "{ not json".write(toFile: "\(cacheDir)/\(entries[0])", atomically: true, encoding: .utf8)
        let third = try await translate(["Hello, young man."], options: options)
        #expect(third.error == nil && third.results.map(\.text) == ["Hola, joven."])
        #expect(server.requests.count == 2, "a corrupt entry is ignored")
        let rewritten = try String(contentsOfFile: "\(cacheDir)/\(entries[0])", encoding: .utf8)
        #expect(rewritten.contains("Hola, joven."), "and replaced")
    }

    func json(_ body: String, status: Int = 200) -> ScriptedHTTPServer.Reply {
        .respond(status: status, headers: ["Content-Type": "application/json"], body: body)
    }

    @Test func deeplGoogleAndLibreTranslateSpeakTheirWireFormats() async throws {
        ProcessEnvironment.set("PARLEY_TEST_VENDOR_KEY", "vendor-secret-key-42:fx")
        let cases: [(provider: String, reply: String, path: String, check: ([String: Any], [String: String]) -> Bool)] = [
            ("deepl", #"{"translations":[{"detected_source_language":"EN","text":"Hola, joven."}]}"#, "/v2/translate", { body, headers in
                headers["authorization"] == "DeepL-Auth-Key vendor-secret-key-42:fx"
                    && (body["text"] as? [String]) == ["Hello, young man."] && body["target_lang"] as? String == "ES"
                    && body["source_lang"] as? String == "EN"
            }),
            ("google", #"{"data":{"translations":[{"translatedText":"Hola, joven."}]}}"#, "/language/translate/v2?key=vendor", { body, _ in
                (body["q"] as? [String]) == ["Hello, young man."] && body["target"] as? String == "es"
                    && body["source"] as? String == "en" && body["format"] as? String == "text"
            }),
            ("libretranslate", #"{"translatedText":"Hola, joven."}"#, "/translate", { body, _ in
                body["q"] as? String == "Hello, young man." && body["target"] as? String == "es"
                    && body["source"] as? String == "en" && body["api_key"] as? String == "vendor-secret-key-42:fx"
            }),
        ]
        for (provider, reply, path, check) in cases {
            let server = try ScriptedHTTPServer([json(reply)])
            defer { server.stop() }
            let (results, warnings, error, _) = try await translate(["Hello, young man."], options:
                "provider=\(provider) base-url=\(server.url) api-key-env=PARLEY_TEST_VENDOR_KEY source-language=en target-language=es")
            #expect(error == nil && warnings.isEmpty, "\(provider): \(String(describing: error)) \(warnings)")
            #expect(results.map(\.text) == ["Hola, joven."], "\(provider)")
            let request = try #require(server.requests.first)
            #expect(request.method == "POST" && request.path.hasPrefix(path), "\(provider): \(request.path)")
            let body = try #require(try JSONSerialization.jsonObject(with: request.body) as? [String: Any])
            #expect(check(body, request.headers), "\(provider): \(body)")
        }
    }

    @Test func aUsedUpDeepLQuotaStopsTheStreamWithAClearMessage() async throws {
        ProcessEnvironment.set("PARLEY_TEST_QUOTA_KEY", "vendor-secret-key-42")
        let server = try ScriptedHTTPServer([json(#"{"message":"Quota Exceeded"}"#, status: 456)])
        defer { server.stop() }
        // One request at a time: what is already in flight when the answer comes cannot be unsent.
        let (_, _, error, _) = try await translate(["Hello.", "Thank you."], options:
            "provider=deepl base-url=\(server.url) api-key-env=PARLEY_TEST_QUOTA_KEY source-language=en target-language=es max-in-flight=1")
        let message = String(describing: error)
        #expect(message.contains("quota") && message.contains("456"), "\(message)")
        #expect(!message.contains("vendor-secret-key-42"))
        #expect(server.requests.count == 1, "456 is not retried, and the next segment is not sent")
    }

    func chunk(_ delta: String) -> String { "data: {\"choices\":[{\"delta\":\(delta)}]}\n\n" }

    @Test func aStreamBrokenMidwayIsRetriedAndItsPartialsWithdrawn() async throws {
        let end = "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
        let server = try ScriptedHTTPServer([
            .streamThenReset(pieces: [(chunk(#"{"role":"assistant","content":""}"#), 0), (chunk(#"{"content":"Hol"}"#), 100)]),
            .stream(pieces: [(chunk(#"{"role":"assistant","content":""}"#), 0), (chunk(#"{"content":"Hola, "}"#), 50),
                             (chunk(#"{"content":"joven."}"#), 50), (end, 0)]),
        ])
        defer { server.stop() }
        let pipeline = try Pipeline(launch: """
            parleytestsrc texts="Hello, young man." ! streamtranslator cache=false provider=compatible base-url=\(server.url)/v1 \
            target-language=es emit=partials ! parleytesttextsink name=retracted
            """)
        try await pipeline.run()
        let entries = TextRecordingSink.take("retracted")
        #expect(server.requests.count == 2, "the broken stream was sent again")
        let final = try #require(entries.last)
        #expect(final.status == .final && final.text == "Hola, joven." && final.revision == 1)
        let withdrawal = try #require(entries.firstIndex { $0.status == .partial && $0.text.isEmpty })
        #expect(entries[withdrawal].revision == 1, "the empty partial starts revision 1: \(entries)")
        #expect(entries[..<withdrawal].map(\.text) == ["Hol"], "the broken attempt's partial, withdrawn after: \(entries)")
        #expect(entries[..<withdrawal].allSatisfy { $0.revision == 0 })
        for entry in entries[withdrawal...] where entry.status == .partial && !entry.text.isEmpty {
            #expect(entry.revision == 1 && "Hola, joven.".hasPrefix(entry.text), "after the withdrawal: \(entry)")
        }
    }

    @Test func sentencesLeaveAsTheStreamCompletesThem() async throws {
        let end = "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
        let server = try ScriptedHTTPServer([.stream(pieces: [
            (chunk(#"{"role":"assistant","content":""}"#), 0), (chunk(#"{"content":"El Sr. García pagó 3.5 euros. "}"#), 50),
            (chunk(#"{"content":"¿Y luego? "}"#), 50), (chunk(#"{"content":"Se fue"}"#), 50), (end, 0),
        ])])
        defer { server.stop() }
        let pipeline = try Pipeline(launch: """
            parleytestsrc texts="Mr. Garcia paid 3.5 euros. And then? He left" ! streamtranslator cache=false provider=compatible \
            base-url=\(server.url)/v1 target-language=es emit=sentences ! parleytesttextsink name=sentences
            """)
        try await pipeline.run()
        let entries = TextRecordingSink.take("sentences")
        #expect(entries.map(\.text) == ["El Sr. García pagó 3.5 euros.", "¿Y luego?", "Se fue"], "\(entries)")
        #expect(entries.allSatisfy { $0.status == .final })
    }

    @Test func textThatIsNotUTF8FailsItsSegmentAndTheRestGoesOn() async throws {
        let file = TestSupport.temporaryFolder().appendingPathComponent("latin1.txt")
        try Data([0x43, 0x61, 0x66, 0xE9, 0x20, 0xFF]).write(to: file)  // "Café" in Latin-1, then 0xFF
        let pipeline = try Pipeline(launch: """
            filesrc location=\(file.path) ! text/x-raw,format=utf8 ! streamtranslator name=latin1 cache=false \
            source-language=en target-language=es ! parleytesttextsink name=latin1sink
            """)
        var warnings: [String] = []
        try await pipeline.run { if case .warning(_, let message, _) = $0 { warnings.append(message) } }
        let entries = TextRecordingSink.take("latin1sink")
        #expect(entries.map(\.status) == [.failed])
        #expect(warnings.contains { $0.contains("segment 0") && $0.contains("UTF-8") }, "\(warnings)")
    }
}

final class LockedReports: @unchecked Sendable {
    private let lock = NSLock()
    private var reports: [LatencyReport] = []
    func add(_ report: LatencyReport) { lock.lock(); reports.append(report); lock.unlock() }
    var all: [LatencyReport] { lock.lock(); defer { lock.unlock() }; return reports }
}
