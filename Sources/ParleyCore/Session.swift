import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A recorded session's folder, as `sessionrecorder` writes it and
/// `parley sessions` reads it:
///
///     session.json                 SessionInfo
///     session.jsonl                one SegmentRecord per line, appended as segments finish
///     source.srt, source.vtt       the source transcript
///     translation.<lang>.srt/.vtt  each translation
///     audio/0007.es.wav            the spoken output, one file per utterance
///
/// A later line for the same segment supersedes an earlier one (a result
/// that grew after it was first written). A torn last line (the writer was
/// killed mid-line) is dropped on read.
public enum Session {
    public static let infoFile = "session.json"
    public static let logFile = "session.jsonl"

    /// `$XDG_DATA_HOME/parley/sessions`, else `~/.local/share/parley/sessions`.
    public static func defaultRoot(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        URL(fileURLWithPath: dataFolder(environment: environment)).appendingPathComponent("sessions")
    }

    /// Parley's folder under the user's data folder: `$XDG_DATA_HOME/parley`,
    /// else `~/.local/share/parley` (sessions, the local engines).
    public static func dataFolder(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let data = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.local/share")
        return data + "/parley"
    }

    /// A local engine's folder: `$<variable>` when set, else `name` under
    /// `dataFolder` (the rule the scripts/prepare-* scripts follow too).
    public static func engineFolder(_ name: String, unless variable: String,
                                    environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let folder = environment[variable], !folder.isEmpty { return folder }
        return dataFolder(environment: environment) + "/" + name
    }

    /// A new session's id: its start time and a random suffix ("20261123-193012-4f2a").
    public static func newID(at date: Date = Date()) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        return formatter.string(from: date) + "-" + String(UInt16.random(in: 0...UInt16.max), radix: 16)
    }

    /// Variables as they may be written down: anything that looks like a secret is left out.
    public static func publicVariables(_ variables: [String: String]) -> [String: String] {
        variables.filter { name, value in
            let upper = name.uppercased()
            let secretName = ["KEY", "TOKEN", "SECRET", "PASSWORD"].contains { upper.contains($0) } && !upper.hasSuffix("_ENV")
            return !secretName && Redaction.redact(value) == value
        }
    }

    /// Writes `data` to `url` through a temporary file and a rename: a reader
    /// (or a crash) sees the old file or the new one, never half of one.
    /// The temporary file has an unguessable name and is created exclusively
    /// (mkstemp), so a link planted in the folder is never written through;
    /// the rename replaces a link at `url` itself, not what it points to.
    public static func writeAtomically(_ data: Data, to url: URL) throws {
        var template = Array(url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).XXXXXX").path.utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw SessionFileError(url.lastPathComponent, errno) }
        let temporary = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        var written = 0
        let complete = data.withUnsafeBytes { raw -> Bool in
            while written < raw.count {
                let count = Glibc.write(descriptor, raw.baseAddress! + written, raw.count - written)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return false }
                written += count
            }
            return true
        }
        let failure = errno
        close(descriptor)
        guard complete, rename(temporary, url.path) == 0 else {
            let reason = complete ? errno : failure
            unlink(temporary)
            throw SessionFileError(url.lastPathComponent, reason)
        }
    }
}

/// A session file that could not be written, with the system's reason.
public struct SessionFileError: Error, CustomStringConvertible {
    public let description: String
    public init(_ name: String, _ code: Int32) {
        description = "\(name): \(String(cString: strerror(code)))"
    }
}

/// `session.json`.
public struct SessionInfo: Codable, Sendable, Equatable {
    public var id: String
    /// ISO 8601, UTC.
    public var started: String
    public var ended: String?
    /// Seconds of input covered (the last segment's end), once ended.
    public var duration: Double?
    public var pipeline: String
    /// The pipeline's variables, secrets left out.
    public var variables: [String: String]
    public var languages: [String]
    public var providers: [String]
    public var segments: Int
    public var failures: Int

    public init(id: String, started: String, pipeline: String, variables: [String: String]) {
        self.id = id
        self.started = started
        self.pipeline = pipeline
        self.variables = variables
        languages = []
        providers = []
        segments = 0
        failures = 0
    }
}

/// One text result of a segment: the source transcript or a translation.
public struct SessionText: Codable, Sendable, Equatable {
    public var text: String
    public var language: String
    /// final, failed or skipped.
    public var status: String
    public var provider: String?
    /// Why it is not final.
    public var reason: String?
    /// A translation joined from several segments' texts (streamtranslator
    /// `max-hold-ms`): the first of them. It is recorded on the last one;
    /// the ones before have no translation of their own.
    public var firstSegment: UInt64?

    enum CodingKeys: String, CodingKey {
        case text, language, status, provider, reason
        case firstSegment = "first-segment"
    }

    public init(text: String, language: String, status: String, provider: String? = nil, reason: String? = nil) {
        self.text = text
        self.language = language
        self.status = status
        self.provider = provider
        self.reason = reason
    }
}

/// Transcriptions started before a segment's end was confirmed: `requests`
/// of them (withdrawn ones included, when the speaker went on) and whether
/// the transcript is the last one (`used`); requests − (used ? 1 : 0) is the
/// work thrown away.
public struct SessionSpeculation: Codable, Sendable, Equatable {
    public var requests: Int
    public var used: Bool
    /// How much of the segment's start (ms) the transcript took from a
    /// withdrawn speculation's kept text (cloudstt keep-speculated-ms); nil when none.
    public var keptMs: Int?

    enum CodingKeys: String, CodingKey {
        case requests, used
        case keptMs = "kept-ms"
    }

    public init(requests: Int, used: Bool, keptMs: Int? = nil) {
        self.requests = requests
        self.used = used
        self.keptMs = keptMs
    }
}

/// One line of `session.jsonl`: a segment and everything the pipeline made of it.
public struct SegmentRecord: Codable, Sendable, Equatable {
    public var segment: UInt64
    /// Seconds on the input's timeline.
    public var start: Double
    public var end: Double
    /// final when every stage's result is; else the first stage's status that is not.
    public var status: String
    public var reason: String?
    public var source: SessionText?
    public var translations: [SessionText]
    /// Audio files, relative to the session folder.
    public var audio: [String]
    /// Who spoke each audio file, in order.
    public var voices: [String]
    /// From the end of speech to each stage's result: transcript-ms, translation-ms, first-audio-ms.
    public var latencyMs: [String: Double]
    /// What transcribing at the segment's likely ends did (cloudstt
    /// `speculate`); nil when nothing was started before the end.
    public var speculation: SessionSpeculation?

    enum CodingKeys: String, CodingKey {
        case segment, start, end, status, reason, source, translations, audio, voices, speculation
        case latencyMs = "latency-ms"
    }

    public init(segment: UInt64, start: Double, end: Double) {
        self.segment = segment
        self.start = start
        self.end = end
        status = "final"
        translations = []
        audio = []
        voices = []
        latencyMs = [:]
    }
}

/// A session folder on disk, read back.
public struct SessionFolder: Sendable {
    public var url: URL
    public var info: SessionInfo?
    public var records: [SegmentRecord]
    /// The last line was cut short (the writer was killed) and was dropped.
    public var tornLine: Bool

    public var id: String { info?.id ?? url.lastPathComponent }

    public init(url: URL) {
        self.url = url
        info = (try? Data(contentsOf: url.appendingPathComponent(Session.infoFile)))
            .flatMap { try? JSONDecoder().decode(SessionInfo.self, from: $0) }
        (records, tornLine) = Self.readLog(url.appendingPathComponent(Session.logFile))
    }

    /// The records, the last line per segment winning, in segment order.
    static func readLog(_ url: URL) -> ([SegmentRecord], Bool) {
        guard let data = try? Data(contentsOf: url) else { return ([], false) }
        var bySegment: [UInt64: SegmentRecord] = [:]
        var torn = false
        let lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        for line in lines where !line.isEmpty {
            guard let record = try? JSONDecoder().decode(SegmentRecord.self, from: Data(line)) else {
                // Only the last line can be torn (lines are written whole, then synced); any bad line is skipped and said.
                torn = true
                continue
            }
            bySegment[record.segment] = record
        }
        return (bySegment.values.sorted { $0.segment < $1.segment }, torn)
    }

    /// Every session under `root`, newest first.
    public static func all(in root: URL) -> [SessionFolder] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        return names.sorted(by: >).compactMap { name in
            let url = root.appendingPathComponent(name)
            guard FileManager.default.fileExists(atPath: url.appendingPathComponent(Session.infoFile).path) else { return nil }
            return SessionFolder(url: url)
        }
    }
}

/// SubRip and WebVTT from timed lines.
public enum Subtitles {
    public struct Cue: Sendable {
        public var start: Double
        public var end: Double
        public var text: String
        public init(start: Double, end: Double, text: String) {
            self.start = start
            self.end = end
            self.text = text
        }
    }

    public static func srt(_ cues: [Cue]) -> String {
        cues.enumerated().map { index, cue in
            "\(index + 1)\n\(time(cue.start, ",")) --> \(time(cue.end, ","))\n\(clean(cue.text))\n"
        }.joined(separator: "\n")
    }

    public static func vtt(_ cues: [Cue]) -> String {
        "WEBVTT\n\n" + cues.map { "\(time($0.start, ".")) --> \(time($0.end, "."))\n\(clean($0.text))\n" }.joined(separator: "\n")
    }

    public static func time(_ seconds: Double, _ separator: Character) -> String {
        SubtitleTime.format(milliseconds: Int((seconds * 1000).rounded()), separator: separator)
    }

    /// A cue's text may not hold a blank line (it would end the cue), "-->"
    /// (it would read as timing) or control characters.
    public static func clean(_ text: String) -> String {
        let lines = SafeText.withoutControls(keepingNewlines: text).split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let joined = lines.joined(separator: "\n").replacingOccurrences(of: "-->", with: "→")
        return joined.isEmpty ? "…" : joined
    }
}
