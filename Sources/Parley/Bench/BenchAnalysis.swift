import Foundation
import ParleyCore

/// One segment the VAD cut in a measured recording, with its figures: a
/// line of `segments.jsonl`. Times are seconds from the recording's start.
public struct SegmentRecord: Sendable, Codable, Equatable {
    public var run: Int
    public var entry: String
    public var segment: UInt64
    public var start: Double
    public var end: Double
    /// Why the VAD ended it: silence, max-duration, eos…
    public var reason: String
    /// The transcript's status (final, failed, skipped); "unaccounted" when
    /// the pipeline transcribes and no result came; "segment" when it does not transcribe.
    public var status: String
    /// The reference utterance whose end this segment closed (index in the entry's `speech`).
    public var reference: Int?
    public var referenceEnd: Double?
    /// Figures in ms: `eos-detection-ms` (reference speech end → the VAD's
    /// decision that the segment is over, its lookahead included),
    /// `voice-to-voice-ms` / `voice-to-text-ms` (reference speech end → first
    /// output at the sink; paced runs only), `services-ms`, `overhead-ms`
    /// (voice to voice less end-of-speech detection and services), and
    /// every stage's own `parley/latency` figures as `STAGE.FIGURE`
    /// (`stt.ttfs-ms`, `translate.ttft-ms`, `tts.time-to-first-audio-ms`, `stt.queue-wait-ms`…).
    public var figures: [String: Double]
    public var transcript: String?
    /// Final translations by language.
    public var translations: [String: String]?
    /// CLOCK_MONOTONIC instants (ns) of a paced run, to match other logs by
    /// time: `reference-speech-end` when the corpus's speech end was played,
    /// `first-output` when the pipeline's sink saw the segment's first output.
    public var stamps: [String: UInt64]?
}

/// How one measured recording scored in one run.
public struct EntryScore: Sendable, Codable, Equatable {
    public var run: Int
    public var entry: String
    public var wordErrors: Int?
    public var referenceWords: Int?
    /// chrF (0–100) by language.
    public var chrF: [String: Double]?
    /// 10 ms frames: speech in the reference and the VAD's decisions.
    public var frames: FrameCounts?
    public var references = 0
    public var missed = 0
    public var merged = 0
}

/// Frame counts on the 10 ms grid of `../shared/vadbench` (its `prf`).
public struct FrameCounts: Sendable, Codable, Equatable {
    public var truePositives = 0
    public var falsePositives = 0
    public var falseNegatives = 0
    public var trueNegatives = 0

    public static func + (a: FrameCounts, b: FrameCounts) -> FrameCounts {
        FrameCounts(truePositives: a.truePositives + b.truePositives, falsePositives: a.falsePositives + b.falsePositives,
                    falseNegatives: a.falseNegatives + b.falseNegatives, trueNegatives: a.trueNegatives + b.trueNegatives)
    }
    public var precision: Double { ratio(truePositives, truePositives + falsePositives) }
    public var recall: Double { ratio(truePositives, truePositives + falseNegatives) }
    public var f1: Double { precision + recall > 0 ? 2 * precision * recall / (precision + recall) : 0 }
    /// Share of non-speech frames called speech.
    public var falseAlarmRate: Double { ratio(falsePositives, falsePositives + trueNegatives) }
    private func ratio(_ a: Int, _ b: Int) -> Double { b == 0 ? 0 : Double(a) / Double(b) }

    /// Counts `hypothesis` against `reference`, frame by frame.
    public init(reference: [Bool], hypothesis: [Bool]) {
        for (index, speech) in reference.enumerated() {
            let called = index < hypothesis.count && hypothesis[index]
            switch (speech, called) {
            case (true, true): truePositives += 1
            case (false, true): falsePositives += 1
            case (true, false): falseNegatives += 1
            case (false, false): trueNegatives += 1
            }
        }
    }

    public init(truePositives: Int = 0, falsePositives: Int = 0, falseNegatives: Int = 0, trueNegatives: Int = 0) {
        self.truePositives = truePositives
        self.falsePositives = falsePositives
        self.falseNegatives = falseNegatives
        self.trueNegatives = trueNegatives
    }
}

/// Turns one run's observations into segment records and entry scores.
public struct BenchAnalysis {
    public var corpus: Corpus
    public var stream: BenchStream
    public var run: Int

    public init(corpus: Corpus, stream: BenchStream, run: Int) {
        self.corpus = corpus
        self.stream = stream
        self.run = run
    }

    /// Records for every measured recording the run finished. When it was
    /// interrupted, a recording counts only if the source played all of it
    /// and each of its segments has its results: nothing half-done is reported.
    public func analyze(_ observed: RunObservations) -> (segments: [SegmentRecord], entries: [EntryScore]) {
        let bySegment = assign(Array(observed.segments.values))
        // Only languages the pipeline translates into are scored.
        let translated = Set(observed.translations.values.flatMap { $0.values.map { LanguageNames.primary($0.language) } })
        var records: [SegmentRecord] = [], scores: [EntryScore] = []
        for (index, placement) in stream.placements.enumerated() where placement.measured {
            let segments = (bySegment[index] ?? []).sorted { $0.start < $1.start }
            if observed.interrupted || observed.failure != nil {
                let played = observed.position >= placement.end + observed.silenceMs / 1000 + 0.1
                guard played, segments.allSatisfy({ isComplete($0.id, observed) }) else { continue }
            }
            let entry = corpus.entries[placement.entry]
            let references = (entry.speech ?? []).map { SpeechSpan(start: $0.start + placement.offset, end: $0.end + placement.offset) }
            let (matches, missed, merged) = Self.match(references, segments)
            var score = EntryScore(run: run, entry: entry.id, references: references.count, missed: missed, merged: merged)
            for segment in segments {
                records.append(record(segment, placement: placement, entry: entry,
                                      reference: matches[segment.id].map { ($0, references[$0].end) }, observed))
            }
            scoreText(&score, entry: entry, segments: segments, translatedLanguages: translated, observed)
            score.frames = frames(entry: entry, placement: placement, segments: segments, prefixMs: observed.prefixPaddingMs)
            scores.append(score)
        }
        return (records, scores)
    }

    /// Each segment goes to the recording it overlaps most (in a pause: the one before).
    func assign(_ segments: [RunObservations.Segment]) -> [Int: [RunObservations.Segment]] {
        var result: [Int: [RunObservations.Segment]] = [:]
        for segment in segments {
            var best: (index: Int, overlap: Double)?
            for (index, placement) in stream.placements.enumerated() {
                let overlap = min(segment.end, placement.end) - max(segment.start, placement.offset)
                if overlap > 0, overlap > best?.overlap ?? 0 { best = (index, overlap) }
            }
            let index = best?.index ?? stream.placements.lastIndex { $0.offset <= segment.start }
            if let index { result[index, default: []].append(segment) }
        }
        return result
    }

    func isComplete(_ id: UInt64, _ observed: RunObservations) -> Bool {
        (!observed.stages.contains("stt") || observed.transcripts[id] != nil)
            && (!observed.stages.contains("translate") || observed.translations[id] != nil)
    }

    /// Which segment closed each reference utterance, as vadbench's
    /// `segment_metrics` decides it: the segment active at the utterance's
    /// end, else the last one overlapping it; if that segment is still open
    /// when the next utterance starts, the two were merged and the end is
    /// not measured. Returns reference index by segment, missed and merged counts.
    static func match(_ references: [SpeechSpan], _ segments: [RunObservations.Segment])
        -> (matches: [UInt64: Int], missed: Int, merged: Int) {
        var matches: [UInt64: Int] = [:]
        var missed = 0, merged = 0
        for (index, reference) in references.enumerated() {
            let nextStart = index + 1 < references.count ? references[index + 1].start : .infinity
            let overlapping = segments.filter { $0.start < reference.end && $0.end > reference.start }
            guard let last = overlapping.last else { missed += 1; continue }
            let closing = overlapping.first { $0.start <= reference.end && reference.end < $0.end } ?? last
            if closing.end > nextStart { merged += 1; continue }
            matches[closing.id] = index
        }
        return (matches, missed, merged)
    }

    func record(_ segment: RunObservations.Segment, placement: BenchStream.Placement, entry: CorpusEntry,
                reference: (index: Int, end: Double)?, _ observed: RunObservations) -> SegmentRecord {
        var figures: [String: Double] = [:]
        var stamps: [String: UInt64] = [:]
        for (stage, values) in observed.latency[segment.id] ?? [:] {
            for (name, value) in values { figures["\(stage).\(name)"] = value }
        }
        if let reference {
            // To the VAD's decision, as vadbench's contract measures it: where
            // it cut (`end`) is its lookahead earlier than the audio it had
            // heard by then, which the element's own eos-detection-ms counts.
            let decided = (observed.latency[segment.id]?["vad"]?["eos-detection-ms"]).map { segment.speechEnd + $0 / 1000 } ?? segment.end
            let eosDetection = (decided - reference.end) * 1000
            figures["eos-detection-ms"] = eosDetection
            if observed.paced, let startedAt = observed.startedAt, let output = observed.outputs[segment.id] {
                let spokenEnd = Double(startedAt) + reference.end * 1e9
                let delay = (Double(output.at) - spokenEnd) / 1e6
                stamps["reference-speech-end"] = UInt64(spokenEnd.rounded())
                stamps["first-output"] = output.at
                figures[output.kind == "audio" ? "voice-to-voice-ms" : "voice-to-text-ms"] = delay
                if let services = Self.services(figures, stages: observed.stages) {
                    figures["services-ms"] = services
                    // From the VAD's decision, not from the nominal silence: a
                    // segment closed early (at the end of a recording) or late
                    // (the detector's doubt), or a reference end a little off,
                    // is end-of-speech detection's, which has its own figure.
                    figures["overhead-ms"] = delay - eosDetection - services
                }
            }
        }
        let transcript = observed.transcripts[segment.id]
        let status = observed.stages.contains("stt") ? transcript?.status.description ?? "unaccounted" : "segment"
        var translations: [String: String] = [:]
        for result in (observed.translations[segment.id] ?? [:]).values where result.status == .final {
            translations[LanguageNames.primary(result.language)] = result.text
        }
        return SegmentRecord(run: run, entry: entry.id, segment: segment.id, start: segment.start - placement.offset,
                             end: segment.end - placement.offset, reason: segment.reason, status: status,
                             reference: reference?.index, referenceEnd: reference.map { $0.end - placement.offset },
                             figures: figures, transcript: transcript?.status == .final ? transcript?.text : nil,
                             translations: translations.isEmpty ? nil : translations, stamps: stamps.isEmpty ? nil : stamps)
    }

    /// The services' own time on the critical path from speech end to
    /// output, as the client sees it (the network is not the framework's):
    /// the STT request to its response, the translation request to its
    /// final (BenchRunner turns the translator's cache off, so there is
    /// one), and the TTS request to its first audio. nil when a stage the
    /// pipeline has did not report (or reports per language: no one path).
    static func services(_ figures: [String: Double], stages: Set<String>) -> Double? {
        var total = 0.0
        if stages.contains("stt") {
            // A transcription started at the likely end ran partly before the
            // VAD's decision: on the path from speech end, only what was left
            // of it after the decision counts (ttfs-ms, from the decision).
            let speculated = figures["stt.speculation-used"] == 1
            guard let stt = speculated ? figures["stt.ttfs-ms"] : figures["stt.processing-ms"] else { return nil }
            total += stt
        }
        if stages.contains("translate") {
            guard let translate = figures["translate.time-to-final-ms"] else { return nil }
            total += translate
        }
        if stages.contains("tts") {
            guard let firstAudio = figures["tts.time-to-first-audio-ms"] else { return nil }
            total += firstAudio - (figures["tts.queue-wait-ms"] ?? 0)
        }
        return total
    }

    func scoreText(_ score: inout EntryScore, entry: CorpusEntry, segments: [RunObservations.Segment],
                   translatedLanguages: Set<String>, _ observed: RunObservations) {
        if let reference = entry.text, observed.stages.contains("stt") {
            let hypothesis = segments.compactMap { observed.transcripts[$0.id] }.filter { $0.status == .final }.map(\.text)
            let wer = WordErrorRate.score(reference: reference, hypothesis: hypothesis.joined(separator: " "))
            score.wordErrors = wer.errors
            score.referenceWords = wer.referenceWords
        }
        guard let references = entry.translations, observed.stages.contains("translate") else { return }
        var byLanguage: [String: [String]] = [:]
        for segment in segments {
            for result in (observed.translations[segment.id] ?? [:]).values.sorted(by: { $0.source < $1.source }) where result.status == .final {
                byLanguage[LanguageNames.primary(result.language), default: []].append(result.text)
            }
        }
        var chrF: [String: Double] = [:]
        for (language, reference) in references {
            let primary = LanguageNames.primary(language)
            guard translatedLanguages.contains(primary) else { continue }
            chrF[primary] = CharacterFScore.score(reference: reference, hypothesis: (byLanguage[primary] ?? []).joined(separator: " "))
        }
        score.chrF = chrF.isEmpty ? nil : chrF
    }

    /// The VAD's speech frames against the reference's, on a 10 ms grid
    /// over the recording. The reference is the entry's frame labels, else
    /// its speech spans. The VAD's speech in a segment is taken from the
    /// segment's start plus the prefix padding to its speech end (the VAD
    /// reports no frame decisions on the bus).
    func frames(entry: CorpusEntry, placement: BenchStream.Placement, segments: [RunObservations.Segment],
                prefixMs: Double) -> FrameCounts? {
        let count = Int((placement.duration * 100).rounded(.down))
        var reference: [Bool]
        if let labels = corpus.labelsPath(entry), let text = try? String(contentsOfFile: labels, encoding: .utf8) {
            reference = text.split(separator: "\n").filter { !$0.hasPrefix("#") }
                .compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }.map { $0 != 0 }
            reference = Array(reference.prefix(count)) + Array(repeating: false, count: max(0, count - reference.count))
        } else if let spans = entry.speech {
            reference = Self.grid(spans.map { ($0.start, $0.end) }, count: count)
        } else {
            return nil
        }
        let called = segments.map { segment -> (Double, Double) in
            let end = segment.speechEnd - placement.offset
            return (min(segment.start - placement.offset + prefixMs / 1000, end), end)
        }
        return FrameCounts(reference: reference, hypothesis: Self.grid(called, count: count))
    }

    /// Frames (10 ms) whose centre lies in one of the spans.
    static func grid(_ spans: [(Double, Double)], count: Int) -> [Bool] {
        (0..<count).map { frame in
            let centre = (Double(frame) + 0.5) / 100
            return spans.contains { centre >= $0.0 && centre < $0.1 }
        }
    }
}
