import Foundation

/// One recording of a benchmark corpus and what is known of it.
///
/// A corpus is a manifest file, JSON Lines or TSV (chosen by the extension:
/// `.jsonl`, `.tsv`). Paths in it are relative to the manifest's folder.
///
/// JSON Lines, one object per line (blank lines and lines starting with `#`
/// are skipped):
///
///     {"id": "agent-pass", "audio": "en/agent-pass.wav",
///      "text": "Please enter your password followed by the pound key.",
///      "translations": {"es": "Por favor, introduzca su contraseña…"},
///      "speech": [[0.21, 2.94]], "labels": "labels/agent-pass.txt"}
///
/// - `audio` (required): any format GStreamer decodes.
/// - `id`: defaults to the audio file's name without its extension.
/// - `text`: the reference transcript (scored by WER).
/// - `translations`: reference translations by language (scored by chrF).
/// - `speech`: where each utterance's speech starts and ends, in seconds
///   (end-of-speech detection delay and voice to voice need these).
/// - `labels`: a file of 10 ms frame labels, one `0` or `1` per line (`#`
///   comments), as `../shared/vadbench` writes them (VAD frame F1).
///
/// TSV: a header row naming the columns `audio`, `id`, `text`, `speech`
/// (`start-end` pairs in seconds separated by `;`, e.g. `0.21-2.94;3.5-6`),
/// `labels`, and one `translation:LANG` column per reference language.
///
/// Or, the simplest "recording + where speech ends" (Pipecat's
/// stt-benchmark harness writes it so): no header, one recording a line,
/// `talk.wav<TAB>2.94,6.0,9.75` — the seconds at which each utterance's
/// speech ends. Starts are not known: each utterance is taken to start
/// where the one before it ended (the first at 0), which is all the
/// end-of-speech figures and voice to voice need.
public struct CorpusEntry: Sendable, Equatable, Codable {
    public var id: String
    public var audio: String
    public var text: String?
    public var translations: [String: String]?
    public var speech: [SpeechSpan]?
    public var labels: String?

    public init(id: String, audio: String, text: String? = nil, translations: [String: String]? = nil,
                speech: [SpeechSpan]? = nil, labels: String? = nil) {
        self.id = id
        self.audio = audio
        self.text = text
        self.translations = translations
        self.speech = speech
        self.labels = labels
    }
}

/// Where one utterance's speech is, in seconds from the recording's start.
public struct SpeechSpan: Sendable, Equatable, Codable {
    public var start: Double
    public var end: Double
    public init(start: Double, end: Double) {
        self.start = start
        self.end = end
    }

    // In JSON a span is a pair: [start, end].
    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        start = try container.decode(Double.self)
        end = try container.decode(Double.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(start)
        try container.encode(end)
    }
}

public struct CorpusError: Error, Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var message: String
    public init(file: String, line: Int, _ message: String) {
        self.file = file
        self.line = line
        self.message = message
    }
    public var description: String { line > 0 ? "\(file):\(line): \(message)" : "\(file): \(message)" }
}

public struct Corpus: Sendable {
    /// The manifest, as given.
    public var manifest: String
    public var entries: [CorpusEntry]

    public init(manifest: String, entries: [CorpusEntry]) {
        self.manifest = manifest
        self.entries = entries
    }

    /// Reads a manifest; every error names the file and line, and audio
    /// files that do not exist are errors here, not halfway through a run.
    public init(manifest path: String) throws(CorpusError) {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw CorpusError(file: path, line: 0, "cannot read the manifest: \((error as NSError).localizedDescription)")
        }
        let entries: [(line: Int, entry: CorpusEntry)]
        switch URL(fileURLWithPath: path).pathExtension.lowercased() {
        case "jsonl", "json": entries = try Self.parseJSONLines(text, file: path)
        case "tsv": entries = try Self.parseTSV(text, file: path)
        default: throw CorpusError(file: path, line: 0, "a manifest is .jsonl or .tsv")
        }
        guard !entries.isEmpty else { throw CorpusError(file: path, line: 0, "the manifest lists no recordings") }
        var seen: [String: Int] = [:]
        for (line, entry) in entries {
            if let first = seen[entry.id] { throw CorpusError(file: path, line: line, "id \"\(entry.id)\" is also on line \(first)") }
            seen[entry.id] = line
            let audio = Self.resolve(entry.audio, relativeTo: path)
            guard FileManager.default.isReadableFile(atPath: audio) else {
                throw CorpusError(file: path, line: line, "audio \(entry.audio): no such readable file (\(audio))")
            }
            if let labels = entry.labels, !FileManager.default.isReadableFile(atPath: Self.resolve(labels, relativeTo: path)) {
                throw CorpusError(file: path, line: line, "labels \(labels): no such readable file")
            }
            for span in entry.speech ?? [] where !(span.start >= 0 && span.end > span.start && span.end.isFinite) {
                throw CorpusError(file: path, line: line, "speech span [\(span.start), \(span.end)]: start must be ≥ 0 and below end")
            }
        }
        self.init(manifest: path, entries: entries.map(\.entry))
    }

    /// A path from the manifest, made absolute against the manifest's folder.
    public static func resolve(_ path: String, relativeTo manifest: String) -> String {
        if path.hasPrefix("/") { return path }
        return URL(fileURLWithPath: manifest).deletingLastPathComponent().appendingPathComponent(path).standardizedFileURL.path
    }

    public func audioPath(_ entry: CorpusEntry) -> String { Self.resolve(entry.audio, relativeTo: manifest) }
    public func labelsPath(_ entry: CorpusEntry) -> String? { entry.labels.map { Self.resolve($0, relativeTo: manifest) } }

    static func defaultID(_ audio: String) -> String {
        URL(fileURLWithPath: audio).deletingPathExtension().lastPathComponent
    }

    static func parseJSONLines(_ text: String, file: String) throws(CorpusError) -> [(line: Int, entry: CorpusEntry)] {
        struct Line: Decodable {
            var id: String?
            var audio: String?
            var text: String?
            var translations: [String: String]?
            var speech: [SpeechSpan]?
            var labels: String?
        }
        var entries: [(Int, CorpusEntry)] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            let decoded: Line
            do {
                decoded = try JSONDecoder().decode(Line.self, from: Data(line.utf8))
            } catch {
                throw CorpusError(file: file, line: index + 1, "not a manifest object: \(Self.explain(error))")
            }
            guard let audio = decoded.audio, !audio.isEmpty else {
                throw CorpusError(file: file, line: index + 1, "no \"audio\": every line names its recording")
            }
            entries.append((index + 1, CorpusEntry(id: decoded.id ?? defaultID(audio), audio: audio, text: decoded.text,
                                                   translations: decoded.translations, speech: decoded.speech,
                                                   labels: decoded.labels)))
        }
        return entries
    }

    static func parseTSV(_ text: String, file: String) throws(CorpusError) -> [(line: Int, entry: CorpusEntry)] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().map {
            (number: $0.offset + 1, text: String($0.element).trimmingCharacters(in: CharacterSet(charactersIn: "\r")))
        }.filter { !$0.text.isEmpty && !$0.text.hasPrefix("#") }
        guard !lines.isEmpty else { return [] }
        if let ends = try parseEndsTSV(lines, file: file) { return ends }
        let header = lines.removeFirst()
        let columns = header.text.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        let known = ["audio", "id", "text", "speech", "labels"]
        for column in columns where !known.contains(column) && !column.hasPrefix("translation:") {
            throw CorpusError(file: file, line: header.number,
                              "unknown column \"\(column)\" (columns: \(known.joined(separator: ", ")), translation:LANG)")
        }
        guard let audioColumn = columns.firstIndex(of: "audio") else {
            throw CorpusError(file: file, line: header.number, "the header has no \"audio\" column")
        }
        var entries: [(Int, CorpusEntry)] = []
        for line in lines {
            let cells = line.text.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard cells.count == columns.count else {
                throw CorpusError(file: file, line: line.number, "\(cells.count) cells, the header has \(columns.count)")
            }
            var entry = CorpusEntry(id: "", audio: cells[audioColumn])
            for (column, cell) in zip(columns, cells) where !cell.isEmpty {
                switch column {
                case "id": entry.id = cell
                case "text": entry.text = cell
                case "labels": entry.labels = cell
                case "speech":
                    entry.speech = try cell.split(separator: ";").map { pair throws(CorpusError) in
                        let bounds = pair.split(separator: "-").map { Double($0.trimmingCharacters(in: .whitespaces)) }
                        guard bounds.count == 2, let start = bounds[0], let end = bounds[1] else {
                            throw CorpusError(file: file, line: line.number, "speech \"\(pair)\": write start-end in seconds, e.g. 0.21-2.94")
                        }
                        return SpeechSpan(start: start, end: end)
                    }
                case let name where name.hasPrefix("translation:"):
                    entry.translations = (entry.translations ?? [:]).merging([String(name.dropFirst(12)): cell]) { $1 }
                default: break
                }
            }
            guard !entry.audio.isEmpty else { throw CorpusError(file: file, line: line.number, "the audio cell is empty") }
            if entry.id.isEmpty { entry.id = defaultID(entry.audio) }
            entries.append((line.number, entry))
        }
        return entries
    }

    /// `recording<TAB>end,end,…` lines with no header, or nil when the first
    /// line is not one (then it is a header row).
    static func parseEndsTSV(_ lines: [(number: Int, text: String)], file: String) throws(CorpusError) -> [(line: Int, entry: CorpusEntry)]? {
        func ends(_ cell: Substring) -> [Double]? {
            let values = cell.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard !values.isEmpty, values.allSatisfy({ $0 != nil }) else { return nil }
            return values.compactMap { $0 }
        }
        guard let first = lines.first, case let cells = first.text.split(separator: "\t", omittingEmptySubsequences: false),
              cells.count == 2, ends(cells[1]) != nil else { return nil }
        return try lines.map { line throws(CorpusError) in
            let cells = line.text.split(separator: "\t", omittingEmptySubsequences: false)
            guard cells.count == 2, !cells[0].isEmpty, let times = ends(cells[1]) else {
                throw CorpusError(file: file, line: line.number, "write the recording, a tab and its speech ends in seconds (talk.wav\t2.94,6.0)")
            }
            guard zip(times, times.dropFirst()).allSatisfy({ $0 < $1 }), times[0] > 0 else {
                throw CorpusError(file: file, line: line.number, "the speech ends must rise and be above 0: \(cells[1])")
            }
            let spans = zip([0] + times.dropLast(), times).map { SpeechSpan(start: $0, end: $1) }
            return (line.number, CorpusEntry(id: defaultID(String(cells[0])), audio: String(cells[0]), speech: spans))
        }
    }

    /// JSONDecoder's errors, said shortly.
    static func explain(_ error: any Error) -> String {
        switch error as? DecodingError {
        case .typeMismatch(let type, let context)?:
            return "\(context.codingPath.map(\.stringValue).joined(separator: ".")) should be \(type)"
        case .dataCorrupted?: return "the line is not valid JSON"
        case .keyNotFound(let key, _)?: return "\(key.stringValue) is missing"
        case .valueNotFound(_, let context)?: return "\(context.codingPath.map(\.stringValue).joined(separator: ".")) is null"
        default: return "\(error)"
        }
    }

}
