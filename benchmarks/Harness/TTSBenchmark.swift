import Foundation
import Parley
import ParleyCore

/// espeaksrc and espeaktts against the `espeak` element of Debian's
/// gstreamer1.0-espeak, driven the same way, in one process and one run.
struct TTSBenchmark {
    var runs: Int
    /// "parley", "peer", or nil for both. libespeak-ng is process-global and
    /// gstreamer1.0-espeak installs its own callback, so the two are measured
    /// in separate processes of this same harness, one after the other.
    var only: String?

    static let sentences = [
        "Hello.",
        "Go forward ten meters.",
        "The quick brown fox jumps over the lazy dog.",
        "Please turn left at the next intersection and continue for two kilometers.",
        "Speech pipelines cut audio at pauses, recognise it, translate it and speak the result, one segment at a time, in order.",
    ]

    struct Sample {
        var firstAudioMs: Double
        var realTimeFactor: Double  // seconds of audio per second of wall time
    }

    /// One synthesis through `description`, timed from PLAYING to first audio and to EOS.
    func measure(_ description: String, sink: String, rate: Double) async throws -> Sample {
        let pipeline = try Pipeline(launch: description)
        let started = MonotonicClock.nanoseconds()
        try await pipeline.run()
        let ended = MonotonicClock.nanoseconds()
        let figures = TimingSink.take(sink)
        let audioSeconds = Double(figures.bytes / 2) / rate
        return Sample(firstAudioMs: Double(figures.firstBufferAt - started) / 1e6,
                      realTimeFactor: audioSeconds / (Double(ended - started) / 1e9))
    }

    func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
    }

    func run() async throws -> String {
        guard only == nil else { return try await rows().joined(separator: "\n") }
        var rows: [String] = []
        for group in ["parley", "peer"] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            process.arguments = ["tts", "--only", group, "--runs", "\(runs)"]
            let out = Pipe()
            process.standardOutput = out
            try process.run()
            let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            rows += text.split(separator: "\n").map(String.init).filter { $0.hasPrefix("|") }
        }
        let peerAvailable = rows.contains { $0.contains("gstreamer1.0-espeak") }
        // Group by sentence.
        rows.sort { $0.split(separator: "|").first ?? "" < $1.split(separator: "|").first ?? "" }
        return report(rows, peerAvailable: peerAvailable) + (try await remote())
    }

    /// curl's time to first byte (ms) of one streamed `/audio/speech` request.
    func curl(_ sentence: String, url: String) throws -> Double {
        let request = try Curl.postJSON(["model": "tts-1", "voice": "alloy", "input": sentence, "response_format": "pcm"],
                                        to: url + "/audio/speech")
        return (try Curl.measure("%{time_starttransfer}", request).first ?? .nan) * 1000
    }

    /// cloudtts's time to first audio (ms, text in to first buffer out) per
    /// sentence: one pipeline, the texts 50 ms apart so each request starts
    /// with the previous one finished, as curl's do.
    func element(_ sentences: [String], url: String) async throws -> [Double] {
        let texts = sentences.map { $0.replacingOccurrences(of: "\"", with: " ").replacingOccurrences(of: "|", with: " ") }
        let pipeline = try Pipeline(launch: """
            parleybenchtext interval-ms=50 texts="\(texts.joined(separator: "|"))" \
            ! cloudtts provider=compatible base-url=\(url) max-in-flight=1 ! fakesink
            """)
        var figures: [Double] = []
        try await pipeline.run { event in
            if case .latency(let report) = event, report.stage == "tts" { figures.append(report.figures["time-to-first-audio-ms"] ?? .nan) }
        }
        return figures
    }

    /// cloudtts against curl on the same `parley serve` speech endpoint, in one run.
    func remote() async throws -> String {
        let (server, url) = try await LocalServer.start()
        defer { server.cancel() }
        _ = try curl("Warm up.", url: url)
        _ = try await element(["Warm up."], url: url)
        var byElement: [Double] = [], byCurl: [Double] = []
        for _ in 0..<runs {
            for sentence in Self.sentences { byCurl.append(try curl(sentence, url: url)) }
            byElement += try await element(Self.sentences, url: url)
        }
        let overhead = [0.5, 0.95, 0.99].map { Percentiles.value(byElement, $0) - Percentiles.value(byCurl, $0) }
        return """

            ## cloudtts over HTTP against curl

            The same sentences through `parley serve`'s `/v1/audio/speech`
            (espeak-ng behind it, PCM streamed at 24 kHz), \(runs) runs, one request
            at a time: in each run curl asks for every sentence, then the element
            does. curl: `time_starttransfer` of the streamed request (a new
            connection each time); cloudtts (`provider=compatible`, one pipeline per
            run, texts 50 ms apart, the connection kept alive):
            `time-to-first-audio-ms`, from the text entering the element to its
            first audio buffer leaving. Milliseconds.

            | measure | p50 | p95 | p99 |
            |---|---|---|---|
            \(Percentiles.row("cloudtts: time to first audio", byElement))
            \(Percentiles.row("curl: time to first byte", byCurl))
            \(String(format: "| overhead (cloudtts − curl) | %.2f | %.2f | %.2f |", overhead[0], overhead[1], overhead[2]))

            """
    }

    func rows() async throws -> [String] {
        let peerAvailable = only == "peer" && (try? Pipeline(launch: "espeak text=x ! fakesink")) != nil
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-bench-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var rows: [String] = []
        for (index, sentence) in Self.sentences.enumerated() {
            let textFile = folder.appendingPathComponent("s\(index).txt").path
            try sentence.write(toFile: textFile, atomically: true, encoding: .utf8)
            let quoted = sentence.replacingOccurrences(of: "\"", with: "\\\"")
            var candidates: [(String, String)] = []
            if only == "parley" {
                candidates += [
                    ("espeaksrc (Parley)", "espeaksrc voice=en text=\"\(quoted)\" ! parleytimingsink name=sink"),
                    ("espeaktts (Parley, text in)", "filesrc location=\(textFile) ! text/x-raw,format=utf8 ! espeaktts voice=en ! parleytimingsink name=sink"),
                    ("cloudtts provider=local (Parley, text in)", "filesrc location=\(textFile) ! text/x-raw,format=utf8 ! cloudtts provider=local voice=en ! parleytimingsink name=sink"),
                ]
            }
            if peerAvailable {
                candidates.append(("espeak (gstreamer1.0-espeak)",
                                   "espeak voice=en text=\"\(quoted)\" ! audio/x-raw,format=S16LE ! parleytimingsink name=sink"))
            }
            for (name, description) in candidates {
                var samples: [Sample] = []
                _ = try await measure(description, sink: "sink", rate: 22050)  // warm-up
                for _ in 0..<runs { samples.append(try await measure(description, sink: "sink", rate: 22050)) }
                rows.append(String(format: "| %d (%d chars) | %@ | %.1f | %.0f |", index + 1, sentence.count, name,
                                   median(samples.map(\.firstAudioMs)), median(samples.map(\.realTimeFactor))))
            }
        }
        return rows
    }

    func report(_ rows: [String], peerAvailable: Bool) -> String {
        var report = """
            # TTS benchmark

            The two local English voices (Piper's en_US-joe and espeak-ng) against
            each other, intelligibility included: [voices.md](voices.md).

            Time to first audio (from PLAYING to the first buffer at the sink, ms) and
            synthesis speed (seconds of audio per second of wall time, whole pipeline
            from PLAYING to EOS), median of \(runs) runs after one warm-up, per sentence.
            Same harness, same sink, same voice (en), 22050 Hz; Parley's elements and
            the peer run in separate processes because libespeak-ng is process-global.
            \(peerAvailable ? "" : "\n`espeak` (gstreamer1.0-espeak) was not installed: `apt-get install gstreamer1.0-espeak`.\n")
            | sentence | element | first audio ms | x real time |
            |---|---|---|---|

            """
        report += rows.joined(separator: "\n") + "\n"
        return report
    }
}
