import Foundation
import ParleyCore
import PocketSphinxEngine
import WhisperEngine

/// The local speech recognizers side by side on the same real recordings in
/// one run: word error rate (normalised as in the tests), real-time factor
/// (engine time / audio time, median over runs), model load time and peak
/// memory. The engines are driven directly, as cloudstt and `parley serve`
/// drive them, so the figures are the engines' own.
struct EngineBenchmark {
    var runs: Int

    struct Clip {
        var path: String
        var text: String
        var corpus: String
        var samples: [Int16] = []
        var seconds: Double { Double(samples.count) / 16_000 }
    }

    struct Figures {
        var score = WordErrorRate.Score(errors: 0, referenceWords: 0)
        var realTimeFactors: [Double] = []
    }

    static let corpora = ["LibriVox (read, 16 kHz)", "Asterisk en (telephony, 8 kHz)", "Asterisk fr (telephony, 8 kHz)"]

    func clips() throws -> [Clip] {
        let librivox = "/usr/share/pocketsphinx/test/data/librivox"
        var clips: [Clip] = try String(contentsOfFile: "\(librivox)/transcription", encoding: .utf8)
            .split(separator: "\n").compactMap { line in
                guard let open = line.lastIndex(of: "("), let close = line.lastIndex(of: ")") else { return nil }
                let text = line[..<open].replacingOccurrences(of: "<s>", with: "").replacingOccurrences(of: "</s>", with: "")
                return Clip(path: "\(librivox)/\(line[line.index(after: open)..<close]).wav", text: text, corpus: Self.corpora[0])
            }
        clips += try prompts("en", count: 10, corpus: Self.corpora[1])
        clips += try prompts("fr", count: 5, corpus: Self.corpora[2])
        for index in clips.indices {
            let audio = try WAVDecoder.decode(try Data(contentsOf: URL(fileURLWithPath: clips[index].path)))
            clips[index].samples = Resampler.resample(audio.samples, from: audio.rate, to: 16_000)
        }
        return clips
    }

    /// The first `count` prompts of five words or more that are speech, with the package's transcripts.
    func prompts(_ language: String, count: Int, corpus: String) throws -> [Clip] {
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/bin/gzip")
        gzip.arguments = ["-dc", "/usr/share/doc/asterisk-core-sounds-\(language)/core-sounds-\(language).txt.gz"]
        let out = Pipe()
        gzip.standardOutput = out
        try gzip.run()
        let listing = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        gzip.waitUntilExit()
        var clips: [Clip] = []
        for line in listing.split(separator: "\n") where !line.hasPrefix(";") && !line.contains("[") {
            guard let colon = line.range(of: ": ") else { continue }
            let path = "/usr/share/asterisk/sounds/\(language)/\(line[..<colon.lowerBound]).wav"
            let text = String(line[colon.upperBound...])
            guard text.split(separator: " ").count >= 5, FileManager.default.fileExists(atPath: path) else { continue }
            clips.append(Clip(path: path, text: text, corpus: corpus))
            if clips.count == count { break }
        }
        return clips
    }

    static func kilobytes(_ field: String, pid: Int32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix(field + ":") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    func run() async throws -> String {
        let clips = try clips()
        let whisperInstallation = WhisperInstallation.standard()
        guard whisperInstallation.isPrepared else { throw WhisperError.notPrepared(whisperInstallation.notPreparedAdvice) }
        // pocketsphinx first, in this process: its peak is the growth of ours.
        let baseline = Self.kilobytes("VmRSS", pid: getpid())
        var sphinxLoads: [Double] = []
        var sphinx: PocketSphinxRecognizer?
        for _ in 0..<runs {
            let started = ContinuousClock.now
            sphinx = try PocketSphinxRecognizer()
            sphinxLoads.append((ContinuousClock.now - started).seconds)
        }
        var sphinxFigures: [String: Figures] = [:]
        for run in 0..<runs {
            for clip in clips where !clip.corpus.hasPrefix("Asterisk fr") {
                let started = ContinuousClock.now
                let text = try await sphinx!.transcribe(clip.samples)
                sphinxFigures[clip.corpus, default: Figures()].realTimeFactors.append((ContinuousClock.now - started).seconds / clip.seconds)
                if run == 0 { sphinxFigures[clip.corpus]!.score = sphinxFigures[clip.corpus]!.score + WordErrorRate.score(reference: clip.text, hypothesis: text) }
            }
        }
        let sphinxPeak = Self.kilobytes("VmHWM", pid: getpid()) - baseline
        sphinx = nil

        var whisperLoads: [Double] = [], whisperStarts: [Double] = []
        var whisperFigures: [String: Figures] = [:]
        var whisperPeak = 0
        for run in 0..<runs {
            let worker = WhisperWorker(installation: whisperInstallation)
            let started = ContinuousClock.now
            whisperLoads.append(try await worker.start())
            whisperStarts.append((ContinuousClock.now - started).seconds)
            for clip in clips {
                let language = clip.corpus.hasPrefix("Asterisk fr") ? "fr" : "en"
                let result = try await worker.transcribe(clip.samples, language: language)
                whisperFigures[clip.corpus, default: Figures()].realTimeFactors.append(result.processing_ms / 1000 / clip.seconds)
                if run == 0 { whisperFigures[clip.corpus]!.score = whisperFigures[clip.corpus]!.score + WordErrorRate.score(reference: clip.text, hypothesis: result.text) }
            }
            if let pid = worker.pid { whisperPeak = max(whisperPeak, Self.kilobytes("VmHWM", pid: pid)) }
            worker.stop()
        }

        func row(_ engine: String, _ corpus: String, _ figures: Figures?) -> String {
            guard let figures else { return "| \(engine) | \(corpus) | – | – | – |" }
            return String(format: "| %@ | %@ | %d | %.1f %% | %.3f |", engine, corpus, figures.score.referenceWords,
                          figures.score.rate * 100, median(figures.realTimeFactors))
        }
        var lines = [
            "# Local speech recognizers: Whisper-base and pocketsphinx",
            "",
            "Both engines on the same clips in one run (`swift run -c release parley-bench stt-engines`):",
            "the five LibriVox clips of Debian's pocketsphinx-testdata with their transcripts, and the first",
            "prompts of five words or more of Asterisk's en and fr sound packages with the transcripts the",
            "packages ship. WER is normalised as in the tests (lower case, no punctuation, digits as words)",
            "over each corpus; the real-time factor is the engine's time over the audio's, median per clip",
            "over \(runs) runs. Whisper is told the language (en, fr); pocketsphinx knows English only.",
            "",
            "| engine | corpus | words | WER | real-time factor |",
            "|---|---|---|---|---|",
        ]
        for corpus in Self.corpora {
            lines.append(row("whisper-base (faster-whisper int8)", corpus, whisperFigures[corpus]))
            lines.append(row("pocketsphinx en-us", corpus, sphinxFigures[corpus]))
        }
        lines += [
            "",
            "| engine | model load (median) | peak memory |",
            "|---|---|---|",
            String(format: "| whisper-base | %.2f s in the worker (%.2f s from spawn to ready, Python start included) | %.0f MB (the worker's VmHWM) |",
                   median(whisperLoads), median(whisperStarts), Double(whisperPeak) / 1024),
            String(format: "| pocketsphinx | %.2f s | %.0f MB (growth of the host's VmHWM) |",
                   median(sphinxLoads), Double(sphinxPeak) / 1024),
            "",
            "Machine: \(ProcessInfo.processInfo.activeProcessorCount) cores; Whisper uses all of them (CTranslate2 threads),",
            "pocketsphinx one.",
            "",
            "French telephony is Whisper-base's weak spot here: the 8 kHz prompts' \"dièse\" comes back as \"dies\"",
            "or \"10\", \"numéro d'agent suivi\" as \"numéro d'agence civile\"; the package's own transcripts have",
            "typos (\"présentemnet\"), and the normaliser spells digits in English.",
        ]
        return lines.joined(separator: "\n") + "\n"
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
