// Apertium from Debian as a long-lived process per language pair, so a
// request costs milliseconds instead of a pipeline of ten processes.
//
// `apertium-wblank-mode -z` turns the pair's mode file into its shell
// pipeline (run by the same shell that runs it) with every stage in null-flush mode: each input ending in NUL is
// translated and answered with output ending in NUL. The text deformatter
// (apertium-destxt) drops NULs in Debian 12's version, so its job is done
// here: the characters the stream format reserves are escaped, and the
// sentence end it would add (".[]") is added and taken off again.
//
// Where Debian has no pair between two languages but has one from the source
// into a third and one from that third into the target (English to Italian:
// eng-spa, then spa-ita), the text goes through both, one process each: a
// route "eng-spa+spa-ita". Spanish is tried first as the language in between,
// since most of Debian's pairs have it on one side. Each hop loses a little,
// so a direct pair is always preferred.
import Foundation
import ParleyCore
import Synchronization

public enum ApertiumError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No installed mode translates between the two languages.
    case noPair(from: String, to: String, installed: [String])
    case startFailed(String)
    /// The process died or answered nothing within the timeout.
    case failed(String)

    public var description: String {
        switch self {
        case .noPair(let from, let to, let installed):
            "apertium has no \(from)→\(to) pair installed, nor two through a language in between; installed: \(installed.isEmpty ? "none (apt-get install apertium-eng-spa, ...)" : installed.joined(separator: ", "))"
        case .startFailed(let why): "apertium did not start: \(why)"
        case .failed(let why): "apertium failed: \(why)"
        }
    }
}

public final class ApertiumTranslator: @unchecked Sendable {
    // @unchecked: the process and its pipes are used only under `lock`.
    public static let modesDirectory = "/usr/share/apertium/modes"

    /// ISO 639-1 → 639-3 for the languages apertium pairs in Debian use.
    static let threeLetter = [
        "en": "eng", "es": "spa", "ca": "cat", "fr": "fra", "it": "ita", "pt": "por", "de": "deu", "nl": "nld",
        "gl": "glg", "eu": "eus", "oc": "oci", "ro": "ron", "an": "arg", "ast": "ast", "eo": "epo", "sv": "swe",
        "da": "dan", "nb": "nob", "nn": "nno", "is": "isl", "cy": "cym", "br": "bre", "ru": "rus", "uk": "ukr",
    ]

    /// The languages in between a route may go through, in the order they are tried.
    static let pivots = ["spa", "eng", "cat", "fra", "por", "ita"]

    /// The mode ("eng-spa") that translates between two BCP-47 tags ("en-US",
    /// "es") among `installed` modes, else a route of two through a language
    /// in between ("eng-spa+spa-ita"); nil when neither exists. Dialect modes
    /// ("eng-cat_valencia") are never taken for a route, nor is one that
    /// comes back to its own language (eng-spa+spa-eng): text already in the
    /// target language needs no translation, and a round trip would only
    /// garble it.
    public static func mode(from source: String, to target: String, installed: [String]) -> String? {
        let a = LanguageNames.primary(source), b = LanguageNames.primary(target)
        guard a != b else { return nil }
        let candidates = [
            "\(threeLetter[a] ?? a)-\(threeLetter[b] ?? b)", "\(a)-\(b)",
        ]
        if let direct = candidates.first(where: { installed.contains($0) }) { return direct }
        let from = threeLetter[a] ?? a, to = threeLetter[b] ?? b
        let pairs = installed.compactMap { mode in languages(of: mode).map { (mode: mode, from: $0.from, to: $0.to) } }
        let firstHops = pairs.filter { $0.from == from && $0.to != to }
        let routes = firstHops.compactMap { first in
            pairs.first { $0.from == first.to && $0.to == to }.map { (pivot: first.to, route: "\(first.mode)+\($0.mode)") }
        }
        return routes.min { rank($0.pivot) < rank($1.pivot) || (rank($0.pivot) == rank($1.pivot) && $0.route < $1.route) }?.route
    }

    private static func rank(_ pivot: String) -> Int { pivots.firstIndex(of: pivot) ?? pivots.count }

    /// The two languages of a plain mode name, as three-letter codes
    /// ("es-fr" → spa, fra); nil for a dialect ("eng-cat_valencia") or any
    /// other shape ("eco-es-fr").
    static func languages(of mode: String) -> (from: String, to: String)? {
        let parts = mode.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2, parts.allSatisfy({ (2...3).contains($0.count) && $0.allSatisfy(\.isLetter) }) else { return nil }
        return (threeLetter[parts[0]] ?? parts[0], threeLetter[parts[1]] ?? parts[1])
    }

    /// Modes installed, by name ("eng-spa", "spa-eng", ...).
    public static func installedModes(in directory: String = modesDirectory) -> [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return files.filter { $0.hasSuffix(".mode") }.map { String($0.dropLast(5)) }.sorted()
    }

    /// The mode, or the route of two joined by "+" ("eng-spa+spa-ita").
    public let mode: String
    private let lock = Mutex(())
    /// One process per hop, in order.
    private let hops: [(mode: String, process: ChildProcess)]
    private let timeoutMs: Int32

    /// Starts the pipeline for `mode` (one of `installedModes()`, or a route
    /// of two that `mode(from:to:installed:)` made), one process a hop.
    public init(mode: String, directory: String = modesDirectory, timeoutMs: Int = 10_000) throws(ApertiumError) {
        self.mode = mode
        self.timeoutMs = Int32(clamping: timeoutMs)
        var started: [(mode: String, process: ChildProcess)] = []
        for hop in mode.split(separator: "+").map(String.init) {
            let modeFile = "\(directory)/\(hop).mode"
            guard FileManager.default.isReadableFile(atPath: modeFile) else {
                started.forEach { $0.process.terminate() }
                throw .startFailed("no mode file \(modeFile)")
            }
            do {
                started.append((hop, try ChildProcess(executable: "/bin/bash",
                                                       arguments: ["-c", Self.script, "apertium-\(hop)", "-n", "", modeFile])))
            } catch {
                started.forEach { $0.process.terminate() }
                throw .startFailed(error.description)
            }
        }
        guard !started.isEmpty else { throw .startFailed("no mode named") }
        hops = started
        // One request now: the models load here rather than in the first
        // segment, and a pipeline that cannot run fails at READY.
        do {
            _ = try translate("Ready.")
        } catch {
            shutdown()
            throw .startFailed("the \(mode) pipeline does not answer: \(error)")
        }
    }

    deinit { shutdown() }

    /// The shell turns the mode into its null-flush pipeline and runs it.
    /// (ChildProcess starts it with nothing inherited but its input and output.)
    static let script = #"""
        pipeline="$(apertium-wblank-mode -z "$3")" || exit 3
        eval "$pipeline"
        """#

    /// Translates one text, through every hop of a route; requests are
    /// served one at a time.
    public func translate(_ text: String) throws(ApertiumError) -> String {
        let result: Result<String, ApertiumError> = lock.withLock { _ in
            var current = text
            for (mode, process) in hops {
                let request = Array((Self.escape(current) + ".[]").utf8) + [0]
                guard process.isRunning else { return .failure(.failed("the \(mode) process has exited")) }
                // Written while the answer is read: apertium answers a long
                // text while still reading it (writing it all first deadlocked
                // both sides on a 400 KB text).
                switch process.exchange(request, until: 0, timeoutMs: timeoutMs) {
                case .success(let answer): current = Self.unescape(String(decoding: answer, as: UTF8.self))
                case .failure(.timedOut): return .failure(.failed("no answer from the \(mode) process in \(timeoutMs) ms"))
                case .failure(.closed): return .failure(.failed("the \(mode) process closed its input or output"))
                }
            }
            return .success(current)
        }
        return try result.get()
    }

    /// Ends the process (READY→NULL).
    public func shutdown() {
        lock.withLock { _ in hops.forEach { $0.process.terminate() } }
    }

    /// The stream format's reserved characters, backslash-escaped as the
    /// deformatter does.
    static func escape(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "[", "]", "^", "$", "@", "/", "<", ">", "\\", "{", "}": escaped += "\\\(character)"
            case "\0": break
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// Undoes `escape`, and takes off the sentence end and blanks added to the request.
    static func unescape(_ text: String) -> String {
        var body = Substring(text)
        if let end = body.range(of: ".[]", options: .backwards) { body = body[..<end.lowerBound] }
        var result = ""
        var escaping = false
        for character in body {
            if escaping { result.append(character); escaping = false }
            else if character == "\\" { escaping = true }
            else { result.append(character) }
        }
        return result.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
