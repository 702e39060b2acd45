import Foundation
import Parley
import ParleyCore
import WhisperEngine

/// cloudtts provider=local's two English voices, Piper's en_US-joe and
/// espeak-ng, on the same texts in one run: time to first audio (text in to
/// first audio, the element's own `time-to-first-audio-ms`), speed (seconds
/// of audio per second from PLAYING to EOS), and how well Whisper-base hears
/// back what each said (WER against the text, normalised as the tests do).
/// The texts are Asterisk's English prompts of four words or more.
struct VoicesBenchmark {
    var count: Int

    struct Spoken {
        var firstAudioMs: Double
        var realTimeFactor: Double
        var errors: WordErrorRate.Score
    }

    func run() async throws -> String {
        let prompts = try CorpusBuilder.asterisk().compactMap(\.text).filter { $0.split(separator: " ").count >= 4 }.prefix(count)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-voices-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let whisper = WhisperWorker(installation: .standard())
        try await whisper.start()
        defer { whisper.stop() }
        let engines = ["piper", "espeak"]
        var results: [String: [Spoken]] = [:]
        for engine in engines {
            _ = try await speak("Ready.", engine: engine, folder: folder, whisper: whisper)  // loads the voice
            for prompt in prompts {
                results[engine, default: []].append(try await speak(prompt, engine: engine, folder: folder, whisper: whisper))
            }
        }
        let words = prompts.reduce(0) { $0 + WordErrorRate.words($1).count }
        var report = """
            # cloudtts's local English voices: Piper and espeak-ng

            `parley-bench voices --count \(prompts.count)` (debug build) on a \(ProcessInfo.processInfo.activeProcessorCount)-core host, \
            \(ISO8601DateFormatter().string(from: Date()).prefix(10)): Asterisk's first \(prompts.count) English prompts of four \
            words or more (\(words) words), each spoken alone through `cloudtts provider=local local-engine=…` \
            (after one warm-up text that loads the voice), 22050 Hz, resampled to 16 kHz and transcribed by \
            Whisper-base (faster-whisper int8, beam 5, told English). First audio is the element's \
            `time-to-first-audio-ms` (text in → first audio out); speed is seconds of audio per second from \
            PLAYING to EOS (so it includes starting the pipeline); WER is Whisper-base's on what the voice said.

            | voice | WER | first audio ms (median) | first audio ms (p90) | × real time (median) |
            |---|---:|---:|---:|---:|

            """
        for engine in engines {
            let spoken = results[engine] ?? []
            let score = spoken.reduce(WordErrorRate.Score(errors: 0, referenceWords: 0)) { $0 + $1.errors }
            report += String(format: "| %@ | %.1f %% | %.1f | %.1f | %.1f |\n", engine == "piper" ? "Piper en_US-joe (medium)" : "espeak-ng (en)",
                             100 * score.rate, percentile(spoken.map(\.firstAudioMs), 0.5), percentile(spoken.map(\.firstAudioMs), 0.9),
                             percentile(spoken.map(\.realTimeFactor), 0.5))
        }
        return report
    }

    func speak(_ text: String, engine: String, folder: URL, whisper: WhisperWorker) async throws -> Spoken {
        let textFile = folder.appendingPathComponent("text.txt"), wav = folder.appendingPathComponent("spoken.wav")
        try text.write(to: textFile, atomically: true, encoding: .utf8)
        let pipeline = try Pipeline(launch: """
            filesrc location=\(textFile.path) ! text/x-raw,format=utf8 ! cloudtts provider=local local-engine=\(engine)
              ! audioconvert ! audioresample ! audio/x-raw,format=S16LE,channels=1,rate=16000 ! wavenc ! filesink location=\(wav.path)
            """)
        var firstAudio = Double.nan
        let started = MonotonicClock.nanoseconds()
        try await pipeline.run { event in
            if case .latency(let report) = event, report.stage == "tts" { firstAudio = report.figures["time-to-first-audio-ms"] ?? .nan }
        }
        let seconds = Double(MonotonicClock.nanoseconds() - started) / 1e9
        let samples = try WAVDecoder.decode(try Data(contentsOf: wav), resampledTo: WhisperWorker.sampleRate)
        let heard = try await whisper.transcribe(samples, language: "en").text
        return Spoken(firstAudioMs: firstAudio, realTimeFactor: Double(samples.count) / Double(WhisperWorker.sampleRate) / seconds,
                      errors: WordErrorRate.score(reference: text, hypothesis: heard))
    }

    func percentile(_ values: [Double], _ share: Double) -> Double {
        let sorted = values.filter { !$0.isNaN }.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * share).rounded()))]
    }
}
