// parley-bench: measures Parley's elements on real pipelines.
//
//     swift run -c release parley-bench tts [--runs 5] [--output benchmarks/tts/results.md]
//
// Each figure is the median of several runs; times come from CLOCK_MONOTONIC.
import Foundation
import Parley
import VADSegmenter

let arguments = Array(CommandLine.arguments.dropFirst())
guard let command = arguments.first else {
    print("usage: parley-bench stt|stt-engines|tts|voices|translate [--runs N] [--output FILE] | vad-frames|vad-features|vad-cost FILE.wav")
    exit(2)
}
@MainActor func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}
let runs = Int(option("--runs") ?? "") ?? 5

/// GStreamer and Parley's elements, for the benchmarks that run pipelines.
/// The vad-* commands run the detector alone and never start it: its
/// start-up (a registry rescan after a rebuild) would land in their counts.
func startGStreamer() {
    Parley.initialize()
    Parley.register([TimingSink.self, TextSource.self])
}

/// Prints a benchmark's report, and writes it to `--output` when one is given.
@MainActor func publish(_ report: String) throws {
    print(report)
    if let output = option("--output") { try report.write(toFile: output, atomically: true, encoding: .utf8) }
}

// Any error a command throws (a file it cannot read, a pipeline that fails)
// ends it with one line naming the command and the error, not a backtrace.
do {
    switch command {
    case "tts":
        startGStreamer()
        try publish(try await TTSBenchmark(runs: runs, only: option("--only")).run())
    case "voices":
        // parley-bench voices [--count N]: Piper against espeak-ng through cloudtts, Whisper-base listening.
        startGStreamer()
        try publish(try await VoicesBenchmark(count: Int(option("--count") ?? "") ?? 30).run())
    case "stt":
        startGStreamer()
        try publish(try await STTBenchmark(runs: runs).run())
    case "translate":
        startGStreamer()
        try publish(try await TranslateBenchmark(runs: runs).run())
    case "stt-engines":
        startGStreamer()
        try publish(try await EngineBenchmark(runs: runs).run())
    case "vad-features":
        // parley-bench vad-features FILE.wav OUT.f32: the detector's input features per frame.
        if arguments.dropFirst().first == "--count" { print(SpeechFeatures.count); exit(0) }
        guard arguments.count >= 3 else { print("usage: parley-bench vad-features FILE.wav OUT.f32 | --count"); exit(2) }
        try VADFeatures.write(wav: arguments[1], to: arguments[2])
    case "vad-frames":
        // parley-bench vad-frames FILE.wav [--segments FILE.tsv] [--probabilities FILE.f32]:
        // per 10 ms frame the probability and the element's decision on stdout, the
        // CPU time on stderr, the segments (seconds: opened-at, start, end,
        // speech-end, closed-at; opened-at and closed-at are when the element
        // decided, its lookahead included) to the file. With --probabilities, the element decides on
        // those (a candidate network's, from training) and nothing is timed.
        // --onset-threshold P: the segmenter's onset-threshold instead of the
        // element's default (streams.py chooses it with this). --silence-ms N: the
        // segmenter's silence-duration-ms instead of the element's default (score.py's
        // table of other settings). --runs N: detector
        // passes timed (5; the CPU time is their median), 1 where no one reads it.
        let usage = "usage: parley-bench vad-frames FILE.wav [--segments FILE.tsv] [--probabilities FILE.f32] [--onset-threshold 0-1] [--silence-ms 10-10000] [--runs N]"
        guard arguments.count >= 2 else {
            print(usage)
            exit(2)
        }
        var configuration = VADSegmenterElement.defaultConfiguration
        /// A setting's value from `--name`, if given; exit 2 naming it when it is not `what`.
        func setting<Value: Comparable>(_ name: String, _ parse: (String) -> Value?, in range: ClosedRange<Value>, what: String) -> Value? {
            guard let text = option(name) else { return nil }
            guard let value = parse(text), range.contains(value) else {
                FileHandle.standardError.write(Data("parley-bench vad-frames: \(name) \(text) is not \(what)\n".utf8))
                exit(2)
            }
            return value
        }
        if let value = setting("--onset-threshold", { Float($0) }, in: 0...1, what: "a probability from 0 to 1") {
            configuration.onsetThreshold = value
        }
        if let value = setting("--silence-ms", { Int($0) }, in: 10...10_000, what: "a whole number of ms from 10 to 10000") {
            configuration.silenceDurationMs = value
        }
        let rows: [String], segments: [VADFrames.Segment], seconds: Double?
        if let file = option("--probabilities") {
            do {
                (rows, segments) = try VADFrames.frames(wav: arguments[1], probabilities: file, configuration: configuration)
            } catch let mismatch as VADFrames.FrameCountMismatch {
                FileHandle.standardError.write(Data("parley-bench vad-frames: \(mismatch)\n".utf8))
                exit(2)
            }
            seconds = nil
        } else {
            (rows, segments, seconds) = try VADFrames.frames(wav: arguments[1], runs: max(1, runs), configuration: configuration)
        }
        print(rows.joined(separator: "\n"))
        if let output = option("--segments") {
            let seconds = { (ns: UInt64) in String(format: "%.3f", Double(ns) / 1e9) }
            let lines = ["opened_at\tstart\tend\tspeech_end\tclosed_at"]
                + segments.map { [$0.openedAt, $0.start, $0.end, $0.speechEnd, $0.closedAt].map(seconds).joined(separator: "\t") }
            try (lines.joined(separator: "\n") + "\n").write(toFile: output, atomically: true, encoding: .utf8)
        }
        if let seconds { FileHandle.standardError.write(Data("seconds \(seconds)\n".utf8)) }
        // How late each decision is made: score.py's contract segmenter counts it too.
        FileHandle.standardError.write(Data("lookahead-ms \(VADSegmenterElement.lookaheadMs)\n".utf8))
    case "vad-cost":
        // parley-bench vad-cost FILE.wav [--passes N] [--features-only]: detector
        // passes and nothing else, run under callgrind by benchmarks/vad/instructions.
        guard arguments.count >= 2 else { print("usage: parley-bench vad-cost FILE.wav [--passes N] [--features-only]"); exit(2) }
        let frames = try VADCost.run(wav: arguments[1], passes: Int(option("--passes") ?? "") ?? 1,
                                     featuresOnly: arguments.contains("--features-only"))
        print("frames \(frames)")
    default:
        print("unknown benchmark \(command); available: stt, stt-engines, tts, voices, translate, vad-frames, vad-features, vad-cost")
        exit(2)
    }
} catch {
    // Foundation's file errors keep the path apart from their text; Parley's say what they are.
    let text = (error as? CocoaError).map { "\($0.filePath.map { "\($0): " } ?? "")\($0.localizedDescription)" } ?? "\(error)"
    FileHandle.standardError.write(Data("parley-bench \(command): \(text)\n".utf8))
    exit(1)
}
