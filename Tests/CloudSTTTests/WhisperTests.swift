import Foundation
import Parley
import ParleyCore
import ParleyTestSupport
import PipelineTestSupport
import Testing
import WhisperEngine

/// The Whisper-base engine that scripts/setup prepares, on real recordings:
/// through `parley serve --engine whisper` over HTTP, and in-process behind
/// cloudstt provider=local, including a worker killed mid-run.
@Suite(.serialized, .heavy) struct WhisperTests {
    init() { Parley.register(testElements) }
    let scratch = TestSupport.temporaryFolder()

    /// Transcripts of `recording` through vadsegmenter and `stt`.
    func transcripts(of recording: String, _ stt: String) async throws -> [TextResult] {
        try await transcriptsAndWarnings(of: recording, stt).transcripts
    }

    /// The same, with the pipeline's warnings: a failed segment's reason is there.
    func transcriptsAndWarnings(of recording: String, _ stt: String) async throws -> (transcripts: [TextResult], warnings: [String]) {
        let pipeline = try Pipeline(launch: "filesrc location=\(recording) ! wavparse ! vadsegmenter ! \(stt) ! fakesink")
        var results: [TextResult] = [], warnings: [String] = []
        try await pipeline.run { event in
            switch event {
            case .transcript(let result): results.append(result)
            case .warning(let source, let message, let debug): warnings.append("\(source): \(message) \(debug ?? "")")
            default: break
            }
        }
        return (results, warnings)
    }

    func wordErrorRate(_ clips: [SpeechFixtures.Transcribed], named name: String, server: ServeProcess) async throws
        -> (WordErrorRate.Score, String) {
        let recording = try SpeechFixtures.recording(of: clips.map(\.path), named: name, in: scratch)
        let (results, warnings) = try await transcriptsAndWarnings(of: recording.path, "cloudstt provider=compatible base-url=\(server.url)/v1")
        #expect(results.allSatisfy { $0.status == .final }, "\(results); warnings: \(warnings)")
        let heard = results.map(\.text).joined(separator: " ")
        return (WordErrorRate.score(reference: clips.map(\.text).joined(separator: " "), hypothesis: heard), heard)
    }

    @Test func englishThroughParleyServeHasAtMostTenPercentWordErrors() async throws {
        let server = try await ServeProcess(["--engine", "whisper"])
        defer { server.stop() }
        let (librivox, heardBooks) = try await wordErrorRate(try SpeechFixtures.librivoxWithTranscripts(),
                                                             named: "librivox", server: server)
        #expect(librivox.referenceWords > 60)
        #expect(librivox.rate <= 0.10, "LibriVox: \(librivox) — heard: \(heardBooks)")
        let prompts = try await SpeechFixtures.asteriskPrompts("en", count: 8)
        #expect(prompts.count == 8)
        let (telephony, heardPrompts) = try await wordErrorRate(prompts, named: "asterisk-en", server: server)
        #expect(telephony.rate <= 0.10, "Asterisk prompts (8 kHz): \(telephony) — heard: \(heardPrompts)")
    }

    @Test func aFrenchPromptComesBackInFrench() async throws {
        let server = try await ServeProcess(["--engine", "whisper"])
        defer { server.stop() }
        // language="" lets Whisper detect it; the result says what it found.
        let results = try await transcripts(of: "/usr/share/asterisk/sounds/fr/agent-pass.wav",
                                            "cloudstt provider=compatible base-url=\(server.url)/v1 language=\"\" response-format=verbose_json")
        #expect(results.count == 1)
        #expect(results.first?.language == "fr")
        let text = results.first?.text.lowercased() ?? ""
        #expect(text.contains("composez votre mot de passe"), "\(text)")  // "Composez votre mot de passe suivi du dièse."
    }

    /// A multipart request to `parley serve`, its JSON answer.
    func post(_ server: ServeProcess, _ path: String, clip: String, fields: [(String, String)]) async throws -> [String: Any] {
        var form = MultipartForm()
        form.add(file: "file", filename: "clip.wav", contentType: "audio/wav", data: try Data(contentsOf: URL(fileURLWithPath: clip)))
        form.add(field: "model", value: "whisper-1")
        for (name, value) in fields { form.add(field: name, value: value) }
        let response = try await HTTPClient().send(HTTPRequest(method: "POST", url: server.url + path,
                                                               headers: [("Content-Type", form.contentType)], body: form.data))
        #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
        return try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
    }

    @Test func translationsPutFrenchSpeechIntoEnglishAndWordsHaveTheirTimes() async throws {
        let server = try await ServeProcess(["--engine", "whisper"])
        defer { server.stop() }
        // "Ce numéro de conférence n'est pas valide, veuillez essayer de nouveau."
        let translated = try await post(server, "/v1/audio/translations", clip: "/usr/share/asterisk/sounds/fr/conf-invalid.wav",
                                        fields: [("response_format", "verbose_json")])
        let english = (translated["text"] as? String ?? "").lowercased()
        #expect(english.contains("valid") && english.contains("again"), "\(english)")
        // The output's language, as OpenAI's translations say (always english).
        #expect(translated["task"] as? String == "translate" && translated["language"] as? String == "english", "\(translated)")

        let timed = try await post(server, "/v1/audio/transcriptions", clip: SpeechFixtures.clips[0],
                                   fields: [("response_format", "verbose_json"), ("timestamp_granularities[]", "word")])
        let words = try #require(timed["words"] as? [[String: Any]], "\(timed)")
        #expect(timed["segments"] == nil, "word granularity alone, as OpenAI: no segments")
        let text = timed["text"] as? String ?? "", duration = timed["duration"] as? Double ?? 0
        // Every letter of the transcript is in one of the words, in order.
        #expect(words.compactMap { $0["word"] as? String }.joined().filter(\.isLetter) == text.filter(\.isLetter), "\(words)")
        let times = words.compactMap { word in (word["start"] as? Double).flatMap { start in (word["end"] as? Double).map { (start, $0) } } }
        #expect(times.count == words.count && words.count >= 7)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0.1 >= $0.0 && $1.0 >= $0.0 }, "in order: \(times)")
        #expect((times.last?.1 ?? .infinity) <= duration + 0.05, "within the \(duration) s clip: \(times)")
    }

    @Test func cloudsttTranslatesFrenchSpeechIntoEnglishInProcessAndThroughServe() async throws {
        let server = try await ServeProcess(["--engine", "whisper"])
        defer { server.stop() }
        // "Laissez votre message après le bip sonore..." (Asterisk's French vm-intro).
        let clip = "/usr/share/asterisk/sounds/fr/vm-intro.wav"
        let local = try await transcripts(of: clip, "cloudstt provider=local local-engine=whisper task=translate")
        let overHTTP = try await transcripts(of: clip, "cloudstt provider=compatible base-url=\(server.url)/v1 task=translate")
        let english = local.map(\.text).joined(separator: " ").lowercased()
        #expect(english.contains("message") && english.contains("beep"), "\(english)")
        #expect(local.allSatisfy { $0.status == .final && $0.language == "en" }, "\(local)")
        #expect(overHTTP.map(\.text) == local.map(\.text), "parley serve's /v1/audio/translations is the same Whisper task")
    }

    /// partials-every-ms, a live caption: while speech goes on it is
    /// transcribed as heard so far and shown as partials, the text growing
    /// and its settled words (stable) never taken back; each segment still
    /// has one final, in order, after its partials and before the next
    /// segment's. Two stretches of prompts spoken with only breaths between
    /// them (14 s and 7 s, less the prompts' own pauses), 1.5 s apart:
    /// segments long enough for several passes even on a busy machine.
    @Test func partialsShowSpeechWhileItGoesOnAndTheFinalsStayOnePerSegment() async throws {
        let prompts = try await SpeechFixtures.asteriskPrompts("en", count: 6)
        let first = try SpeechFixtures.recording(of: prompts[..<4].map(\.path), gap: 0.2, named: "first", in: scratch)
        let second = try SpeechFixtures.recording(of: prompts[4...].map(\.path), gap: 0.2, named: "second", in: scratch)
        let talk = try SpeechFixtures.recording(of: [first.path, second.path], gap: 1.5, named: "talk", in: scratch)
        let pipeline = try Pipeline(launch: "recordingsrc location=\(talk.path) ! vadsegmenter ! cloudstt local-engine=whisper partials-every-ms=500 ! fakesink")
        var results: [TextResult] = []
        try await pipeline.run { event in
            if case .transcript(let result) = event { results.append(result) }
        }
        let finals = results.filter { $0.status == .final }
        #expect(finals.count >= 2 && finals.map(\.segmentID) == Array(0..<UInt64(finals.count)), "\(results.map { "\($0.segmentID) \($0.status)" })")
        let heard = finals.map(\.text).joined(separator: " ")
        let score = WordErrorRate.score(reference: prompts.map(\.text).joined(separator: " "), hypothesis: heard)
        #expect(score.rate <= 0.25, "the finals are the speech's: \(score) \(heard)")
        let partials = results.filter { $0.status == .partial }
        #expect(Dictionary(grouping: partials, by: \.segmentID).values.contains { $0.count >= 2 }, "partials while the speaker spoke: \(partials.map(\.text))")
        #expect(partials.contains { !($0.stable ?? "").isEmpty }, "two passes agreed on some words: \(partials.map { $0.stable ?? "-" })")
        for (position, result) in results.enumerated() where result.status == .partial {
            #expect(!results[..<position].contains { $0.status == .final && $0.segmentID >= result.segmentID },
                    "a partial of segment \(result.segmentID) after its final or a later one's")
            #expect(result.text.hasPrefix(result.stable ?? ""), "the stable words lead the text: \(result.text)")
        }
        for segment in Set(partials.map(\.segmentID)) {
            let settled = partials.filter { $0.segmentID == segment }.map { $0.stable ?? "" }
            #expect(zip(settled, settled.dropFirst()).allSatisfy { $1.hasPrefix($0) }, "settled words stay: \(settled)")
        }
    }

    @Test func serveAnswersAKilledWorkersRequestWithAClearErrorAndRecovers() async throws {
        let server = try await ServeProcess(["--engine", "whisper"])
        let worker = try #require(TestSupport.children(of: server.pid).first, "parley serve runs its Whisper worker")
        let client = HTTPClient()
        func post(_ file: String) async throws -> HTTPResponse {
            var form = MultipartForm()
            form.add(file: "file", filename: "clip.wav", contentType: "audio/wav",
                     data: try Data(contentsOf: URL(fileURLWithPath: file)))
            form.add(field: "model", value: "whisper-1")
            return try await client.send(HTTPRequest(method: "POST", url: server.url + "/v1/audio/transcriptions",
                                                     headers: [("Content-Type", form.contentType)], body: form.data))
        }
        async let inFlight = post("\(SpeechFixtures.librivox)/sense_and_sensibility_01_austen_64kb-0870.wav")
        try await Task.sleep(for: .milliseconds(300))  // the 7 s clip takes Whisper well over a second
        kill(worker, SIGKILL)
        let failed = try await inFlight
        #expect(failed.status == 500)
        #expect(String(decoding: failed.body, as: UTF8.self).contains("Whisper worker died"))
        let after = try await post("/usr/share/asterisk/sounds/en/agent-pass.wav")
        #expect(after.status == 200)
        #expect(String(decoding: after.body, as: UTF8.self).lowercased().contains("password"))
        let replacement = TestSupport.children(of: server.pid).first
        #expect(replacement != nil && replacement != worker)
        let log = await server.stop()
        #expect(log.contains("the Whisper worker (pid \(worker)) died: killed by signal 9 (SIGKILL); restarting it"), "\(log)")
    }

    /// gst-launch-1.0 runs cloudstt with the local engine in its own process,
    /// so this test can find and kill that worker and no other.
    @Test func cloudsttReportsTheSegmentAKilledWorkerHeldAndCarriesOn() async throws {
        let recording = try SpeechFixtures.recording(of: try SpeechFixtures.librivoxWithTranscripts().map(\.path),
                                                     named: "librivox", in: scratch)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/gst-launch-1.0")
        process.arguments = ["-m", "filesrc", "location=\(recording.path)", "!", "wavparse", "!", "vadsegmenter", "!",
                             "cloudstt", "name=stt", "provider=local", "local-engine=whisper", "!", "fakesink"]
        process.environment = TestSupport.gstEnvironment(registry: scratch)
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try ProcessEnvironment.whileSpawning { try process.run() }
        let errors = DrainedPipe(err)
        let gstPid = process.processIdentifier
        let (statuses, output): ([String], String) = await withCheckedContinuation { continuation in
            Thread {
                var seen = "", statuses: [String] = [], killed = false
                while case let chunk = out.fileHandleForReading.availableData, !chunk.isEmpty {
                    seen += String(decoding: chunk, as: UTF8.self)
                    statuses = seen.split(separator: "\n").filter { $0.contains("parley/transcript") }.compactMap { line in
                        line.range(of: "status=(string)").map { String(line[$0.upperBound...].prefix { $0 != "," }) }
                    }
                    // The next segment is with the worker as soon as the first one's result is out.
                    if !killed, statuses.first == "final", let worker = TestSupport.children(of: gstPid).first {
                        kill(worker, SIGKILL)
                        killed = true
                    }
                }
                process.waitUntilExit()
                continuation.resume(returning: (statuses, seen))
            }.start()
        }
        let log = await output + String(decoding: errors.wait(), as: UTF8.self)
        #expect(process.terminationStatus == 0, "\(log)")
        #expect(statuses.count == 5, "every segment leaves cloudstt: \(statuses)")
        #expect(statuses.filter { $0 == "failed" }.count == 1, "\(statuses)")
        #expect(statuses.last == "final", "the restarted worker carries on: \(statuses)")
        #expect(log.contains("killed by signal 9 (SIGKILL); restarting it"), "\(log)")
    }

    /// The worker outlives the request that started it, so it must hold none of
    /// the host's other descriptors: a pipe it kept open would never reach its
    /// end for whoever reads it (a test run hung so, reading the output of a
    /// child that had long exited).
    @Test func theWorkerHoldsNoneOfTheHostsOtherDescriptors() async throws {
        let pipe = Pipe()  // not close-on-exec, as Foundation makes them
        let writeEnd = try FileManager.default.destinationOfSymbolicLink(
            atPath: "/proc/self/fd/\(pipe.fileHandleForWriting.fileDescriptor)")
        let worker = WhisperWorker(installation: .standard())
        defer { worker.stop() }
        try await worker.start()
        let pid = try #require(worker.pid)
        let folder = "/proc/\(pid)/fd"
        let held = try FileManager.default.contentsOfDirectory(atPath: folder).compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/" + $0)
        }
        #expect(writeEnd.hasPrefix("pipe:["))
        #expect(!held.isEmpty, "the worker's descriptors are readable")
        #expect(!held.contains(writeEnd), "the worker holds the host's \(writeEnd): \(held)")
    }

    /// A preview (cloudstt's partial passes) is encoded with 1 s of window
    /// after the audio, a final with the worker's 8 s: the window a 3 s
    /// reading got is in the answer, in whole seconds, and both hear it.
    @Test func aPreviewGetsAOneSecondMarginAndAFinalTheWholeEight() async throws {
        let worker = WhisperWorker(installation: .standard())
        defer { worker.stop() }
        let samples = try SpeechFixtures.samples(ofWAV: SpeechFixtures.clips[0])
        let seconds = Double(samples.count) / 16_000
        let final = try await worker.transcribe(samples, language: "en")
        let preview = try await worker.transcribe(samples, language: "en", margin: WhisperWorker.previewMargin)
        #expect(final.window == (seconds + 8).rounded(.up), "\(seconds) s: \(final.window ?? -1)")
        #expect(preview.window == (seconds + 1).rounded(.up), "\(seconds) s: \(preview.window ?? -1)")
        #expect(final.text.lowercased().contains("young man") && preview.text.lowercased().contains("young"), "\(final.text) / \(preview.text)")
    }

    /// With no language named, finding the language and transcribing share
    /// one encoding of the window (faster-whisper alone encodes it twice);
    /// nothing is kept from one request to the next.
    @Test func findingTheLanguageCostsNoSecondEncoderPass() async throws {
        let worker = WhisperWorker(installation: .standard())
        defer { worker.stop() }
        let prompt = try WAVDecoder.decode(try Data(contentsOf: URL(fileURLWithPath: "/usr/share/asterisk/sounds/fr/agent-pass.wav")))
        let french = Resampler.resample(prompt.samples, from: prompt.rate, to: 16_000)
        let found = try await worker.transcribe(french, language: "")
        #expect(found.language == "fr" && found.text.lowercased().contains("mot de passe"), "\(found.text)")
        #expect(found.encoder_passes == 1)
        let again = try await worker.transcribe(french, language: "")
        #expect(again.encoder_passes == 1 && again.language == "fr", "the same audio again is encoded again")
        let named = try await worker.transcribe(french, language: "fr")
        #expect(named.encoder_passes == 1 && named.text == found.text, "\(named.text) / \(found.text)")
    }

    /// A request cancelled while the worker transcribes it (a withdrawn
    /// speculation) is stopped there, between the model's steps: it ends
    /// as cancelled, not with the answer it would have had, and the worker
    /// goes on with the next request as before.
    @Test func aCancelledTranscriptionStopsInTheWorkerAndTheNextOneIsWhole() async throws {
        let worker = WhisperWorker(installation: .standard())
        defer { worker.stop() }
        try await worker.start()
        // Three LibriVox readings, 18 s: seconds of decoding to stop in.
        let long = try SpeechFixtures.clips.flatMap { try SpeechFixtures.samples(ofWAV: $0) }
        let transcription = Task { try await worker.transcribe(long, language: "en") }
        while worker.isIdle { try await Task.sleep(for: .milliseconds(10)) }
        transcription.cancel()
        await #expect(throws: WhisperError.cancelled) { try await transcription.value }
        let next = try await worker.transcribe(try SpeechFixtures.samples(ofWAV: SpeechFixtures.clips[0]), language: "en")
        #expect(next.text.lowercased().contains("young man"), "\(next.text)")
    }

    @Test func preparingAgainDoesNothing() async throws {
        let model = WhisperInstallation.standard().model + "/model.bin"
        let before = try FileManager.default.attributesOfItem(atPath: model)[.modificationDate] as? Date
        let result = try await TestSupport.run(TestSupport.packageRoot.appendingPathComponent("scripts/prepare-whisper").path, [])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("whisper-base engine ready in "), "\(result.stdout)")
        #expect(!result.stdout.contains("preparing"))
        let after = try FileManager.default.attributesOfItem(atPath: model)[.modificationDate] as? Date
        #expect(before != nil && before == after, "the model is not assembled again")
    }
}
