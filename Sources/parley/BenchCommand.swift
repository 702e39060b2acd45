import ArgumentParser
import Dispatch
import Foundation
import Parley
import enum ParleyCore.OffPool
import enum ParleyCore.JSONLines
import enum ParleyCore.PrivateFolder

struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench", abstract: "Measure a pipeline's latency and quality on a recorded corpus.",
        discussion: """
            parley bench PIPELINE --corpus MANIFEST plays the corpus through the pipeline as a live \
            microphone would and reports per-stage latency, voice to voice, the framework's overhead, \
            segments by status, WER, chrF and VAD frame scores. See benchmarks/README.md.
            """,
        subcommands: [BenchRunCommand.self, BenchImportCommand.self, BenchCorpusCommand.self, BenchCompareCommand.self],
        defaultSubcommand: BenchRunCommand.self)
}

/// `parley bench compare A B`: two reports side by side, with B / A.
struct BenchCompareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare", abstract: "Print two bench reports side by side with the ratios (B / A).",
        discussion: """
            A and B are report.json files or the folders holding them (parley bench --output). For every \
            latency figure both have: p50 and p95 of each and B / A; then WER, chrF, VAD F1, CPU per stream \
            second and peak memory. Says so when the two were measured on different corpora.
            """)

    @Argument(help: "The first report (report.json or its folder).") var a: String
    @Argument(help: "The second report.") var b: String

    func run() throws {
        let comparison = BenchComparison(try Self.load(a), try Self.load(b), names: (a, b))
        print(comparison.markdown, terminator: "")
    }

    static func load(_ path: String) throws -> BenchReport {
        var isFolder: ObjCBool = false
        let file = FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && isFolder.boolValue ? "\(path)/report.json" : path
        guard let data = FileManager.default.contents(atPath: file) else {
            throw ValidationError("\(file): no such report (give report.json or the folder parley bench --output wrote)")
        }
        do {
            return try BenchReport.read(data)
        } catch {
            throw ValidationError("\(file): not a parley bench report.json (\(error))")
        }
    }
}

struct BenchRunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run", abstract: "Play a corpus through a pipeline and report (the default).",
        discussion: """
            The pipeline marks its input with a SOURCE fragment (#@ fragment SOURCE="autoaudiosrc", used as \
            ${SOURCE} ! ...): the bench plays the corpus there through recordingsrc, in 20 ms chunks paced in \
            real time (--no-pace: as fast as the pipeline takes them, as a file is read: not live, so cloudstt does not speculate). A SINK fragment, if declared, gets the \
            bench's probe, which times each segment's first output (voice to voice). The recordings play one \
            after another in one session, --gap-s seconds apart, after --warmup recordings that load the models \
            and are not reported. Ctrl-C or SIGTERM stops and reports what finished. \
            With --nats URL the corpus is cut into --shards parts, each a job for the `parley worker`s there \
            (each plays the warm-up recordings first), and their per-utterance records are merged into one \
            report: runs add up audio and CPU, and take the slowest shard's wall clock. \
            Exit status: 0 done, 1 the pipeline failed, 2 a file or an option is wrong, 130 interrupted.
            """)

    @Argument(help: "The .pipeline file, or the name of one that `parley list` shows.") var file: String
    @Option(help: "The corpus manifest (.jsonl or .tsv).") var corpus: String
    @Option(name: [.customLong("set"), .customShort("s")], help: "Set a declared variable: KEY=VALUE (repeatable).") var assignments: [String] = []
    @Option(help: "Times to play the whole corpus.") var runs = 1
    @Option(help: "Recordings from the corpus's start played first, unmeasured.") var warmup = 1
    @Option(name: .customLong("gap-s"), help: "Silence between recordings, in seconds (more than the VAD's silence setting).") var gap = 3.0
    @Option(name: .customLong("gap"), help: .hidden) var oldGap: Double?
    @Flag(help: "Feed the audio as fast as the pipeline takes it, not in real time.") var noPace = false
    @Option(name: .shortAndLong, help: "Folder for report.md, report.json, segments.jsonl (and sessions/run-N, when the pipeline records sessions).") var output = "out/bench"
    @Flag(name: .shortAndLong, help: "No progress bar.") var quiet = false
    @OptionGroup(title: "Across machines") var nats: NatsOptions
    @Option(help: "With --nats: cut the corpus into this many shards, one job each, played at once by the workers (default: 2).")
    var shards: Int?

    mutating func validate() throws {
        Deprecated.fold(oldGap, into: &gap, "--gap", "--gap-s")
        guard runs >= 1 else { throw ValidationError("--runs must be at least 1") }
        guard warmup >= 0 else { throw ValidationError("--warmup cannot be negative") }
        guard gap.isFinite, gap >= 0.5, gap <= 60 else { throw ValidationError("--gap-s must be between 0.5 and 60 seconds") }
        if let shards, !(1...256).contains(shards) { throw ValidationError("--shards takes 1 to 256, got \(shards)") }
    }

    func run() async throws {
        let overrides = try parseAssignments(assignments)
        let file = try PipelineFolders.resolveExisting(self.file)
        guard let (parsed, _) = loadValidated(file, overrides: overrides) else { throw ExitCode(ExitStatus.invalidInput) }
        // The corpus as one stream, in a folder of this run's own.
        let work: URL
        do { work = try PrivateFolder.make(prefix: "parley-bench") } catch {
            printError("error: \(error)")
            throw ExitCode(ExitStatus.failed)
        }
        defer { try? FileManager.default.removeItem(at: work) }
        let execution: BenchExecution
        do {
            execution = try await BenchExecution(parsed: parsed, overrides: overrides, manifest: corpus, warmup: warmup, gap: gap, work: work)
        } catch {
            printError("error: \(error)")
            throw ExitCode(ExitStatus.invalidInput)
        }
        let manifest = execution.corpus
        var results: [BenchExecution.RunResult] = []
        var interrupted = false
        if nats.url != nil || shards != nil {
            results = try await DistributedBench(command: self, file: file, overrides: overrides, corpus: manifest).run()
        } else {
            let measured = execution.stream.placements.filter(\.measured)
            let progress = BenchProgress(bar: !quiet && isatty(STDERR_FILENO) != 0, lines: !quiet && isatty(STDERR_FILENO) == 0,
                                         runs: runs, paced: !noPace,
                                         recordings: measured.map { (manifest.entries[$0.entry].id, $0.end) })
            let runner = BenchRunner()
            // Ctrl-C or SIGTERM: the run in progress stops; what finished is reported.
            let interrupts = SignalWatch { name, _ in
                progress.say("\(name): stopping; the report keeps the recordings that finished")
                runner.abort()
            }
            defer { interrupts.cancel() }
            do {
                let sessions = URL(fileURLWithPath: output).appendingPathComponent("sessions").standardizedFileURL.path
                results = try await execution.play(runs: runs, paced: !noPace, sessions: sessions, progress: progress,
                                                   runner: runner, stopped: { interrupts.received > 0 })
            } catch {
                printError("error: \(error)")
                throw ExitCode(ExitStatus.invalidInput)
            }
            interrupted = interrupts.received > 0
        }
        var failed = false
        if let failure = results.last?.run.failure {
            printError("error: run \(results.last?.run.run ?? 0): \(failure)")
            failed = true
        }
        var report = BenchReport(pipeline: file, corpus: corpus, paced: !noPace, warmup: min(warmup, manifest.entries.count),
                                 recordings: manifest.entries.count, runs: results)
        report.metadata = BenchMetadata.current()
        let plot = BenchPlot.svg(results.flatMap(\.1))
        if plot != nil { report.plot = "latency.svg" }
        do {
            try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
            if let plot { try plot.write(toFile: "\(output)/latency.svg", atomically: true, encoding: .utf8) }
            try report.markdown.write(toFile: "\(output)/report.md", atomically: true, encoding: .utf8)
            try report.json.write(toFile: "\(output)/report.json", atomically: true, encoding: .utf8)
            try JSONLines.text(results.flatMap(\.1)).write(toFile: "\(output)/segments.jsonl", atomically: true, encoding: .utf8)
        } catch {
            printError("error: cannot write the report in \(output): \((error as NSError).localizedDescription)")
            throw ExitCode(ExitStatus.failed)
        }
        print(report.markdown)
        printError("report: \(output)/report.md, \(output)/report.json, \(output)/segments.jsonl" + (plot == nil ? "" : ", \(output)/latency.svg"))
        if interrupted {
            printError("interrupted: the report covers the \(results.reduce(0) { $0 + $1.0.recordings }) recordings that finished")
            throw ExitCode(ExitStatus.aborted)
        }
        if failed { throw ExitCode(ExitStatus.failed) }
    }

}

/// Progress on standard error: on a terminal a bar (run, share of the
/// stream played, ETA); in a log one line per recording played.
final class BenchProgress: @unchecked Sendable {
    // @unchecked: every field is behind the lock.
    private let lock = NSLock()
    private let enabled: Bool
    private let lines: Bool
    private let runs: Int
    private let paced: Bool
    /// Measured recordings: id and where they end in the stream.
    private let recordings: [(String, Double)]
    private var run = 1
    private var runStarted = Date()
    private var played = 0

    init(bar: Bool, lines: Bool, runs: Int, paced: Bool, recordings: [(String, Double)]) {
        enabled = bar
        self.lines = lines
        self.runs = runs
        self.paced = paced
        self.recordings = recordings
    }

    func startRun(_ number: Int) { lock.withLock { run = number; runStarted = Date(); played = 0 } }

    func update(position: Double, duration: Double) {
        if lines {
            let newly = lock.withLock { () -> [String] in
                let now = recordings.filter { $0.1 <= position }.count
                defer { played = max(played, now) }
                return (played..<max(played, now)).map {
                    "run \(run)/\(runs): played \(recordings[$0].0) (\($0 + 1)/\(recordings.count))"
                }
            }
            for line in newly { FileHandle.standardError.write(Data((line + "\n").utf8)) }
        }
        guard enabled else { return }
        let line = lock.withLock { () -> String in
            let share = duration > 0 ? min(1, position / duration) : 0
            let elapsed = Date().timeIntervalSince(runStarted)
            // Paced, the stream plays in real time; unpaced, at the rate seen so far.
            let perRun = paced ? duration : (position > 0 ? elapsed / position * duration : duration)
            let remaining = max(0, perRun - (paced ? position : elapsed)) + Double(runs - run) * perRun
            let filled = Int(share * 30)
            return String(format: "\r\u{1B}[Krun %d/%d [%@%@] %3.0f%%  %5.1f/%5.1f s  ETA %d:%02d", run, runs,
                          String(repeating: "#", count: filled), String(repeating: "-", count: 30 - filled),
                          share * 100, position, duration, Int(remaining) / 60, Int(remaining) % 60)
        }
        FileHandle.standardError.write(Data(line.utf8))
    }

    func finishRun() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }

    func say(_ text: String) {
        FileHandle.standardError.write(Data(((enabled ? "\r\u{1B}[K" : "") + text + "\n").utf8))
    }
}
