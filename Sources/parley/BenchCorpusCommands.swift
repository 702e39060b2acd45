import ArgumentParser
import Foundation
import Parley
import enum ParleyCore.JSONLines

struct BenchImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import", abstract: "Make a manifest from a LibriSpeech folder or a Common Voice TSV.",
        discussion: """
            librispeech DIR: every SPEAKER/CHAPTER/SPEAKER-CHAPTER.trans.txt under DIR and its .flac files. \
            commonvoice TSV: a Common Voice TSV (validated.tsv, test.tsv…) with its clips/ folder beside it. \
            The manifest refers to the audio where it is.
            """)

    enum Layout: String, ExpressibleByArgument, CaseIterable { case librispeech, commonvoice }

    @Argument(help: "librispeech or commonvoice.") var layout: Layout
    @Argument(help: "The LibriSpeech folder or the Common Voice TSV.") var path: String
    @Option(name: .shortAndLong, help: "The manifest to write (.jsonl).") var output: String
    @Option(help: "Keep only the first N recordings.") var limit: Int?

    func run() throws {
        do {
            var entries = layout == .librispeech ? try CorpusBuilder.librispeech(root: path) : try CorpusBuilder.commonVoice(tsv: path)
            if let limit { entries = Array(entries.prefix(limit)) }
            try writeManifest(entries, to: output)
        } catch {
            printError("error: \(error)")
            throw ExitCode(ExitStatus.invalidInput)
        }
    }
}

struct BenchCorpusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "corpus", abstract: "Build a corpus from recorded speech Debian ships.",
        discussion: """
            asterisk: Asterisk's English prompts (asterisk-core-sounds-en-wav) with their transcripts and, as \
            reference translations, the same prompts in every installed asterisk-core-sounds-es/fr/it. \
            librivox: pocketsphinx-testdata's LibriVox readings with their transcripts. \
            conversation: Asterisk prompts joined into talks of --per-conversation utterances with 0.5–3 s \
            pauses, written as WAVs, each utterance's speech start and end recorded. \
            talk: the same, of the prompts that have a Spanish reference, each cut to its speech and 150–280 ms \
            between them (no pause long enough for a 500 ms silence rule: a speaker who goes on and on; \
            --limit 126 --per-conversation 126 --min-words 3 makes a 10-minute talk; --unbroken: the same prompts \
            with a conversation's pauses, to play them one by one). \
            thinking: conversations of the prompts that have a comma (and a Spanish reference), each cut at its comma with 600–900 ms of silence \
            (a speaker who stops to think mid-sentence; --unbroken: the same prompts, whole, to compare with). \
            Each writes DIR/manifest.jsonl; benchmarks/corpora/ has a script per corpus.
            """)

    enum Kind: String, ExpressibleByArgument, CaseIterable { case asterisk, librivox, conversation, talk, thinking }

    @Argument(help: "asterisk, librivox, conversation, talk or thinking.") var kind: Kind
    @Option(name: .shortAndLong, help: "The folder to write the manifest (and conversation audio) in.") var output: String = ""
    @Option(name: .customLong("to"), help: .hidden) var oldTo: String?
    @Option(help: "Use only the first N prompts (asterisk, conversation, talk).") var limit: Int?
    @Option(help: "Utterances per conversation (or talk).") var perConversation = 6
    @Option(help: "Prompts shorter than this many words are left out (asterisk, conversation, talk, thinking).") var minWords = 1
    @Flag(help: "thinking: the same prompts left whole; talk: the same prompts with a conversation's 0.5–3 s pauses (the comparisons).")
    var unbroken = false

    mutating func validate() throws {
        Deprecated.fold(oldTo, into: &output, "--to", "--output")
        guard !output.isEmpty else { throw ValidationError("Missing expected argument '--output <output>'") }
        guard perConversation >= 1 else { throw ValidationError("--per-conversation must be at least 1") }
    }

    func run() throws {
        do {
            try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
            let entries: [CorpusEntry]
            switch kind {
            case .librivox:
                entries = try CorpusBuilder.librivox()
            case .asterisk:
                entries = Array(try prompts().prefix(limit ?? .max))
            case .conversation:
                entries = try CorpusBuilder.conversations(of: Array(try prompts().prefix(limit ?? 48)),
                                                          perConversation: perConversation, folder: output)
            case .talk:
                // Only prompts with a Spanish reference: a talk's reference is every prompt's joined, so one
                // missing would leave the whole talk without one (and the bench without chrF).
                let translated = try prompts().filter { $0.translations?["es"] != nil }
                entries = try CorpusBuilder.conversations(of: Array(translated.prefix(limit ?? 48)),
                                                          perConversation: perConversation, folder: output,
                                                          joining: unbroken ? .conversation : .talk)
            case .thinking:
                // With a Spanish reference too, so chrF compares the assembled translations with the unbroken ones.
                let withComma = try prompts().filter { ($0.text ?? "").contains(",") && $0.translations?["es"] != nil }
                entries = try CorpusBuilder.conversations(of: Array(withComma.prefix(limit ?? 48)), perConversation: perConversation,
                                                          folder: output, joining: unbroken ? .conversation : .thinking)
            }
            try writeManifest(entries, to: "\(output)/manifest.jsonl")
        } catch {
            printError("error: \(error)")
            throw ExitCode(ExitStatus.invalidInput)
        }
    }

    func prompts() throws -> [CorpusEntry] {
        try CorpusBuilder.asterisk().filter { ($0.text ?? "").split(separator: " ").count >= minWords }
    }
}

func writeManifest(_ entries: [CorpusEntry], to path: String) throws {
    do {
        try JSONLines.text(entries).write(toFile: path, atomically: true, encoding: .utf8)
    } catch {
        throw CorpusError(file: path, line: 0, "cannot write it: \((error as NSError).localizedDescription)")
    }
    printError("\(path): \(entries.count) recordings")
}
