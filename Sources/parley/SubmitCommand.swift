import ArgumentParser
import Foundation
import Parley
import ParleyJobs
import func ParleyCore.counted

/// `parley submit`: one job per input on the NATS work queue.
struct SubmitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "submit", abstract: "Queue one job per input for `parley worker`s on NATS JetStream.",
        discussion: """
            Each input is uploaded into JetStream (chunked messages in the PARLEY_BLOBS stream: the C client \
            in Debian has no object store) and one job is published per input, with the pipeline file's text, \
            the --set variables and a de-duplication id (BATCH-INDEX), so a publication retried after a lost \
            answer is queued once. The worker gives each job its input as INPUT and records its session \
            (SESSION, when the file declares it): the pipeline file must declare INPUT.

            Prints the batch id and one job id per input; follow them with `parley jobs watch BATCH`.

            \(ExitStatus.brief)
            """)

    /// Inputs larger than this are refused: a job is a recording, not an archive.
    static let maxInputBytes = 1 << 30

    @Argument(help: "The .pipeline file, or the name of one that `parley list` shows.") var file: String
    @Option(name: [.customLong("set"), .customShort("s")], help: "Set a declared variable for every job: KEY=VALUE (repeatable).")
    var assignments: [String] = []
    @Option(name: .customLong("input"), parsing: .upToNextOption, help: "The recordings, one job each.")
    var inputs: [String] = []
    @Option(help: "A corpus manifest (parley bench's format): one job per entry.") var corpus: String?
    @OptionGroup var nats: NatsOptions

    func run() throws {
        var overrides = try parseAssignments(assignments)
        let path = try PipelineFolders.resolveExisting(file)
        for reserved in ["INPUT", "SESSION"] where overrides[reserved] != nil {
            printError("error: --set \(reserved)=...: the worker sets \(reserved) for each job")
            throw ExitCode(ExitStatus.invalidInput)
        }
        var files = inputs
        if let corpus {
            do {
                let loaded = try Corpus(manifest: corpus)
                files += loaded.entries.map { loaded.audioPath($0) }
            } catch {
                printError("error: \(error)")
                throw ExitCode(ExitStatus.invalidInput)
            }
        }
        guard !files.isEmpty else {
            printError("error: nothing to submit: give --input FILE... or --corpus MANIFEST")
            throw ExitCode(ExitStatus.invalidInput)
        }
        // The file is checked here with the first input, so a mistake is
        // reported now rather than by every worker.
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            printError("\(path): error: cannot read the file: \(error.localizedDescription)")
            throw ExitCode(ExitStatus.invalidInput)
        }
        if let parsed = try? PipelineFile(path: path, text: text), !parsed.variables.contains(where: { $0.name == "INPUT" }) {
            printError("\(path): error: declares no INPUT variable; a job's input reaches its pipeline as INPUT (add `#@ var INPUT=  The recording`)")
            throw ExitCode(ExitStatus.invalidInput)
        }
        overrides["INPUT"] = files[0]
        guard loadValidated(path, overrides: overrides) != nil else { throw ExitCode(ExitStatus.invalidInput) }
        overrides["INPUT"] = nil

        var contents: [(name: String, bytes: [UInt8])] = []
        for input in files {
            let attributes = try? FileManager.default.attributesOfItem(atPath: input)
            guard let size = attributes?[.size] as? Int, let data = FileManager.default.contents(atPath: input) else {
                printError("error: --input \(input): cannot read the file")
                throw ExitCode(ExitStatus.invalidInput)
            }
            guard size <= Self.maxInputBytes else {
                printError("error: --input \(input): \(size) bytes is more than the \(Self.maxInputBytes >> 20) MiB a job takes")
                throw ExitCode(ExitStatus.invalidInput)
            }
            contents.append(((input as NSString).lastPathComponent, [UInt8](data)))
        }

        let board = try nats.board(as: "parley submit")
        let batch = Self.newBatchID()
        let submitted = WallClock.milliseconds()
        let pipelineName = (path as NSString).lastPathComponent
        do {
            var jobs: [JobSpec] = []
            for (index, input) in contents.enumerated() {
                let blob = try board.storeBlob(name: input.name, bytes: input.bytes, batch: batch, index: index, part: "input")
                jobs.append(JobSpec(batch: batch, index: index, pipelineName: pipelineName, pipeline: text,
                                    variables: overrides, input: .file(blob), submitted: submitted))
            }
            try board.record(BatchManifest(batch: batch, pipelineName: pipelineName, jobs: jobs.map(\.id),
                                           inputs: contents.map(\.name), submitted: submitted))
            print("batch \(batch): \(counted(jobs.count, "job")) of \(pipelineName) on \(board.jetStream.address)")
            for job in jobs {
                try board.record(JobEvent(.queued, job: job.id, time: WallClock.milliseconds()))
                try board.queue(job)
                print("\(job.id)  \(job.input.name)")
            }
            try board.jetStream.flush()
        } catch {
            printError("error: \(error)")
            throw ExitCode(ExitStatus.failed)
        }
        printError("follow: parley jobs watch \(batch)")
    }

    /// Six letters and digits: short to type, unique enough among a team's batches.
    static func newBatchID() -> String {
        let alphabet = Array("abcdefghijkmnpqrstuvwxyz23456789")
        return String((0..<6).map { _ in alphabet[Int.random(in: 0..<alphabet.count)] })
    }
}
