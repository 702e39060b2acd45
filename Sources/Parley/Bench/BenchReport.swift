import Foundation
import ParleyCore

/// What `parley bench` reports: every run's resources, the segments by
/// status, each latency figure summarised over all runs, and quality where
/// the corpus has references. Written as `report.json` and `report.md`.
public struct BenchReport: Sendable, Codable {
    public struct Run: Sendable, Codable {
        public var run: Int
        /// The measured recordings' audio.
        public var audioSeconds: Double
        /// All the source played: warm-up, recordings and the pauses between them.
        public var streamSeconds: Double
        public var wallSeconds: Double
        /// Stream seconds per wall second (× real time; about 1 when paced).
        public var speed: Double
        public var cpuSeconds: Double
        public var workerCPUSeconds: Double
        public var peakRSSMegabytes: Double
        public var workerPeakRSSMegabytes: Double
        /// CPU seconds (parley and its workers) per second of stream played:
        /// what the pipeline costs, speculation's thrown-away work included.
        public var cpuPerStreamSecond: Double?
        public var recordings: Int
        public var interrupted: Bool
        public var failure: String?

        // report.json's keys are kebab-case, as the figures' are.
        enum CodingKeys: String, CodingKey {
            case run, speed, recordings, interrupted, failure
            case audioSeconds = "audio-seconds", streamSeconds = "stream-seconds", wallSeconds = "wall-seconds"
            case cpuSeconds = "cpu-seconds", workerCPUSeconds = "worker-cpu-seconds", peakRSSMegabytes = "peak-rss-megabytes"
            case workerPeakRSSMegabytes = "worker-peak-rss-megabytes", cpuPerStreamSecond = "cpu-per-stream-second"
        }

        public init(run: Int, audioSeconds: Double, streamSeconds: Double, wallSeconds: Double, speed: Double, cpuSeconds: Double,
                    workerCPUSeconds: Double, peakRSSMegabytes: Double, workerPeakRSSMegabytes: Double,
                    recordings: Int, interrupted: Bool, failure: String?) {
            self.run = run
            self.audioSeconds = audioSeconds
            self.streamSeconds = streamSeconds
            self.wallSeconds = wallSeconds
            self.speed = speed
            self.cpuSeconds = cpuSeconds
            self.workerCPUSeconds = workerCPUSeconds
            self.peakRSSMegabytes = peakRSSMegabytes
            self.workerPeakRSSMegabytes = workerPeakRSSMegabytes
            cpuPerStreamSecond = streamSeconds > 0 ? (cpuSeconds + workerCPUSeconds) / streamSeconds : 0
            self.recordings = recordings
            self.interrupted = interrupted
            self.failure = failure
        }
    }
    public struct Segments: Sendable, Codable, Equatable {
        public var produced = 0
        /// By status: final, failed, skipped, unaccounted (or "segment" when nothing transcribes).
        public var byStatus: [String: Int] = [:]
        /// Segments transcribed at a likely end (cloudstt `speculate`), the
        /// transcriptions started for them and how many of those became the
        /// final: started − used is the speculative work not used as the
        /// final; in `speculationsKept` segments a withdrawn one's text was kept (`keep-speculated-ms`).
        public var speculated = 0
        public var speculativeRequests = 0
        public var speculationsUsed = 0
        public var speculationsKept = 0

        enum CodingKeys: String, CodingKey {
            case produced, speculated
            case byStatus = "by-status", speculativeRequests = "speculative-requests", speculationsUsed = "speculations-used"
            case speculationsKept = "speculations-kept"
        }

        public init() {}

        /// A report written before speculation was counted reads as none.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            produced = try container.decode(Int.self, forKey: .produced)
            byStatus = try container.decode([String: Int].self, forKey: .byStatus)
            speculated = try container.decodeIfPresent(Int.self, forKey: .speculated) ?? 0
            speculativeRequests = try container.decodeIfPresent(Int.self, forKey: .speculativeRequests) ?? 0
            speculationsUsed = try container.decodeIfPresent(Int.self, forKey: .speculationsUsed) ?? 0
            speculationsKept = try container.decodeIfPresent(Int.self, forKey: .speculationsKept) ?? 0
        }
    }
    public struct References: Sendable, Codable, Equatable {
        public var utterances = 0
        public var measured = 0
        public var missed = 0
        public var merged = 0
    }
    public struct Quality: Sendable, Codable, Equatable {
        public var wordErrorRate: Double?
        public var referenceWords = 0
        /// Mean chrF over the recordings, by language.
        public var chrF: [String: Double] = [:]
        public var vadPrecision: Double?
        public var vadRecall: Double?
        public var vadF1: Double?
        public var vadFalseAlarmRate: Double?
        /// The non-speech frames scored: those inside the recordings (the bench's gaps between them are not).
        public var vadNonSpeechFrames: Int?

        enum CodingKeys: String, CodingKey {
            case wordErrorRate = "word-error-rate", referenceWords = "reference-words", chrF = "chrf"
            case vadPrecision = "vad-precision", vadRecall = "vad-recall", vadF1 = "vad-f1"
            case vadFalseAlarmRate = "vad-false-alarm-rate", vadNonSpeechFrames = "vad-non-speech-frames"
        }
    }

    /// How the report was made (version, commit, host, date, command).
    public var metadata: BenchMetadata?
    /// The latency plot beside the report (`latency.svg`, BenchPlot), shown in report.md.
    public var plot: String?
    public var pipeline: String
    public var corpus: String
    public var paced: Bool
    public var warmup: Int
    public var recordings: Int
    public var runs: [Run] = []
    public var segments = Segments()
    public var references = References()
    public var figures: [String: Distribution] = [:]
    public var quality = Quality()

    /// The order figures appear in: the path from speech end to output, then the rest by name.
    public static let leadingFigures = [
        "eos-detection-ms", "stt.ttfs-ms", "translate.ttft-ms", "translate.time-to-final-ms", "tts.time-to-first-audio-ms",
        "voice-to-voice-ms", "voice-to-text-ms", "services-ms", "overhead-ms",
    ]

    public init(pipeline: String, corpus: String, paced: Bool, warmup: Int, recordings: Int,
                runs: [(Run, [SegmentRecord], [EntryScore])]) {
        self.pipeline = pipeline
        self.corpus = corpus
        self.paced = paced
        self.warmup = warmup
        self.recordings = recordings
        self.runs = runs.map(\.0)
        let records = runs.flatMap(\.1), scores = runs.flatMap(\.2)
        segments.produced = records.count
        for record in records {
            segments.byStatus[record.status, default: 0] += 1
            if let started = record.figures["stt.speculative-requests"], started > 0 {
                segments.speculated += 1
                segments.speculativeRequests += Int(started)
                if record.figures["stt.speculation-used"] == 1 { segments.speculationsUsed += 1 }
                if record.figures["stt.speculation-kept-ms"] ?? 0 > 0 { segments.speculationsKept += 1 }
            }
        }
        var values: [String: [Double]] = [:]
        for record in records { for (name, value) in record.figures { values[name, default: []].append(value) } }
        figures = values.compactMapValues { Distribution($0) }
        references.utterances = scores.reduce(0) { $0 + $1.references }
        references.missed = scores.reduce(0) { $0 + $1.missed }
        references.merged = scores.reduce(0) { $0 + $1.merged }
        references.measured = records.filter { $0.reference != nil }.count
        let words = scores.compactMap(\.referenceWords).reduce(0, +)
        if words > 0 {
            quality.referenceWords = words
            quality.wordErrorRate = Double(scores.compactMap(\.wordErrors).reduce(0, +)) / Double(words)
        }
        var chrF: [String: [Double]] = [:]
        for score in scores { for (language, value) in score.chrF ?? [:] { chrF[language, default: []].append(value) } }
        quality.chrF = chrF.mapValues { $0.reduce(0, +) / Double($0.count) }
        let frames = scores.compactMap(\.frames)
        if !frames.isEmpty {
            let total = frames.reduce(FrameCounts(), +)
            quality.vadPrecision = total.precision
            quality.vadRecall = total.recall
            quality.vadF1 = total.f1
            quality.vadFalseAlarmRate = total.falseAlarmRate
            quality.vadNonSpeechFrames = total.falsePositives + total.trueNegatives
        }
    }

    public var figureOrder: [String] {
        Self.leadingFigures.filter { figures[$0] != nil } + figures.keys.filter { !Self.leadingFigures.contains($0) }.sorted()
    }

    public var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self) + "\n"
    }

    /// A report.json, this version's (kebab-case keys) or an earlier one's
    /// (camelCase beside the kebab-case figures): each key is read as
    /// kebab-case, which leaves the figures, statuses and language tags as
    /// they are.
    public static func read(_ data: Data) throws -> BenchReport {
        let tree = try JSONSerialization.jsonObject(with: data)
        let current = try JSONSerialization.data(withJSONObject: kebabKeys(tree))
        return try JSONDecoder().decode(BenchReport.self, from: current)
    }

    static func kebabKeys(_ value: Any) -> Any {
        if let object = value as? [String: Any] {
            return Dictionary(object.map { (kebab($0.key), kebabKeys($0.value)) }, uniquingKeysWith: { first, _ in first })
        }
        if let array = value as? [Any] { return array.map(kebabKeys) }
        return value
    }

    /// "wordErrorRate" → "word-error-rate", "workerCPUSeconds" →
    /// "worker-cpu-seconds", "vadF1" → "vad-f1", "chrF" → "chrf" (the metric's
    /// name); a key with no camel hump — kebab-case already
    /// ("eos-detection-ms"), a status, a language tag ("es-ES") — is left alone.
    static func kebab(_ key: String) -> String {
        if key == "chrF" { return "chrf" }
        let characters = Array(key)
        let humped = zip(characters, characters.dropFirst()).contains { ($0.isLowercase || $0.isNumber) && $1.isUppercase }
        guard humped else { return key }
        var out = ""
        for (index, character) in characters.enumerated() {
            let previous = index > 0 ? characters[index - 1] : nil
            let next = index + 1 < characters.count ? characters[index + 1] : nil
            // A word starts at a hump (vadF1) or at an acronym's last capital before lower case (CPUSeconds).
            let startsWord = character.isUppercase && previous.map { $0.isLowercase || $0.isNumber
                || ($0.isUppercase && next?.isLowercase == true) } == true
            if startsWord { out += "-" }
            out += character.lowercased()
        }
        return out
    }

    public var markdown: String {
        func number(_ value: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", value) }
        var lines = ["# parley bench: \(pipeline)", ""]
        if let metadata {
            lines.append("Parley \(metadata.parleyVersion)\(metadata.commit.map { " (\($0.prefix(12)))" } ?? ""), \(metadata.date), "
                         + "\(metadata.hostCPU) (\(metadata.cores) cores): `\(metadata.command)`")
            lines.append("")
        }
        let audio = runs.first?.audioSeconds ?? 0
        lines.append("Corpus \(corpus): \(recordings) recordings, \(number(audio)) s of audio a run; \(counted(runs.count, "run")) "
                     + "after \(counted(warmup, "warm-up recording")); "
                     + (paced ? "fed as a live microphone (paced in real time, \(BenchRunner.chunkMs) ms chunks)." : "fed as fast as the pipeline takes it (--no-pace: no voice-to-voice)."))
        if runs.contains(where: \.interrupted) {
            lines.append("")
            lines.append("**Interrupted**: the figures cover the recordings that finished before Ctrl-C.")
        }
        for run in runs where run.failure != nil {
            lines.append("")
            lines.append("**Run \(run.run) failed**: \(run.failure!) (the recordings finished before it are kept).")
        }
        lines += ["", "## Latency (ms)", "", "| figure | n | min | mean | σ | p50 | p90 | p95 | p99 | max |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for name in figureOrder {
            let d = figures[name]!
            // A percentile is shown where at least one value lies beyond it: p90 from 10 values, p95 from 20, p99 from 100.
            func tail(_ value: Double, _ needs: Int) -> String { d.n >= needs ? number(value) : "–" }
            lines.append("| \(name) | \(d.n) | \(d.min.map { number($0) } ?? "–") | \(number(d.mean)) | \(d.standardDeviation.map { number($0) } ?? "–") | \(number(d.p50)) | "
                         + "\(tail(d.p90, 10)) | \(tail(d.p95, 20)) | \(tail(d.p99, 100)) | \(number(d.max)) |")
        }
        if let plot { lines += ["", "![Latency by stage and per segment](\(plot))"] }
        lines += ["", "## Segments", ""]
        let statuses = segments.byStatus.isEmpty ? ["final"] : segments.byStatus.keys.sorted()
        lines.append("| produced | " + statuses.joined(separator: " | ") + " |")
        lines.append("|---:|" + statuses.map { _ in "---:|" }.joined())
        lines.append("| \(segments.produced) | " + statuses.map { String(segments.byStatus[$0] ?? 0) }.joined(separator: " | ") + " |")
        if segments.speculativeRequests > 0 {
            let withdrawn = segments.speculativeRequests - segments.speculationsUsed
            let kept = segments.speculationsKept > 0
                ? "; in \(segments.speculationsKept) segments a withdrawn one's text was kept and the final transcribed only the rest (`stt.speculation-kept-ms`)" : ""
            lines.append("")
            lines.append("Speculation: \(segments.speculated) segments transcribed at a likely end, \(segments.speculativeRequests) transcriptions started, "
                         + "\(segments.speculationsUsed) became the final, \(withdrawn) withdrawn (the speaker went on)\(kept).")
        }
        if references.utterances > 0 {
            lines.append("")
            lines.append("Reference utterances: \(references.utterances); end measured for \(references.measured), "
                         + "missed (no segment) \(references.missed), merged with the next \(references.merged).")
        }
        lines += ["", "## Quality", ""]
        if let wer = quality.wordErrorRate { lines.append("- WER \(number(wer * 100, 2))% over \(quality.referenceWords) reference words") }
        for (language, value) in quality.chrF.sorted(by: { $0.key < $1.key }) { lines.append("- chrF \(language) \(number(value))") }
        if let f1 = quality.vadF1, let far = quality.vadFalseAlarmRate, let precision = quality.vadPrecision, let recall = quality.vadRecall {
            let scored = quality.vadNonSpeechFrames.map { "the \($0) non-speech frames inside the recordings (not the bench's gaps between them)" } ?? "non-speech frames"
            lines.append("- VAD frames: F1 \(number(f1, 3)), precision \(number(precision, 3)), recall \(number(recall, 3)), false alarms \(number(far * 100))% of \(scored)")
        }
        if lines.last == "" { lines.append("- no references in the corpus") }
        lines += ["", "## Resources", "",
                  "| run | recordings | audio s | stream s | wall s | × real time | CPU s parley | CPU s workers | CPU s per stream s | peak RSS MB parley | peak RSS MB workers |",
                  "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for run in runs {
            lines.append("| \(run.run) | \(run.recordings) | \(number(run.audioSeconds)) | \(number(run.streamSeconds)) | \(number(run.wallSeconds)) | \(number(run.speed, 2)) | "
                         + "\(number(run.cpuSeconds)) | \(number(run.workerCPUSeconds)) | \(run.cpuPerStreamSecond.map { number($0, 3) } ?? "–") | "
                         + "\(number(run.peakRSSMegabytes, 0)) | \(number(run.workerPeakRSSMegabytes, 0)) |")
        }
        lines += ["", Self.legend]
        return lines.joined(separator: "\n") + "\n"
    }

    static let legend = """
        Figures: `eos-detection-ms` reference speech end → the VAD's decision that the segment is over (audio time, its detector's lookahead included); `stt.ttfs-ms` \
        segment end → final transcript; `translate.ttft-ms` / `translate.time-to-final-ms` request → first token / \
        final; `tts.time-to-first-audio-ms` text in → first audio; `*.queue-wait-ms` time waiting for a request \
        slot; `voice-to-voice-ms` reference speech end → first audio at the pipeline's sink (`voice-to-text-ms` for \
        text); `services-ms` the services' time on that path as the client sees it, network included (STT request → \
        response, translation request → final, TTS request → first audio; for a transcription started at the likely end, only its time after the VAD's decision); `overhead-ms` = voice to voice − `eos-detection-ms` − services: what the framework adds once the VAD has decided; \
        `stt.speculative-requests` transcriptions started at the segment's likely ends (cloudstt `speculate`), `stt.speculation-used` 1 when the final is the last of them: requests − used were withdrawn (the speaker went on); \
        `stt.speculation-kept-ms` how much of the segment's start the final took from a withdrawn one's kept text (cloudstt `keep-speculated-ms`) instead of transcribing it again; \
        `tts.speed-up` how much faster each result was spoken to keep up with its speaker (cloudtts `overlap=compress`; 1 = not). \
        Resources: `audio s` is the measured recordings, `stream s` all the source played (warm-up, recordings and \
        the pauses between them), `× real time` stream per wall second; CPU and peak RSS of parley and of the engine \
        workers it started (Whisper, apertium), from /proc; `CPU s per stream s` both CPUs per second of source played (on 2 cores, 2 is the ceiling). Percentiles interpolate between ranks, and are shown only where at least one value lies beyond them (p90 from n = 10, p95 from 20, p99 from 100: report.json has them all); σ is the sample standard deviation; wall-time figures come from CLOCK_MONOTONIC.
        """
}
