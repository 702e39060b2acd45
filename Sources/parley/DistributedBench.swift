import ArgumentParser
import Foundation
import Parley
import ParleyJobs
import enum ParleyCore.JSONLines

/// `parley bench --nats`: the corpus cut into shards, one job each for the
/// workers, their per-utterance records merged into one report.
///
/// Shards take the recordings in turn (1st, 2nd, ... to shard 0, 1, ...), so
/// their lengths even out. Each shard is a bench of its own as `parley bench`
/// plays one: its first --warmup recordings once unmeasured (each worker
/// loads its own models), then all of its recordings, measured.
struct DistributedBench {
    let command: BenchRunCommand
    let file: String
    let overrides: [String: String]
    let corpus: Corpus

    func run() async throws -> [BenchExecution.RunResult] {
        let count = max(1, min(command.shards ?? 2, corpus.entries.count))
        let text = try String(contentsOfFile: file, encoding: .utf8)
        let board = try command.nats.board(as: "parley bench")
        let batch = SubmitCommand.newBatchID()
        let submitted = WallClock.milliseconds()
        var jobs: [JobSpec] = []
        do {
            for shard in 0..<count {
                let entries = corpus.entries.enumerated().filter { $0.offset % count == shard }.map(\.element)
                var files: [BlobReference] = []
                var manifest: [CorpusEntry] = []
                for (index, original) in entries.enumerated() {
                    var entry = original
                    entry.audio = try upload(corpus.audioPath(original), as: "\(index)-a", into: &files, board: board, batch: batch, shard: shard)
                    if let labels = corpus.labelsPath(original) {
                        entry.labels = try upload(labels, as: "\(index)-l", into: &files, board: board, batch: batch, shard: shard)
                    }
                    manifest.append(entry)
                }
                jobs.append(JobSpec(batch: batch, index: shard, pipelineName: (file as NSString).lastPathComponent, pipeline: text,
                                    variables: overrides, input: .corpus(manifest: try JSONLines.text(manifest), files: files),
                                    submitted: submitted,
                                    bench: BenchShard(shard: shard, shards: count, warmup: min(command.warmup, entries.count), gap: command.gap,
                                                      paced: !command.noPace, runs: command.runs)))
            }
            try board.record(BatchManifest(batch: batch, pipelineName: jobs[0].pipelineName, jobs: jobs.map(\.id),
                                           inputs: jobs.map { "shard \($0.index + 1) of \(count)" }, submitted: submitted))
            for job in jobs {
                try board.record(JobEvent(.queued, job: job.id, time: WallClock.milliseconds()))
                try board.queue(job)
            }
        } catch let error as JetStreamError {
            printError("error: \(error)")
            throw ExitCode(ExitStatus.failed)
        }
        printError("bench: \(corpus.entries.count) recordings in \(count) shards, batch \(batch) on \(board.jetStream.address) (parley jobs watch \(batch))")

        // Wait for every shard's result; Ctrl-C stops waiting (the jobs go on).
        let interrupts = SignalWatch { _, _ in }
        defer { interrupts.cancel() }
        var results: [String: JobResult] = [:]
        var said = -1
        while results.count < count {
            if interrupts.received > 0 {
                printError("interrupted: the shards go on; their results stay in batch \(batch) (parley jobs results \(batch))")
                throw ExitCode(ExitStatus.aborted)
            }
            if let stored = try? board.results(batch: batch) {
                for item in stored where results[item.result.job] == nil { results[item.result.job] = item.result }
            }
            if results.count != said {
                said = results.count
                if !command.quiet { printError("bench: \(results.count)/\(count) shards finished") }
            }
            if results.count < count { try await Task.sleep(for: .milliseconds(500)) }
        }
        var shards: [[BenchExecution.RunResult]] = []
        for job in jobs {
            guard let result = results[job.id], result.status == .done else {
                printError("error: shard \(job.index + 1) (\(job.id)) failed:")
                for reason in results[job.id]?.reasons ?? [] { printError("  \(reason)") }
                throw ExitCode(ExitStatus.failed)
            }
            guard let blob = result.files.first(where: { $0.name == BenchShardRunner.recordPath }) else {
                printError("error: shard \(job.index + 1) (\(job.id)) returned no \(BenchShardRunner.recordPath)")
                throw ExitCode(ExitStatus.failed)
            }
            do {
                let record = try JSONDecoder().decode(BenchShardRecord.self, from: Data(try board.fetchBlob(blob)))
                shards.append(record.results)
            } catch {
                printError("error: shard \(job.index + 1) (\(job.id)): \(BenchShardRunner.recordPath): \(error)")
                throw ExitCode(ExitStatus.failed)
            }
        }
        return BenchExecution.merge(shards)
    }

    private func upload(_ path: String, as name: String, into files: inout [BlobReference], board: JobBoard,
                        batch: String, shard: Int) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            printError("error: \(path): cannot read the file")
            throw ExitCode(ExitStatus.invalidInput)
        }
        let stored = "\(name)-\(Worker.safeName((path as NSString).lastPathComponent))"
        files.append(try board.storeBlob(name: stored, bytes: [UInt8](data), batch: batch, index: shard, part: "input"))
        return stored
    }
}

/// A worker's side of `parley bench --nats`: plays its shard's corpus
/// through the job's pipeline, as `parley bench` would here, and writes the
/// records to `bench/shard.json` in the job's outputs.
enum BenchShardRunner {
    static let recordPath = "bench/shard.json"

    static func run(_ job: JobSpec, shard: BenchShard, pipeline: PipelineFile, variables: [String: String], manifest: URL,
                    outputs: URL) async throws -> JobOutcome {
        let execution = try await BenchExecution(parsed: pipeline, overrides: variables, manifest: manifest.path,
                                                 warmup: shard.warmup, gap: shard.gap, work: outputs.deletingLastPathComponent())
        let results = try await execution.play(runs: shard.runs, paced: shard.paced,
                                               sessions: outputs.appendingPathComponent("sessions").path, progress: nil,
                                               runner: BenchRunner(), stopped: { false })
        if let failure = results.last?.run.failure {
            throw PipelineJobRunner.Failure(description: "run \(results.last?.run.run ?? 0): \(failure)")
        }
        let record = outputs.appendingPathComponent(recordPath)
        try FileManager.default.createDirectory(at: record.deletingLastPathComponent(), withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try encoder.encode(BenchShardRecord(results)).write(to: record)
        return JobOutcome(lines: [], audioSeconds: results.first?.run.audioSeconds ?? 0)
    }
}
