import ArgumentParser
import Foundation
import enum ParleyCore.JSONLines
import enum ParleyCore.SafeText
import enum ParleyCore.Session
import ParleyJobs

/// `parley jobs`: what became of submitted jobs.
struct JobsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jobs", abstract: "Follow jobs queued with `parley submit`, read their results, fetch their sessions.",
        discussion: "ID is a batch id (all its jobs) or a job id (BATCH-INDEX).\n\n\(ExitStatus.brief)",
        subcommands: [Status.self, Watch.self, Results.self, Fetch.self])

    /// The jobs an ID names, and where to read them.
    struct Selection {
        let board: JobBoard
        let manifest: BatchManifest
        let jobs: [String]

        init(_ id: String, nats: NatsOptions) throws {
            let batch = id.contains("-") ? JobBoard.split(id).batch : id
            // Checked before asking the server: a dot or a wildcard would name other batches' subjects.
            guard id.contains("-") ? JobSpec.isJobID(id) : JobSpec.isBatchID(id) else {
                printError("error: \"\(SafeText.excerpt(id, limit: 40))\" is neither a batch id (1-32 of a-z and 0-9, as parley submit prints) nor a job id (BATCH-INDEX)")
                throw ExitCode(ExitStatus.invalidInput)
            }
            board = try nats.board(as: "parley jobs")
            guard let manifest = try? board.manifest(batch: batch) else {
                printError("error: no batch \"\(batch)\" on \(board.jetStream.address) (batches are kept 7 days)")
                throw ExitCode(ExitStatus.invalidInput)
            }
            self.manifest = manifest
            if id.contains("-") {
                guard manifest.jobs.contains(id) else {
                    printError("error: batch \(batch) has no job \(id); its jobs are \(manifest.jobs.first ?? "")…\(manifest.jobs.last ?? "")")
                    throw ExitCode(ExitStatus.invalidInput)
                }
                jobs = [id]
            } else {
                jobs = manifest.jobs
            }
        }

        /// Each job's events and result, read now.
        func snapshot() throws -> [JobSnapshot] {
            let events = Dictionary(grouping: try board.events(batch: manifest.batch), by: \.job)
            let stored = try board.results(batch: manifest.batch)
            let results = Dictionary(stored.map { ($0.result.job, $0.result) }, uniquingKeysWith: { first, _ in first })
            let publications = Dictionary(grouping: stored, by: \.result.job).mapValues(\.count)
            return jobs.enumerated().map { offset, job in
                let index = manifest.jobs.firstIndex(of: job) ?? offset
                return JobSnapshot(job: job, input: index < manifest.inputs.count ? manifest.inputs[index] : "",
                                   events: events[job] ?? [], result: results[job], publications: publications[job] ?? 0)
            }
        }
    }

    struct JobSnapshot: Encodable {
        let job: String
        let input: String
        let events: [JobEvent]
        let result: JobResult?
        /// Results stored for the job: 1 once it finished (JetStream drops
        /// a second publication of the same job's result).
        let publications: Int

        var state: JobState {
            if let result { return result.status == .done ? .done : .failed }
            return AttemptHistory.state(of: events)
        }

        private enum CodingKeys: String, CodingKey { case job, input, state, events, result, publications }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(job, forKey: .job)
            try container.encode(input, forKey: .input)
            try container.encode(state.label, forKey: .state)
            try container.encode(events, forKey: .events)
            try container.encodeIfPresent(result, forKey: .result)
            try container.encode(publications, forKey: .publications)
        }
    }

    static func summary(_ jobs: [JobSnapshot]) -> String {
        let done = jobs.filter { $0.state == .done }.count
        let failed = jobs.filter { $0.state == .failed }.count
        let running = jobs.filter { if case .running = $0.state { return true } else { return false } }.count
        return "\(jobs.count) jobs: \(done) done, \(failed) failed, \(running) running, \(jobs.count - done - failed - running) waiting"
    }

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "One line per job: its state, worker and attempts.")
        @Argument(help: "A batch or job id.") var id: String
        @Flag(help: "JSON Lines: each job with its events and result (for scripts).") var json = false
        @OptionGroup var nats: NatsOptions

        func run() throws {
            let selection = try Selection(id, nats: nats)
            let jobs = try selection.snapshot()
            if json {
                for job in jobs { print(String(decoding: try JSONLines.line(job), as: UTF8.self)) }
                return
            }
            for job in jobs {
                var line = "\(job.job)  \(SafeText.oneLine(job.input))  \(job.state.label)"
                if let result = job.result {
                    line += " by \(result.worker), attempt \(result.attempts)"
                    if result.status == .done { line += String(format: ", %.1f s of audio", result.audioSeconds) }
                }
                print(line)
            }
            print(JobsCommand.summary(jobs))
        }
    }

    struct Watch: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A progress bar over the jobs until every one is done or failed.",
            discussion: "Exits 0 when all are done, 1 when any failed.")
        @Argument(help: "A batch or job id.") var id: String
        @Option(name: .customLong("timeout-s"), help: "Give up after this many seconds (exit 1); 0 = wait for ever.") var timeout: Double = 0
        @Option(name: .customLong("timeout"), help: .hidden) var oldTimeout: Double?

        mutating func validate() throws { Deprecated.fold(oldTimeout, into: &timeout, "--timeout", "--timeout-s") }
        @OptionGroup var nats: NatsOptions

        func run() throws {
            let selection = try Selection(id, nats: nats)
            let terminal = isatty(STDERR_FILENO) != 0
            let started = Date()
            var last = ""
            while true {
                let jobs: [JobSnapshot]
                do {
                    jobs = try selection.snapshot()
                } catch let error as JetStreamError where error.isTransient {
                    Thread.sleep(forTimeInterval: 0.5)
                    continue
                }
                let finished = jobs.filter { $0.state.isFinished }.count
                let line = Self.bar(finished, of: jobs.count) + "  " + JobsCommand.summary(jobs)
                if line != last {
                    if terminal { printError("\r\u{1B}[K" + line, terminator: "") } else { printError(line) }
                    last = line
                }
                if finished == jobs.count {
                    if terminal { printError("") }
                    for job in jobs where job.state == .failed {
                        print("\(job.job) failed:")
                        for reason in job.result?.reasons ?? [] { print("  \(SafeText.oneLine(reason))") }
                    }
                    if jobs.contains(where: { $0.state == .failed }) { throw ExitCode(ExitStatus.failed) }
                    return
                }
                if timeout > 0, Date().timeIntervalSince(started) > timeout {
                    if terminal { printError("") }
                    printError("error: \(jobs.count - finished) jobs still unfinished after \(timeout) s")
                    throw ExitCode(ExitStatus.failed)
                }
                Thread.sleep(forTimeInterval: 0.5)
            }
        }

        static func bar(_ done: Int, of total: Int, width: Int = 30) -> String {
            let filled = total == 0 ? width : done * width / total
            return "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "] \(done)/\(total)"
        }
    }

    struct Results: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Each finished job's transcripts and translations, or why it failed.")
        @Argument(help: "A batch or job id.") var id: String
        @Flag(help: "JSON Lines: one result per job.") var json = false
        @OptionGroup var nats: NatsOptions

        func run() throws {
            let selection = try Selection(id, nats: nats)
            for job in try selection.snapshot() {
                guard let result = job.result else {
                    if !json { print("\(job.job): \(job.state.label)") }
                    continue
                }
                if json { print(String(decoding: try JSONLines.line(result), as: UTF8.self)); continue }
                print("\(job.job) (\(SafeText.oneLine(job.input))): \(result.status.rawValue) by \(result.worker), attempt \(result.attempts)")
                for line in result.lines {
                    print("  \(line.kind.rawValue) \(line.segment) (\(line.language)): \(SafeText.oneLine(line.text))")
                }
                for reason in result.reasons { print("  \(result.status == .failed ? "reason" : "earlier"): \(SafeText.oneLine(reason))") }
            }
        }
    }

    struct Fetch: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Bring finished jobs' outputs here (or -o DIR): DIR/JOB/session/ (the recorded session), the other files the pipeline wrote, and result.json.")
        @Argument(help: "A batch or job id.") var id: String
        @Option(name: .shortAndLong, help: "The folder to write into (each job in a folder named by its id).") var output = "."
        @Option(name: .customLong("to"), help: .hidden) var oldTo: String?

        mutating func validate() throws { Deprecated.fold(oldTo, into: &output, "--to", "--output") }
        @OptionGroup var nats: NatsOptions

        func run() throws {
            let selection = try Selection(id, nats: nats)
            let root = URL(fileURLWithPath: output)
            var fetched = 0
            for job in try selection.snapshot() {
                guard let result = job.result else { printError("\(job.job): \(job.state.label); nothing to fetch yet"); continue }
                let folder = root.appendingPathComponent(job.job)
                do {
                    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                    try Session.writeAtomically(try JSONLines.line(result), to: folder.appendingPathComponent("result.json"))
                    for file in result.files {
                        // Paths come from a worker: untrusted, kept inside the folder.
                        let parts = file.name.split(separator: "/").map(String.init)
                        guard !parts.isEmpty, !parts.contains(where: { $0 == ".." || $0 == "." || $0.isEmpty }), !file.name.hasPrefix("/") else {
                            printError("\(job.job): skipped a file with an unsafe path: \(SafeText.oneLine(file.name))")
                            continue
                        }
                        let target = folder.appendingPathComponent(parts.joined(separator: "/"))
                        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                        try Session.writeAtomically(Data(try selection.board.fetchBlob(file)), to: target)
                    }
                } catch {
                    printError("error: \(job.job): \(error)")
                    throw ExitCode(ExitStatus.failed)
                }
                fetched += 1
                print("\(job.job): \(result.status.rawValue), \(result.files.count) files in \(folder.path)")
            }
            printError("\(fetched) of \(selection.jobs.count) jobs fetched into \(root.path)")
        }
    }
}
