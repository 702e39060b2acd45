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
    @Option(help: "The manifest to write (.jsonl).") var output: String
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
            Each writes DIR/manifest.jsonl; benchmarks/corpora/ has a script per corpus.
            """)

    enum Kind: String, ExpressibleByArgument, CaseIterable { case asterisk, librivox, conversation }

    @Argument(help: "asterisk, librivox or conversation.") var kind: Kind
    @Option(help: "The folder to write the manifest (and conversation audio) in.") var to: String
    @Option(help: "Use only the first N prompts (asterisk, conversation).") var limit: Int?
    @Option(help: "Utterances per conversation.") var perConversation = 6
    @Option(help: "Prompts shorter than this many words are left out (asterisk, conversation).") var minWords = 1

    func validate() throws {
        guard perConversation >= 1 else { throw ValidationError("--per-conversation must be at least 1") }
    }

    func run() throws {
        do {
            try FileManager.default.createDirectory(atPath: to, withIntermediateDirectories: true)
            let entries: [CorpusEntry]
            switch kind {
            case .librivox:
                entries = try CorpusBuilder.librivox()
            case .asterisk:
                entries = Array(try prompts().prefix(limit ?? .max))
            case .conversation:
                entries = try CorpusBuilder.conversations(of: Array(try prompts().prefix(limit ?? 48)),
                                                          perConversation: perConversation, folder: to)
            }
            try writeManifest(entries, to: "\(to)/manifest.jsonl")
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
