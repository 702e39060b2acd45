import Foundation
import Parley
import enum ParleyCore.OffPool

/// A corpus played through a pipeline: what `parley bench` runs here, and
/// what a worker runs for one shard of `parley bench --nats`.
struct BenchExecution {
    typealias RunResult = (run: BenchReport.Run, segments: [SegmentRecord], scores: [EntryScore])

    let bench: BenchPipeline
    let corpus: Corpus
    let stream: BenchStream

    /// Checks the pipeline, then reads the corpus manifest and decodes it into
    /// one stream, `work/stream.wav`; errors are the user's input (exit 2).
    init(parsed: PipelineFile, overrides: [String: String], manifest: String, warmup: Int, gap: Double, work: URL) async throws {
        bench = try BenchPipeline(file: parsed, overrides: overrides)
        try bench.checkMeasurable()
        let corpus = try Corpus(manifest: manifest)
        self.corpus = corpus
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let path = work.appendingPathComponent("stream.wav").path
        // Decoding blocks (it may run GStreamer pipelines).
        stream = try await OffPool.run { () throws(CorpusError) in
            try BenchStream(corpus: corpus, warmup: warmup, gap: gap, writingTo: path)
        }
    }

    /// Plays the stream `runs` times, each run's session in `sessions/run-N`;
    /// stops after a failed run, or before a run when `stopped` says so.
    func play(runs: Int, paced: Bool, sessions: String, progress: BenchProgress?, runner: BenchRunner,
              stopped: () -> Bool) async throws -> [RunResult] {
        var launches: [String] = []
        for number in 1...runs {
            launches.append(try bench.launch(streamPath: stream.path, paced: paced, session: "\(sessions)/run-\(number)"))
        }
        let measured = stream.placements.filter(\.measured)
        var results: [RunResult] = []
        for number in 1...runs where !stopped() {
            progress?.startRun(number)
            // This run's session replaces the one an earlier bench left in the same output.
            try? FileManager.default.removeItem(atPath: "\(sessions)/run-\(number)")
            let observed = await runner.run(launch: launches[number - 1], streamDuration: stream.duration) { position, duration in
                progress?.update(position: position, duration: duration)
            }
            progress?.finishRun()
            let (segments, scores) = BenchAnalysis(corpus: corpus, stream: stream, run: number).analyze(observed)
            let audio = scores.reduce(0.0) { sum, score in
                sum + (measured.first { corpus.entries[$0.entry].id == score.entry }?.duration ?? 0)
            }
            results.append((BenchReport.Run(
                run: number, audioSeconds: audio, streamSeconds: observed.position, wallSeconds: observed.wallSeconds,
                speed: observed.wallSeconds > 0 ? observed.position / observed.wallSeconds : 0, cpuSeconds: observed.cpuSeconds,
                workerCPUSeconds: observed.workerCPUSeconds, peakRSSMegabytes: observed.peakRSSMegabytes,
                workerPeakRSSMegabytes: observed.workerPeakRSSMegabytes, recordings: scores.count,
                interrupted: observed.interrupted, failure: observed.failure), segments, scores))
            if observed.failure != nil { break }
        }
        return results
    }

    /// Shards' runs as one: run N of every shard becomes run N of the whole
    /// (audio, stream and CPU add up; the wall clock is the slowest shard's,
    /// since shards play at once; memory peaks are the largest).
    static func merge(_ shards: [[RunResult]]) -> [RunResult] {
        let numbers = Set(shards.flatMap { $0.map(\.run.run) }).sorted()
        return numbers.map { number in
            let parts = shards.compactMap { $0.first { $0.run.run == number } }
            let stream = parts.reduce(0) { $0 + $1.run.streamSeconds }
            let wall = parts.map(\.run.wallSeconds).max() ?? 0
            let run = BenchReport.Run(
                run: number, audioSeconds: parts.reduce(0) { $0 + $1.run.audioSeconds }, streamSeconds: stream,
                wallSeconds: wall, speed: wall > 0 ? stream / wall : 0, cpuSeconds: parts.reduce(0) { $0 + $1.run.cpuSeconds },
                workerCPUSeconds: parts.reduce(0) { $0 + $1.run.workerCPUSeconds },
                peakRSSMegabytes: parts.map(\.run.peakRSSMegabytes).max() ?? 0,
                workerPeakRSSMegabytes: parts.map(\.run.workerPeakRSSMegabytes).max() ?? 0,
                recordings: parts.reduce(0) { $0 + $1.run.recordings }, interrupted: parts.contains { $0.run.interrupted },
                failure: parts.compactMap(\.run.failure).first)
            return (run, parts.flatMap(\.segments), parts.flatMap(\.scores))
        }
    }
}

/// One shard's runs as a worker returns them (`bench/shard.json` in the job's outputs).
struct BenchShardRecord: Codable {
    struct Run: Codable {
        var run: BenchReport.Run
        var segments: [SegmentRecord]
        var scores: [EntryScore]
    }
    var runs: [Run]

    init(_ results: [BenchExecution.RunResult]) {
        runs = results.map { Run(run: $0.run, segments: $0.segments, scores: $0.scores) }
    }

    var results: [BenchExecution.RunResult] { runs.map { ($0.run, $0.segments, $0.scores) } }
}
