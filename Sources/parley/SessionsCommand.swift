import ArgumentParser
import Foundation
import Parley
import enum ParleyCore.Session
import func ParleyCore.counted
import struct ParleyCore.SessionFolder
import enum ParleyCore.JSONLines
import struct ParleyCore.SegmentRecord
import struct ParleyCore.SessionText
import enum ParleyCore.Subtitles
import enum ParleyCore.SafeText
import enum ParleyCore.Suggestions
import class ParleyCore.WAVFileReader
import enum ParleyCore.LanguageNames
import class ParleyCore.WAVFileWriter
import enum ParleyCore.PrivateFolder
import struct ParleyCore.Resampler

/// `parley sessions`: the sessions sessionrecorder wrote, read back.
struct SessionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sessions", abstract: "List, read, replay, export and delete recorded sessions.",
        discussion: "Sessions live in $XDG_DATA_HOME/parley/sessions (~/.local/share/parley/sessions) unless --dir says otherwise. An ID is a session folder's name, its id, or a unique prefix of either.",
        subcommands: [List.self, Show.self, Play.self, Export.self, Delete.self, Clear.self])

    struct Location: ParsableArguments {
        @Option(help: "The folder holding the sessions.") var dir: String?
        var root: URL { dir.map { URL(fileURLWithPath: $0) } ?? Session.defaultRoot() }

        /// The session `id` names, or an error that suggests the nearest.
        func find(_ id: String) throws -> SessionFolder {
            let all = SessionFolder.all(in: root)
            if let exact = all.first(where: { $0.url.lastPathComponent == id || $0.id == id }) { return exact }
            let prefixed = all.filter { $0.url.lastPathComponent.hasPrefix(id) || $0.id.hasPrefix(id) }
            if prefixed.count == 1 { return prefixed[0] }
            if prefixed.count > 1 {
                throw ValidationError("\"\(id)\" names \(prefixed.count) sessions: \(prefixed.map(\.url.lastPathComponent).joined(separator: ", "))")
            }
            let names = all.map(\.url.lastPathComponent)
            guard !names.isEmpty else { throw ValidationError("no session \"\(id)\": \(root.path) holds none") }
            let hint = Suggestions.closest(to: id, in: names).map { "; did you mean \($0)?" } ?? ""
            throw ValidationError("no session \"\(id)\" in \(root.path)\(hint)")
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "One line per session, oldest first: date, duration, languages, segments, failures.")
        @OptionGroup var location: Location

        func run() throws {
            // Oldest first, by when each started (a folder may be named anything); the newest ends the list.
            let all = SessionFolder.all(in: location.root).map { ($0, $0.info?.started ?? "") }
                .sorted { ($0.1, $0.0.url.lastPathComponent) < ($1.1, $1.0.url.lastPathComponent) }.map(\.0)
            guard !all.isEmpty else { print("no sessions in \(location.root.path)"); return }
            var rows = [["ID", "STARTED", "DURATION", "LANGUAGES", "SEGMENTS", "FAILED", ""]]
            for session in all {
                let info = session.info
                // session.json is a file anyone may have edited: every cell is one safe line, the duration a sane number.
                let started = SafeText.excerpt(info?.started ?? "", limit: 40).replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: "")
                let recorded = info?.duration ?? session.records.map(\.end).max() ?? 0
                let duration = recorded.isFinite ? min(max(recorded, 0), 9_999_999) : 0
                let failures = session.records.filter { $0.status == "failed" }.count
                rows.append([SafeText.oneLine(session.url.lastPathComponent), started, String(format: "%6.1f s", duration),
                             SafeText.excerpt(info?.languages.joined(separator: ",") ?? "", limit: 80), String(session.records.count),
                             String(failures), info?.ended == nil ? "(unfinished)" : ""])
            }
            // Each column as wide as its widest cell: a fan-out's languages (en,es,it,fr) or a named folder fit.
            let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
            for row in rows {
                let cells = zip(row, widths).map { cell, width in pad(cell, width) }
                print(cells.joined(separator: "  ").trimmingCharacters(in: .whitespaces))
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The conversation side by side: time, source, translation.")
        @OptionGroup var location: Location
        @Argument(help: "The session.") var id: String
        @Flag(help: "The segments as a JSON array.") var json = false

        func run() throws {
            let session = try location.find(id)
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                print(String(decoding: try encoder.encode(session.records), as: UTF8.self))
                return
            }
            // What a provider said and what session.json holds reach the terminal as safe lines (SafeText.oneLine).
            let safe = SafeText.oneLine
            print("session \(safe(session.id))" + (session.info.map { " (\($0.pipeline.isEmpty ? "" : "\(safe($0.pipeline)), ")started \(safe($0.started)))" } ?? ""))
            if session.tornLine { print("(the log's last line was cut short, the session was killed while writing it: it is left out)") }
            for record in session.records {
                let time = Subtitles.time(record.start, ".")
                let source = record.source?.text ?? ""
                print("\(time)  [\(record.segment)] \(safe(source))")
                for translation in record.translations {
                    print("              → \(safe(translation.language)): \(safe(translation.text))")
                }
                if record.status != "final" {
                    print("              (\(safe(record.status))\(record.reason.map { ": \(safe($0))" } ?? ""))")
                }
            }
        }
    }

    struct Play: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Play the session's spoken audio (every utterance, or one segment's) through autoaudiosink.",
            discussion: """
                A session that spoke to listeners in several languages (conversation-fanout) has one file per \
                utterance and language: --language plays one listener's; without it every language is played in \
                turn, utterance by utterance, the languages in alphabetical order. The audio is read and written a file at a time, so a session of any \
                length takes the memory of its longest utterance.
                """)
        @OptionGroup var location: Location
        @Argument(help: "The session.") var id: String
        @Argument(help: "Only this segment.") var segment: UInt64?
        @Option(help: "Only this language's audio (es); empty = every language, in turn.") var language: String = ""
        @Option(name: .shortAndLong, help: "Write the audio to this WAV file instead of playing it.") var output: String?
        @Option(name: .customLong("to"), help: .hidden) var oldTo: String?

        mutating func validate() throws {
            Deprecated.fold(oldTo, into: &output, "--to", "--output")
        }

        /// Whether `file` (from session.jsonl) names a file in the session's
        /// audio folder: relative, no `..`, and, links resolved, still there.
        static func isInside(_ file: String, _ folder: URL) -> Bool {
            guard file.hasPrefix("audio/"), !file.split(separator: "/").contains(".."), !file.contains("\0") else { return false }
            let root = folder.resolvingSymlinksInPath().path + "/"
            return folder.appendingPathComponent(file).resolvingSymlinksInPath().path.hasPrefix(root)
        }

        /// "es" for "audio/0007.es.wav".
        static func language(of file: String) -> String {
            URL(fileURLWithPath: file).deletingPathExtension().pathExtension
        }

        func run() async throws {
            let session = try location.find(id)
            let records = session.records.filter { segment == nil || $0.segment == segment }
            if let segment, records.isEmpty {
                throw ValidationError("session \(session.id) has no segment \(segment); it has \(session.records.map { String($0.segment) }.joined(separator: ", "))")
            }
            // Utterance by utterance; within one, its languages in alphabetical order (the recorder writes them as they finish).
            // Only files the recorder could have written: audio/NNNN.lang.wav inside the folder. A path
            // an edited log points elsewhere (../, an absolute one, a link out) is skipped, said once.
            let listed = records.flatMap(\.audio)
            let inside = Set(listed.filter { Self.isInside($0, session.url) })
            let outside = listed.count - listed.filter(inside.contains).count
            if outside > 0 {
                printError("skipped \(counted(outside, "audio path")) of the log that lead\(outside == 1 ? "s" : "") outside the session folder")
            }
            let all = records.flatMap { record in
                record.audio.filter(inside.contains).sorted { Self.language(of: $0) < Self.language(of: $1) }
            }
            let languages = Set(all.map(Self.language)).sorted()
            let chosen = language.isEmpty ? all : all.filter { Self.language(of: $0) == LanguageNames.primary(language) }
            guard !chosen.isEmpty else {
                let which = segment.map { " for segment \($0)" } ?? ""
                if all.isEmpty { throw ValidationError("session \(session.id) has no saved audio\(which)") }
                throw ValidationError("session \(session.id) has no \(language) audio\(which); it has \(languages.joined(separator: ", "))")
            }
            if language.isEmpty, languages.count > 1 {
                printError("playing \(languages.joined(separator: ", ")) in turn; --language picks one")
            }
            let files = chosen.map { session.url.appendingPathComponent($0).path }
            if let output {
                let (samples, rate) = try Self.join(files, into: output)
                print("wrote \(counted(files.count, "utterance")), \(String(format: "%.1f", Double(samples) / Double(rate))) s, to \(output)")
                return
            }
            // Played from a private folder: the session's speech is not left where another user could read it.
            let folder = try PrivateFolder.make(prefix: "parley-play")
            defer { try? FileManager.default.removeItem(at: folder) }
            let joined = folder.appendingPathComponent("session.wav").path
            let (samples, rate) = try Self.join(files, into: joined)
            let pipeline = try Pipeline(launch: "filesrc location=\(Pipeline.quoted(joined)) ! wavparse ! audioconvert ! audioresample ! autoaudiosink")
            printError("playing \(counted(files.count, "utterance")), \(String(format: "%.1f", Double(samples) / Double(rate))) s (Ctrl-C stops)")
            // No sound device: autoaudiosink plays into nothing and says so in a warning, which must not stay unsaid.
            var unheard = false
            try await pipeline.run { event in
                guard case .warning(let source, let message, _) = event else { return }
                printError("warning: \(source): \(message)")
                if source.hasPrefix("autoaudiosink") && !unheard {
                    unheard = true
                    pipeline.stopKeepingFiles()  // nothing will be heard: no need to wait for the audio's length
                }
            }
            if unheard {
                printError("error: the audio could not be played: no sound device answered (-o FILE writes it to a WAV instead)")
                throw ExitCode(ExitStatus.failed)
            }
        }

        /// The files one after the other in a WAV at `path`, at the first one's
        /// rate, each read and written in pieces. Returns its length in samples and its rate.
        static func join(_ files: [String], into path: String) throws -> (samples: Int, rate: Int) {
            var output: WAVFileWriter?
            for file in files {
                let reader: WAVFileReader
                do { reader = try WAVFileReader(path: file) } catch { throw ValidationError("\(file): \(error)") }
                let writer: WAVFileWriter
                if let output {
                    writer = output
                } else {
                    do { writer = try WAVFileWriter(path: path, rate: reader.layout.rate) } catch {
                        throw ValidationError("cannot write \(path): \(error)")
                    }
                    output = writer
                }
                var resampler = Resampler(from: reader.layout.rate, to: writer.rate)
                while true {
                    let piece = try reader.read(frames: 65_536)
                    if piece.isEmpty { break }
                    try writer.append(piece.withUnsafeBufferPointer { resampler.process($0) })
                }
                try writer.append(resampler.finish())
            }
            guard let output else { return (0, 0) }
            try output.finish()
            return (output.sampleCount, output.rate)
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Write the session as subtitles, JSON Lines or plain text to standard output.")

        enum Format: String, ExpressibleByArgument, CaseIterable {
            case srt, vtt, jsonl, txt
        }

        @OptionGroup var location: Location
        @Argument(help: "The session.") var id: String
        @Option(help: "What to write; jsonl is the session's log, every language in it.") var format = Format.srt
        @Option(help: "A translation's language (es, or its tag es-ES); empty = the source transcript (srt, vtt) or every language (txt).")
        var language: String = ""

        func run() throws {
            let session = try location.find(id)
            if !language.isEmpty {
                guard format != .jsonl else { throw ValidationError("--language applies to srt, vtt and txt: jsonl is the session's log, every language in it") }
                let languages = Set(session.records.flatMap { $0.translations.map(\.language) }).sorted()
                guard languages.contains(where: { Self.matches($0, language) }) else {
                    let has = languages.isEmpty ? "no translations" : "translations into \(languages.joined(separator: ", "))"
                    throw ValidationError("session \(session.id) has no translation into \(language); it has \(has)")
                }
            }
            func translation(_ record: SegmentRecord) -> SessionText? {
                record.translations.first { Self.matches($0.language, language) }
            }
            switch format {
            case .srt, .vtt:
                let cues = session.records.compactMap { record -> Subtitles.Cue? in
                    let text = language.isEmpty ? record.source?.text : translation(record)?.text
                    guard let text, !text.isEmpty else { return nil }
                    return Subtitles.Cue(start: record.start, end: record.end, text: text)
                }
                print(format == .srt ? Subtitles.srt(cues) : Subtitles.vtt(cues), terminator: "")
            case .jsonl:
                print(try JSONLines.text(session.records), terminator: "")
            case .txt:
                for record in session.records {
                    print("[\(Subtitles.time(record.start, "."))] \(SafeText.oneLine(record.source?.text ?? ""))")
                    let shown = language.isEmpty ? record.translations : translation(record).map { [$0] } ?? []
                    for translation in shown { print("  \(SafeText.oneLine(translation.language)): \(SafeText.oneLine(translation.text))") }
                }
            }
        }

        /// A translation's language is the one asked for: the same tag, or
        /// the same language subtag ("es" finds "es-ES" and the other way round).
        static func matches(_ recorded: String, _ asked: String) -> Bool {
            recorded == asked || LanguageNames.primary(recorded) == LanguageNames.primary(asked)
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete one session.")
        @OptionGroup var location: Location
        @Argument(help: "The session.") var id: String
        @Flag(name: .shortAndLong, help: "Do not ask.") var yes = false

        func run() throws {
            let session = try location.find(id)
            guard yes || confirm("Delete session \(session.url.lastPathComponent) (\(counted(session.records.count, "segment")))?") else {
                printError("not deleted: answered no (-y deletes without asking)")
                throw ExitCode(ExitStatus.failed)
            }
            try FileManager.default.removeItem(at: session.url)
            print("deleted \(session.url.path)")
        }
    }

    struct Clear: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete every session.")
        @OptionGroup var location: Location
        @Flag(name: .shortAndLong, help: "Do not ask.") var yes = false

        func run() throws {
            let all = SessionFolder.all(in: location.root)
            guard !all.isEmpty else { print("no sessions in \(location.root.path)"); return }
            guard yes || confirm("Delete all \(all.count) sessions in \(location.root.path)?") else {
                printError("nothing deleted: answered no (--yes deletes without asking)")
                throw ExitCode(ExitStatus.failed)
            }
            for session in all { try FileManager.default.removeItem(at: session.url) }
            print("deleted \(counted(all.count, "session"))")
        }
    }
}

private func pad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
}

/// Asks on the terminal; anything but y/yes is no (and so is no terminal).
private func confirm(_ question: String) -> Bool {
    printError("\(question) [y/N] ", terminator: "")
    guard let answer = readLine() else {
        printError("")  // the question's line ends even when no answer came
        return false
    }
    return ["y", "yes"].contains(answer.lowercased())
}
