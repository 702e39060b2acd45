import ArgumentParser
import Foundation
import Parley
import enum ParleyCore.Session
import struct ParleyCore.SessionFolder
import enum ParleyCore.JSONLines
import struct ParleyCore.SegmentRecord
import enum ParleyCore.Subtitles
import enum ParleyCore.Suggestions
import enum ParleyCore.WAVDecoder
import enum ParleyCore.WAVEncoder
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
        static let configuration = CommandConfiguration(abstract: "One line per session: date, duration, languages, segments, failures.")
        @OptionGroup var location: Location

        func run() throws {
            let all = SessionFolder.all(in: location.root)
            guard !all.isEmpty else { print("no sessions in \(location.root.path)"); return }
            print("ID                      STARTED               DURATION  LANGUAGES  SEGMENTS  FAILED")
            for session in all {
                let info = session.info
                let started = (info?.started ?? "").replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: "")
                let duration = info?.duration ?? session.records.map(\.end).max() ?? 0
                let failures = session.records.filter { $0.status == "failed" }.count
                let languages = info?.languages.joined(separator: ",") ?? ""
                print(pad(session.url.lastPathComponent, 23), pad(started, 21), pad(String(format: "%6.1f s", duration), 9),
                      pad(languages, 10), pad(String(session.records.count), 9), failures,
                      info?.ended == nil ? "(unfinished)" : "")
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
            print("session \(session.id)" + (session.info.map { " (\($0.pipeline.isEmpty ? "" : "\($0.pipeline), ")started \($0.started))" } ?? ""))
            if session.tornLine { print("(the log's last line was cut short, the session was killed while writing it: it is left out)") }
            for record in session.records {
                let time = Subtitles.time(record.start, ".")
                let source = record.source?.text ?? ""
                print("\(time)  [\(record.segment)] \(source)")
                for translation in record.translations {
                    print("              → \(translation.language): \(translation.text)")
                }
                if record.status != "final" {
                    print("              (\(record.status)\(record.reason.map { ": \($0)" } ?? ""))")
                }
            }
        }
    }

    struct Play: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Play the session's spoken audio (every utterance, or one segment's) through autoaudiosink.")
        @OptionGroup var location: Location
        @Argument(help: "The session.") var id: String
        @Argument(help: "Only this segment.") var segment: UInt64?
        @Option(help: "Write the audio to this WAV file instead of playing it.") var to: String?

        func run() async throws {
            let session = try location.find(id)
            let records = session.records.filter { segment == nil || $0.segment == segment }
            if let segment, records.isEmpty {
                throw ValidationError("session \(session.id) has no segment \(segment); it has \(session.records.map { String($0.segment) }.joined(separator: ", "))")
            }
            let files = records.flatMap(\.audio).map { session.url.appendingPathComponent($0) }
            guard !files.isEmpty else { throw ValidationError("session \(session.id) has no saved audio" + (segment.map { " for segment \($0)" } ?? "")) }
            var rate = 0
            var samples: [Int16] = []
            for file in files {
                let audio = try WAVDecoder.decode(try Data(contentsOf: file))
                if rate == 0 { rate = audio.rate }
                samples += Resampler.resample(audio.samples, from: audio.rate, to: rate)
            }
            let wav = WAVEncoder.encode(samples, rate: rate)
            if let to {
                try wav.write(to: URL(fileURLWithPath: to))
                print("wrote \(files.count) utterance\(files.count == 1 ? "" : "s"), \(String(format: "%.1f", Double(samples.count) / Double(rate))) s, to \(to)")
                return
            }
            let temporary = FileManager.default.temporaryDirectory.appendingPathComponent("parley-play-\(getpid()).wav")
            try wav.write(to: temporary)
            defer { try? FileManager.default.removeItem(at: temporary) }
            let pipeline = try Pipeline(launch: "filesrc location=\"\(temporary.path)\" ! wavparse ! audioconvert ! audioresample ! autoaudiosink")
            try await pipeline.run()
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Write the session as subtitles, JSON Lines or plain text to standard output.")
        @OptionGroup var location: Location
        @Argument(help: "The session.") var id: String
        @Option(help: "srt, vtt, jsonl or txt.") var format: String = "srt"
        @Option(help: "A translation's language; empty = the source transcript (srt, vtt).") var language: String = ""

        func run() throws {
            let session = try location.find(id)
            let texts = session.records.compactMap { record -> (SegmentRecord, String)? in
                let text = language.isEmpty ? record.source?.text : record.translations.first { $0.language == language }?.text
                return text.flatMap { $0.isEmpty ? nil : (record, $0) }
            }
            let cues = texts.map { Subtitles.Cue(start: $0.0.start, end: $0.0.end, text: $0.1) }
            switch format {
            case "srt": print(Subtitles.srt(cues), terminator: "")
            case "vtt": print(Subtitles.vtt(cues), terminator: "")
            case "jsonl":
                print(try JSONLines.text(session.records), terminator: "")
            case "txt":
                for record in session.records {
                    print("[\(Subtitles.time(record.start, "."))] \(record.source?.text ?? "")")
                    for translation in record.translations { print("  \(translation.language): \(translation.text)") }
                }
            default:
                throw ValidationError("--format must be srt, vtt, jsonl or txt, not \"\(format)\"")
            }
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete one session.")
        @OptionGroup var location: Location
        @Argument(help: "The session.") var id: String
        @Flag(help: "Do not ask.") var yes = false

        func run() throws {
            let session = try location.find(id)
            guard yes || confirm("Delete session \(session.url.lastPathComponent) (\(session.records.count) segments)?") else {
                throw ExitCode(ExitStatus.failed)
            }
            try FileManager.default.removeItem(at: session.url)
            print("deleted \(session.url.path)")
        }
    }

    struct Clear: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete every session.")
        @OptionGroup var location: Location
        @Flag(help: "Do not ask.") var yes = false

        func run() throws {
            let all = SessionFolder.all(in: location.root)
            guard !all.isEmpty else { print("no sessions in \(location.root.path)"); return }
            guard yes || confirm("Delete all \(all.count) sessions in \(location.root.path)?") else { throw ExitCode(ExitStatus.failed) }
            for session in all { try FileManager.default.removeItem(at: session.url) }
            print("deleted \(all.count) session\(all.count == 1 ? "" : "s")")
        }
    }
}

private func pad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
}

/// Asks on the terminal; anything but y/yes is no (and so is no terminal).
private func confirm(_ question: String) -> Bool {
    printError("\(question) [y/N] ", terminator: "")
    guard let answer = readLine() else { return false }
    return ["y", "yes"].contains(answer.lowercased())
}
