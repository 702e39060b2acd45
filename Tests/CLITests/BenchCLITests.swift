import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import ParleyCore
import ParleyTestSupport
import Testing

/// `parley bench` as a user runs it: corpora built from Debian's recorded
/// speech, real pipelines with the local engines and `parley serve`, paced
/// like a microphone; the report read back as JSON.
@Suite(.heavy) struct BenchCLITests {
    let scratch = TestSupport.temporaryFolder()

    func parley(_ arguments: [String]) async throws -> TestSupport.Result {
        try await TestSupport.run(TestSupport.parleyExecutable, arguments,
                                  environment: TestSupport.gstEnvironment(registry: scratch))
    }

    func pipeline(_ name: String) -> String { TestSupport.packageRoot.appendingPathComponent(name).path }

    func report(_ folder: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: "\(folder)/report.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    func figure(_ report: [String: Any], _ name: String, _ field: String = "n") -> Double? {
        ((report["figures"] as? [String: Any])?[name] as? [String: Any])?[field] as? Double
            ?? (((report["figures"] as? [String: Any])?[name] as? [String: Any])?[field] as? Int).map(Double.init)
    }

    /// A talk's prompts all have a Spanish reference, joined for chrF, with
    /// pauses no silence rule ends a segment at; `--unbroken` plays the same
    /// prompts with a conversation's pauses, to compare with.
    @Test func aTalkHasItsSpanishReferenceAndItsUnbrokenTwinTheSamePrompts() async throws {
        func manifest(_ extra: [String]) async throws -> [String: Any] {
            let folder = scratch.appendingPathComponent("talk-\(extra.count)").path
            let built = try await parley(["bench", "corpus", "talk", "--limit", "4", "--per-conversation", "4",
                                          "--min-words", "3", "-o", folder] + extra)
            #expect(built.status == 0, "\(built.stderr)")
            let line = try String(contentsOfFile: "\(folder)/manifest.jsonl", encoding: .utf8).split(separator: "\n")[0]
            return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        func pauses(_ entry: [String: Any]) throws -> [Double] {
            let spans = try #require(entry["speech"] as? [[Double]])
            return zip(spans, spans.dropFirst()).map { $1[0] - $0[1] }
        }
        let talk = try await manifest([]), unbroken = try await manifest(["--unbroken"])
        let spanish = (talk["translations"] as? [String: String])?["es"] ?? ""
        #expect(!spanish.isEmpty, "every prompt has a Spanish reference, so the talk has one: \(talk)")
        #expect(talk["text"] as? String == unbroken["text"] as? String, "the same prompts")
        #expect((unbroken["translations"] as? [String: String])?["es"] == spanish)
        let talkPauses = try pauses(talk), unbrokenPauses = try pauses(unbroken)
        #expect(talkPauses.count == 3 && talkPauses.allSatisfy { $0 < 0.3 }, "\(talkPauses)")
        #expect(unbrokenPauses.count == 3 && unbrokenPauses.allSatisfy { $0 >= 0.5 }, "\(unbrokenPauses)")
    }

    /// Every stage behind `parley serve`, which adds 300 ms to each request:
    /// those 300 ms × 3 land in the services' time, not the framework's.
    /// Played twice: the second time is measured as the first, not answered
    /// from the translator's cache.
    @Test func servedPipelineReportsEveryStageAndTellsServicesFromOverhead() async throws {
        let corpus = scratch.appendingPathComponent("talk").path
        let built = try await parley(["bench", "corpus", "conversation", "--to", corpus, "--limit", "2",
                                      "--per-conversation", "2", "--min-words", "4"])
        #expect(built.status == 0, "\(built.stderr)")
        let server = try await ServeProcess(["--delay-ms", "300"])
        defer { server.stop() }
        let output = scratch.appendingPathComponent("served").path
        let result = try await parley(["bench", pipeline("benchmarks/pipelines/served-translate.pipeline"),
                                       "--corpus", "\(corpus)/manifest.jsonl", "--set", "URL=\(server.url)/v1",
                                       "--warmup", "0", "--runs", "2", "--output", output])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("played conversation-01 (1/1)"))
        #expect(result.stdout.contains("| voice-to-voice-ms |"))
        let summary = try report(output)

        // Every segment the VAD cut is accounted for, and each reference end was measured.
        let segments = try #require(summary["segments"] as? [String: Any])
        let produced = try #require(segments["produced"] as? Int)
        let byStatus = try #require(segments["by-status"] as? [String: Int])
        #expect(produced >= 2 && byStatus.values.reduce(0, +) == produced && byStatus["unaccounted"] == nil, "\(segments)")
        let references = try #require(summary["references"] as? [String: Any])
        #expect(references["utterances"] as? Int == 4 && references["measured"] as? Int == 4, "\(references)")
        for name in ["eos-detection-ms", "stt.ttfs-ms", "translate.ttft-ms", "tts.time-to-first-audio-ms", "voice-to-voice-ms",
                     "overhead-ms", "stt.queue-wait-ms"] {
            #expect(figure(summary, name) != nil, "no \(name) in \(summary["figures"] ?? "")")
        }
        #expect(figure(summary, "voice-to-voice-ms") == 4)
        #expect(figure(summary, "translate.ttft-ms") == 4, "every translation a request, in both runs")

        // Per segment: the three delayed requests are services' time; overhead is what is left.
        let lines = try String(contentsOfFile: "\(output)/segments.jsonl", encoding: .utf8).split(separator: "\n")
        #expect(lines.count == produced)
        for line in lines {
            let record = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            guard record["reference"] != nil else { continue }
            let figures = try #require(record["figures"] as? [String: Double])
            let voice = try #require(figures["voice-to-voice-ms"]), services = try #require(figures["services-ms"])
            let overhead = try #require(figures["overhead-ms"]), eos = try #require(figures["eos-detection-ms"])
            #expect(services >= 900, "\(figures)")
            // What is left once the VAD decided and the services answered: the framework's, at most a few chunks.
            #expect(abs(overhead - (voice - eos - services)) < 0.01)
            // The raw CLOCK_MONOTONIC instants behind voice to voice, for matching other logs by time.
            let stamps = try #require(record["stamps"] as? [String: Any])
            let spoken = try #require((stamps["reference-speech-end"] as? NSNumber)?.doubleValue)
            let output = try #require((stamps["first-output"] as? NSNumber)?.doubleValue)
            #expect(abs((output - spoken) / 1e6 - voice) < 0.01, "\(stamps) \(voice)")
            // The end of speech is measured to the VAD's decision: where it cut, plus its detector's 40 ms
            // lookahead, heard by then (vadbench's contract; the cut alone read 40 ms early).
            if record["reason"] as? String == "silence", let end = record["end"] as? Double, let referenceEnd = record["referenceEnd"] as? Double {
                #expect(abs(eos - (end - referenceEnd) * 1000 - 40) < 1, "\(record)")
            }
            // No bound on its size: that is a timing, and on a loaded machine a
            // segment's wait in cloudstt's queue behind a slow answer counts here.
            #expect(overhead > 0, "\(figures)")
            #expect((figures["stt.processing-ms"] ?? 0) >= 300 && (figures["translate.time-to-final-ms"] ?? 0) >= 300)
        }

        // Quality against the prompts' transcripts and their Spanish texts.
        let quality = try #require(summary["quality"] as? [String: Any])
        #expect((quality["word-error-rate"] as? Double ?? 1) < 0.25, "\(quality)")
        #expect(((quality["chrf"] as? [String: Double])?["es"] ?? 0) > 20, "\(quality)")
        #expect((quality["vad-f1"] as? Double ?? 0) > 0.8, "\(quality)")
        // False alarms say how many frames they are a share of: the recordings' own silences.
        let nonSpeech = try #require(quality["vad-non-speech-frames"] as? Int)
        #expect(nonSpeech > 0)
        let markdown = try String(contentsOfFile: "\(output)/report.md", encoding: .utf8)
        #expect(markdown.contains("% of the \(nonSpeech) non-speech frames inside the recordings"))

        // The plot: well-formed SVG, shown in report.md, a dot per value and a bar of three parts per timed segment.
        let svg = try String(contentsOfFile: "\(output)/latency.svg", encoding: .utf8)
        #expect(XMLParser(data: Data(svg.utf8)).parse(), "latency.svg is not well-formed XML")
        #expect(markdown.contains("![Latency by stage and per segment](latency.svg)"))
        #expect(svg.contains("voice-to-voice-ms (n=4)"), "\(svg.prefix(2000))")
        #expect(svg.components(separatedBy: "<title>").count - 1 == 3 * 4, "eos, services and overhead for each of 4 segments")
    }

    /// Two committed reports (with and without speculation) side by side:
    /// each figure's p50 and p95 and B / A, read from the reports themselves.
    @Test func compareShowsTwoReportsSideBySideWithTheirRatios() async throws {
        let a = pipeline("benchmarks/pipelines/live-translate"), b = pipeline("benchmarks/pipelines/live-translate-no-speculation")
        let result = try await parley(["bench", "compare", a, "\(b)/report.json"])
        #expect(result.status == 0, "\(result.stderr)")
        let x = try #require(figure(try report(a), "voice-to-voice-ms", "p50")), y = try #require(figure(try report(b), "voice-to-voice-ms", "p50"))
        let row = String(format: "| voice-to-voice-ms p50 | %.1f | %.1f | %.2f× |", x, y, y / x)
        #expect(result.stdout.contains(row), "\(row)\n\(result.stdout)")
        #expect(result.stdout.contains("| WER % |") && result.stdout.contains("| chrF es |"), "\(result.stdout)")
        #expect(!result.stdout.contains("corpora differ"))
        let missing = try await parley(["bench", "compare", a, scratch.path])
        #expect(missing.status != 0 && missing.stderr.contains("no such report"), "\(missing.stderr)")
    }

    /// Ctrl-C during the second recording: the first, finished, is reported; the second is not.
    @Test func interruptKeepsTheRecordingsThatFinished() async throws {
        let corpus = scratch.appendingPathComponent("prompts").path
        let built = try await parley(["bench", "corpus", "asterisk", "--to", corpus, "--limit", "2", "--min-words", "6"])
        #expect(built.status == 0, "\(built.stderr)")
        let output = scratch.appendingPathComponent("interrupted").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TestSupport.parleyExecutable)
        process.arguments = ["bench", pipeline("pipelines/live-translate.pipeline"), "--corpus", "\(corpus)/manifest.jsonl",
                             "--warmup", "0", "--gap", "12", "--output", output]
        process.environment = TestSupport.gstEnvironment(registry: scratch)
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = Pipe()
        let watcher = LineWatcher(errors, waitingFor: "(1/2)")
        try ProcessEnvironment.whileSpawning { try process.run() }
        // The first prompt has played; its results come within the 12 s pause before the second.
        let played = await watcher.wait(seconds: 120)
        #expect(played, "\(watcher.text)")
        // Interrupt once the first prompt's segment has been through every
        // stage: the session log gets its line then (a loaded machine can
        // take seconds), within the 12 s pause.
        let log = "\(output)/sessions/run-1/session.jsonl"
        for _ in 0..<600 {
            let lines = (try? String(contentsOfFile: log, encoding: .utf8))?.split(separator: "\n").count ?? 0
            if lines >= 1 { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        // The recorder writes that line as the last result reaches it; the
        // bench counts the recording once the same results have come to it
        // over the bus, a moment later. Still well inside the 12 s pause.
        try await Task.sleep(for: .seconds(2))
        process.interrupt()
        await process.waitUntilExit()
        #expect(process.terminationStatus == 130, "\(watcher.text)")
        #expect(watcher.text.contains("interrupted: the report covers the 1 recordings that finished"), "\(watcher.text)")
        let summary = try report(output)
        let runs = try #require(summary["runs"] as? [[String: Any]])
        #expect(runs.first?["recordings"] as? Int == 1 && runs.first?["interrupted"] as? Bool == true, "\(runs)")
        #expect(figure(summary, "voice-to-voice-ms") ?? 0 >= 1)
        let markdown = try String(contentsOfFile: "\(output)/report.md", encoding: .utf8)
        #expect(markdown.contains("**Interrupted**"))
        // The local chain speculates: the report counts what was started and what was thrown away,
        // and what the run cost in CPU per second of source.
        let segments = try #require(summary["segments"] as? [String: Any])
        #expect(segments["speculated"] as? Int ?? 0 >= 1 && segments["speculative-requests"] as? Int ?? 0 >= 1, "\(segments)")
        #expect(markdown.contains("transcribed at a likely end"), "\(markdown)")
        // How it was made: version, host, the command as run.
        let metadata = try #require(summary["metadata"] as? [String: Any])
        #expect(metadata["parley-version"] as? String == Release.version && (metadata["cores"] as? Int ?? 0) >= 1, "\(metadata)")
        #expect((metadata["command"] as? String)?.hasPrefix("parley bench ") == true && (metadata["command"] as? String)?.contains("--gap 12") == true,
                "\(metadata)")
        #expect(markdown.contains("Parley \(Release.version)"))
        let run = try #require(runs.first)
        let cpu = (run["cpu-seconds"] as? Double ?? 0) + (run["worker-cpu-seconds"] as? Double ?? 0)
        let stream = try #require(run["stream-seconds"] as? Double)
        #expect(abs((run["cpu-per-stream-second"] as? Double ?? -1) - cpu / stream) < 1e-9 && cpu > 0, "\(run)")
        // live-translate records sessions: the run's is kept beside the report.
        #expect(FileManager.default.fileExists(atPath: "\(output)/sessions/run-1/session.jsonl"))
    }

    @Test func wrongPipelineOrManifestIsRefusedWithWhere() async throws {
        let corpus = scratch.appendingPathComponent("bad.jsonl").path
        try "{\"audio\": \"\(SpeechFixtures.clips[0])\"}\n{\"audio\": \"missing.wav\"}\n".write(toFile: corpus, atomically: true, encoding: .utf8)
        let noSource = try await parley(["bench", pipeline("pipelines/translate-file.pipeline"), "--corpus", corpus])
        #expect(noSource.status == 2)
        #expect(noSource.stderr.contains("declares no SOURCE fragment"), "\(noSource.stderr)")
        let badManifest = try await parley(["bench", pipeline("pipelines/live-translate.pipeline"), "--corpus", corpus])
        #expect(badManifest.status == 2)
        #expect(badManifest.stderr.contains("bad.jsonl:2: audio missing.wav: no such readable file"), "\(badManifest.stderr)")
        let setSource = try await parley(["bench", pipeline("pipelines/live-translate.pipeline"), "--corpus", corpus,
                                          "--set", "SOURCE=fakesrc"])
        #expect(setSource.status == 2 && setSource.stderr.contains("--set SOURCE: parley bench sets SOURCE itself"), "\(setSource.stderr)")
        // A push-to-talk pipeline would cut nothing: refused, saying why, before
        // the corpus is even read (this manifest's bad line is never reached).
        let pushToTalk = try await parley(["bench", pipeline("pipelines/dictation.pipeline"), "--corpus", corpus, "--no-pace",
                                           "--output", scratch.appendingPathComponent("ptt").path])
        #expect(pushToTalk.status == 2 && pushToTalk.stderr.contains("is in push-to-talk mode (mode=ptt)"), "\(pushToTalk.stderr)")
    }
}
