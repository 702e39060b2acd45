import Foundation
import ParleyCore

/// Makes corpus manifests: from folder layouts others publish (LibriSpeech,
/// Common Voice) and from recorded speech Debian ships (Asterisk's prompts,
/// pocketsphinx-testdata's LibriVox readings), plus "conversations" joined
/// from those with natural pauses. Importers refer to the audio where it is
/// (absolute paths); conversations are written as WAV files beside their manifest.
public enum CorpusBuilder {
    // MARK: importers

    /// The LibriSpeech layout: `SPEAKER/CHAPTER/SPEAKER-CHAPTER.trans.txt`,
    /// each line `UTTERANCE-ID TEXT`, beside `UTTERANCE-ID.flac`.
    public static func librispeech(root: String) throws(CorpusError) -> [CorpusEntry] {
        let rootURL = URL(fileURLWithPath: root).standardizedFileURL
        guard let walker = FileManager.default.enumerator(at: rootURL, includingPropertiesForKeys: nil) else {
            throw CorpusError(file: root, line: 0, "cannot read the folder")
        }
        let transcripts = walker.compactMap { $0 as? URL }.filter { $0.lastPathComponent.hasSuffix(".trans.txt") }
            .sorted { $0.path < $1.path }
        guard !transcripts.isEmpty else {
            throw CorpusError(file: root, line: 0, "no *.trans.txt under it: not the LibriSpeech layout (SPEAKER/CHAPTER/SPEAKER-CHAPTER.trans.txt)")
        }
        var entries: [CorpusEntry] = []
        for transcript in transcripts {
            let text: String
            do { text = try String(contentsOf: transcript, encoding: .utf8) } catch {
                throw CorpusError(file: transcript.path, line: 0, "cannot read it")
            }
            for (index, line) in text.split(separator: "\n").enumerated() {
                guard let space = line.firstIndex(of: " ") else {
                    throw CorpusError(file: transcript.path, line: index + 1, "expected \"UTTERANCE-ID TEXT\"")
                }
                let id = String(line[..<space])
                let audio = transcript.deletingLastPathComponent().appendingPathComponent(id + ".flac").path
                guard FileManager.default.fileExists(atPath: audio) else {
                    throw CorpusError(file: transcript.path, line: index + 1, "\(id).flac is not beside it")
                }
                entries.append(CorpusEntry(id: id, audio: audio, text: String(line[line.index(after: space)...]).lowercased()))
            }
        }
        return entries
    }

    /// The Common Voice layout: a TSV (`validated.tsv`, `test.tsv`…) whose
    /// header names `path` and `sentence`, and the clips in `clips/` beside it.
    public static func commonVoice(tsv: String) throws(CorpusError) -> [CorpusEntry] {
        let text: String
        do { text = try String(contentsOfFile: tsv, encoding: .utf8) } catch {
            throw CorpusError(file: tsv, line: 0, "cannot read it")
        }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        guard let header = lines.first?.split(separator: "\t", omittingEmptySubsequences: false).map(String.init),
              let pathColumn = header.firstIndex(of: "path"), let sentenceColumn = header.firstIndex(of: "sentence") else {
            throw CorpusError(file: tsv, line: 1, "the header names no \"path\" and \"sentence\" columns: not a Common Voice TSV")
        }
        let clips = URL(fileURLWithPath: tsv).standardizedFileURL.deletingLastPathComponent().appendingPathComponent("clips")
        var entries: [CorpusEntry] = []
        for (index, line) in lines.enumerated().dropFirst() {
            let cells = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard cells.count > max(pathColumn, sentenceColumn) else {
                throw CorpusError(file: tsv, line: index + 1, "\(cells.count) cells, the header has \(header.count)")
            }
            let audio = clips.appendingPathComponent(cells[pathColumn]).path
            guard FileManager.default.fileExists(atPath: audio) else {
                throw CorpusError(file: tsv, line: index + 1, "clips/\(cells[pathColumn]) does not exist")
            }
            entries.append(CorpusEntry(id: Corpus.defaultID(cells[pathColumn]), audio: audio, text: cells[sentenceColumn]))
        }
        return entries
    }

    // MARK: Debian's recorded speech

    public static let asteriskSounds = "/usr/share/asterisk/sounds"
    public static let librivoxFolder = "/usr/share/pocketsphinx/test/data/librivox"

    /// Asterisk's English prompts (asterisk-core-sounds-en-wav) with their
    /// transcripts (core-sounds-en.txt) and, as reference translations, the
    /// same prompts' texts from every other core-sounds-LANG package
    /// installed (es, fr, it). Non-speech entries ("[ascending tones]") are
    /// left out; `limit` takes the first ones in the listing's order.
    public static func asterisk(limit: Int? = nil) throws(CorpusError) -> [CorpusEntry] {
        let english = try promptTexts("en")
        var translations: [String: [String: String]] = [:]
        for language in ["es", "fr", "it"] {
            translations[language] = Dictionary((try? promptTexts(language)) ?? [], uniquingKeysWith: { first, _ in first })
        }
        var entries: [CorpusEntry] = []
        for (name, text) in english where !text.contains("[") {
            let audio = "\(asteriskSounds)/en/\(name).wav"
            guard FileManager.default.fileExists(atPath: audio) else { continue }
            var references: [String: String] = [:]
            for (language, texts) in translations { if let translated = texts[name] { references[language] = translated } }
            var entry = CorpusEntry(id: name, audio: audio, text: text, translations: references.isEmpty ? nil : references)
            if let span = try? speechSpan(of: audio) { entry.speech = [span] }
            entries.append(entry)
            if let limit, entries.count >= limit { break }
        }
        guard !entries.isEmpty else {
            throw CorpusError(file: "\(asteriskSounds)/en", line: 0, "no prompts: install asterisk-core-sounds-en-wav and asterisk-core-sounds-en")
        }
        return entries
    }

    /// The prompts' texts of core-sounds-LANG.txt.gz, in the listing's order ("name: text").
    static func promptTexts(_ language: String) throws(CorpusError) -> [(String, String)] {
        let listing = "/usr/share/doc/asterisk-core-sounds-\(language)/core-sounds-\(language).txt.gz"
        guard FileManager.default.fileExists(atPath: listing) else {
            throw CorpusError(file: listing, line: 0, "missing: install asterisk-core-sounds-\(language)")
        }
        let text = try gunzip(listing)
        return text.split(separator: "\n").compactMap { line in
            guard !line.hasPrefix(";"), let colon = line.range(of: ": ") else { return nil }
            let value = line[colon.upperBound...].trimmingCharacters(in: .whitespaces)
            return value.isEmpty ? nil : (String(line[..<colon.lowerBound]), value)
        }
    }

    static func gunzip(_ path: String) throws(CorpusError) -> String {
        let child: ChildProcess
        do { child = try ChildProcess(executable: "/bin/gzip", arguments: ["-dc", path]) } catch {
            throw CorpusError(file: path, line: 0, "cannot run gzip: \(error)")
        }
        close(child.input)
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(child.output, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[0..<count]
        }
        child.terminate()
        return String(decoding: bytes, as: UTF8.self)
    }

    /// pocketsphinx-testdata's LibriVox readings with the transcripts it ships.
    public static func librivox() throws(CorpusError) -> [CorpusEntry] {
        let listing = "\(librivoxFolder)/transcription"
        let text: String
        do { text = try String(contentsOfFile: listing, encoding: .utf8) } catch {
            throw CorpusError(file: listing, line: 0, "missing: install pocketsphinx-testdata")
        }
        return text.split(separator: "\n").compactMap { line in
            // "<s> he was not an ill disposed young man </s> (sense_and_sensibility_01_austen_64kb-0880)"
            guard let open = line.lastIndex(of: "("), let close = line.lastIndex(of: ")"), open < close else { return nil }
            let id = String(line[line.index(after: open)..<close])
            let words = line[..<open].replacingOccurrences(of: "<s>", with: "").replacingOccurrences(of: "</s>", with: "")
            let audio = "\(librivoxFolder)/\(id).wav"
            var entry = CorpusEntry(id: id, audio: audio, text: words.trimmingCharacters(in: .whitespaces))
            if let span = try? speechSpan(of: audio) { entry.speech = [span] }
            return entry
        }
    }

    // MARK: conversations

    /// How utterances are joined: pauses between them and whether each clip
    /// is cut to its speech first (so the pause is all the silence there is).
    public struct Joining: Sendable {
        public var name: String
        public var pauses: ClosedRange<Double>
        public var trimmed: Bool

        /// Turns of a conversation: 0.5–3 s between clips as recorded (their quiet edges included).
        public static let conversation = Joining(name: "conversation", pauses: 0.5...3.0, trimmed: false)
        /// A talk without pauses for the silence rule: clips cut to their
        /// speech, 150–280 ms between one's last sound and the next's first.
        public static let talk = Joining(name: "talk", pauses: 0.15...0.28, trimmed: true)
        /// A thinking speaker: conversation turns, each cut at its comma with
        /// 600–900 ms of silence there (longer than the 500 ms silence rule,
        /// so a VAD cuts the sentence in two).
        public static let thinking = Joining(name: "thinking", pauses: 0.5...3.0, trimmed: false, thinkingPauses: 0.6...0.9)

        /// Silence put at each utterance's comma; nil leaves utterances whole.
        public var thinkingPauses: ClosedRange<Double>?

        public init(name: String, pauses: ClosedRange<Double>, trimmed: Bool, thinkingPauses: ClosedRange<Double>? = nil) {
            self.name = name
            self.pauses = pauses
            self.trimmed = trimmed
            self.thinkingPauses = thinkingPauses
        }
    }

    /// Joins the utterances into conversations of `perConversation` each,
    /// with pauses drawn from `joining.pauses` (a fixed seed: the same corpus
    /// every time), written as 16 kHz WAVs in `folder`. Each conversation records
    /// where every utterance's speech starts and ends, its transcript (the
    /// texts joined) and its reference translations.
    public static func conversations(of utterances: [CorpusEntry], perConversation: Int, folder: String,
                                     seed: UInt64 = 1, joining: Joining = .conversation) throws(CorpusError) -> [CorpusEntry] {
        var random = SplitMix(seed: seed)
        var conversations: [CorpusEntry] = []
        let rate = CorpusAudio.rate
        for (number, group) in stride(from: 0, to: utterances.count, by: perConversation)
            .map({ Array(utterances[$0..<min($0 + perConversation, utterances.count)]) }).enumerated() {
            var samples: [Int16] = Array(repeating: 0, count: rate / 2)
            var spans: [SpeechSpan] = [], texts: [String] = [], translations: [String: [String]] = [:]
            for (index, utterance) in group.enumerated() {
                if index > 0 {
                    let pause = joining.pauses.lowerBound + (joining.pauses.upperBound - joining.pauses.lowerBound) * random.nextUnit()
                    samples += Array(repeating: 0, count: Int(pause * Double(rate)))
                }
                var clip = try CorpusAudio.samples(utterance.audio)
                var span = utterance.speech?.first.map { SpeechSpan(start: $0.start, end: $0.end) }
                    ?? speechSpan(of: clip, rate: rate)
                if let thinking = joining.thinkingPauses,
                   let cut = commaPause(in: clip, text: utterance.text ?? "", span: span, rate: rate) {
                    let pause = thinking.lowerBound + (thinking.upperBound - thinking.lowerBound) * random.nextUnit()
                    clip = Array(clip[..<cut]) + Array(repeating: 0, count: Int(pause * Double(rate))) + Array(clip[cut...])
                    span.end += pause
                }
                if joining.trimmed {
                    let first = max(0, min(clip.count, Int(span.start * Double(rate))))
                    let last = max(first, min(clip.count, Int((span.end * Double(rate)).rounded(.up))))
                    clip = Array(clip[first..<last])
                    span = SpeechSpan(start: 0, end: Double(clip.count) / Double(rate))
                }
                let offset = Double(samples.count) / Double(rate)
                spans.append(SpeechSpan(start: ((offset + span.start) * 1000).rounded() / 1000, end: ((offset + span.end) * 1000).rounded() / 1000))
                samples += clip
                texts.append(utterance.text ?? "")
                for (language, text) in utterance.translations ?? [:] { translations[language, default: []].append(text) }
            }
            samples += Array(repeating: 0, count: rate)
            let name = String(format: "%@-%02d.wav", joining.name, number + 1)
            let path = URL(fileURLWithPath: folder).appendingPathComponent(name).path
            do { try WAVEncoder.encode(samples, rate: rate).write(to: URL(fileURLWithPath: path)) } catch {
                throw CorpusError(file: path, line: 0, "cannot write it: \((error as NSError).localizedDescription)")
            }
            let complete = translations.filter { $0.value.count == group.count }.mapValues { $0.joined(separator: " ") }
            conversations.append(CorpusEntry(id: String(name.dropLast(4)), audio: name, text: texts.joined(separator: " "),
                                             translations: complete.isEmpty ? nil : complete, speech: spans))
        }
        return conversations
    }

    /// Where in a clip the speaker says the comma of `text`: the middle of
    /// the quiet stretch (30 ms or more, 25 dB under the loudest frame)
    /// inside the speech whose place is nearest the comma's place in the
    /// text. nil without a comma or such a stretch.
    static func commaPause(in clip: [Int16], text: String, span: SpeechSpan, rate: Int) -> Int? {
        guard let comma = text.firstIndex(of: ","), text.count > 1 else { return nil }
        let share = Double(text.distance(from: text.startIndex, to: comma)) / Double(text.count)
        let frame = max(1, rate / 100)
        let levels = stride(from: 0, to: clip.count, by: frame).map { start -> Double in
            let slice = clip[start..<min(clip.count, start + frame)]
            return (slice.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(slice.count)).squareRoot()
        }
        let quiet = (levels.max() ?? 0) * pow(10, -25.0 / 20)
        let first = Int(span.start * 100) + 1, last = min(levels.count - 1, Int(span.end * 100) - 1)
        guard first < last else { return nil }
        var runs: [ClosedRange<Int>] = []
        var runStart: Int?
        for index in first...last {
            if levels[index] < quiet {
                if runStart == nil { runStart = index }
            } else if let start = runStart {
                if index - start >= 3 { runs.append(start...(index - 1)) }
                runStart = nil
            }
        }
        let target = Double(first) + share * Double(last - first)
        let best = runs.min { abs(Double($0.lowerBound + $0.upperBound) / 2 - target) < abs(Double($1.lowerBound + $1.upperBound) / 2 - target) }
        return best.map { ($0.lowerBound + $0.upperBound) / 2 * frame }
    }

    static func speechSpan(of path: String) throws(CorpusError) -> SpeechSpan {
        speechSpan(of: try CorpusAudio.samples(path), rate: CorpusAudio.rate)
    }

    /// Where speech starts and ends in a clip of one utterance: the first and
    /// last 10 ms frame whose level is within 30 dB of the clip's loudest
    /// frame (and above -60 dBFS). Prompts recorded in a studio or read
    /// aloud have quiet edges, so this finds the talker's first and last
    /// sound to within a frame or two; it is the reference the end-of-speech
    /// delay is measured from.
    public static func speechSpan(of samples: [Int16], rate: Int) -> SpeechSpan {
        let frame = max(1, rate / 100)
        let levels = stride(from: 0, to: samples.count, by: frame).map { start -> Double in
            let slice = samples[start..<min(samples.count, start + frame)]
            return (slice.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(slice.count)).squareRoot()
        }
        let loudest = levels.max() ?? 0
        let threshold = max(loudest * pow(10, -30.0 / 20), 32_768 * pow(10, -60.0 / 20))
        guard let first = levels.firstIndex(where: { $0 >= threshold }), let last = levels.lastIndex(where: { $0 >= threshold }) else {
            return SpeechSpan(start: 0, end: Double(samples.count) / Double(rate))
        }
        return SpeechSpan(start: Double(first * frame) / Double(rate),
                          end: min(Double(samples.count), Double((last + 1) * frame)) / Double(rate))
    }
}

/// SplitMix64: a small seeded generator, so a corpus (or a fuzzer's run) is
/// the same on every machine.
public struct SplitMix: Sendable {
    public var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    public mutating func nextUnit() -> Double { Double(next() >> 11) / Double(1 << 53) }
    /// Uniform in 0..<bound (0 for a bound of 1 or less).
    public mutating func below(_ bound: Int) -> Int { bound <= 1 ? 0 : Int(next() % UInt64(bound)) }
}
