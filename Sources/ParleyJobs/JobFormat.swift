import Foundation
import ParleyCore

/// The wire format of Parley's work queue, version 1. Every message is one
/// JSON object; all times are Unix milliseconds (they compare across hosts
/// only as well as the hosts' clocks do, and the overhead figures say so).
///
/// Subjects (see ``JobBoard`` for the streams):
/// - `parley.jobs`: one ``JobSpec`` per job, de-duplicated on its id;
/// - `parley.blobs.BATCH.INDEX.PART`: files' chunks (PART `input`, or `outputs`);
/// - `parley.state.BATCH.INDEX`: the job's ``JobEvent``s, oldest first;
/// - `parley.batches.BATCH`: the batch's ``BatchManifest``;
/// - `parley.results.BATCH.INDEX`: the job's one ``JobResult``.
public enum JobFormat {
    public static let job = "parley-job/1"
    public static let result = "parley-result/1"
}

/// A job: a pipeline file (its text travels with the job, so every worker
/// runs the very file that was submitted), the variables set on it, and its
/// input.
public struct JobSpec: Codable, Sendable, Equatable {
    public var format = JobFormat.job
    /// `BATCH-INDEX`, e.g. `k3v9qa-0004`. Also the de-duplication id.
    public var id: String
    public var batch: String
    public var index: Int
    /// The pipeline file's name as submitted (for people) and its text.
    public var pipelineName: String
    public var pipeline: String
    /// Variables set with `--set`; INPUT and SESSION are the worker's.
    public var variables: [String: String]
    public var input: JobInput
    public var submitted: Int64
    /// Set for a shard of `parley bench --nats`: the input is a corpus.
    public var bench: BenchShard?

    public init(batch: String, index: Int, pipelineName: String, pipeline: String, variables: [String: String],
                input: JobInput, submitted: Int64, bench: BenchShard? = nil) {
        self.id = JobSpec.id(batch: batch, index: index)
        self.batch = batch
        self.index = index
        self.pipelineName = pipelineName
        self.pipeline = pipeline
        self.variables = variables
        self.input = input
        self.submitted = submitted
        self.bench = bench
    }

    public static func id(batch: String, index: Int) -> String {
        "\(batch)-\(String(format: "%04d", index))"
    }

    /// A batch id as `parley submit` makes them: 1 to 32 lowercase ASCII
    /// letters and digits. Batch ids and indexes become subject tokens
    /// (`parley.results.BATCH.INDEX`), so a dot or a wildcard in one would
    /// address other subjects, and they are logged, where a line break
    /// would forge a line: a worker takes nothing else.
    public static func isBatchID(_ text: String) -> Bool {
        (1...32).contains(text.utf8.count) && text.utf8.allSatisfy { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    /// Whether `id` is a job id, `BATCH-INDEX` as ``id(batch:index:)`` writes it.
    public static func isJobID(_ id: String) -> Bool {
        let (batch, index) = JobBoard.split(id)
        return isBatchID(batch) && index >= 0 && id == Self.id(batch: batch, index: index)
    }

    /// The id is a job id and the one the batch and index make.
    public var isWellFormed: Bool { id == Self.id(batch: batch, index: index) && Self.isJobID(id) }
}

/// Where a job's audio comes from. Only stored files exist today; a live
/// source (an SRT or RTP address the worker's pipeline reads from, with
/// GStreamer's srtsrc or udpsrc) is the case this enum is ready for: the
/// `kind` field tells them apart, and a worker refuses a kind it does not know
/// with a clear reason.
public enum JobInput: Codable, Sendable, Equatable {
    case file(BlobReference)
    /// A corpus manifest (`parley bench`'s JSON Lines) whose audio and label
    /// paths are the names of `files`, all written into one folder.
    case corpus(manifest: String, files: [BlobReference])

    private enum CodingKeys: String, CodingKey { case kind, file, manifest, files }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let kind = try container.decode(String.self, forKey: .kind)
        switch kind {
        case "file": self = .file(try container.decode(BlobReference.self, forKey: .file))
        case "corpus":
            self = .corpus(manifest: try container.decode(String.self, forKey: .manifest),
                           files: try container.decode([BlobReference].self, forKey: .files))
        default:
            throw DecodingError.dataCorruptedError(forKey: .kind, in: container,
                                                   debugDescription: "input kind '\(SafeText.excerpt(kind, limit: 40))' is not one this worker knows (file, corpus)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .file(let blob):
            try container.encode("file", forKey: .kind)
            try container.encode(blob, forKey: .file)
        case .corpus(let manifest, let files):
            try container.encode("corpus", forKey: .kind)
            try container.encode(manifest, forKey: .manifest)
            try container.encode(files, forKey: .files)
        }
    }
}

/// How a worker plays one shard of a distributed `parley bench`: as
/// `parley bench` plays a corpus (its first `warmup` recordings unmeasured,
/// so each worker loads its own models, then all of them); its records come
/// back as `bench/shard.json` among the job's files.
public struct BenchShard: Codable, Sendable, Equatable {
    public var shard: Int
    public var shards: Int
    public var warmup: Int
    public var gap: Double
    public var paced: Bool
    public var runs: Int

    public init(shard: Int, shards: Int, warmup: Int, gap: Double, paced: Bool, runs: Int) {
        self.shard = shard
        self.shards = shards
        self.warmup = warmup
        self.gap = gap
        self.paced = paced
        self.runs = runs
    }
}

/// A file stored as chunks in the blobs stream: which messages hold it, in
/// order, and its size and SHA-256 to check it on the way back.
public struct BlobReference: Codable, Sendable, Equatable {
    /// The file's name (no folders), or its path inside a session folder.
    public var name: String
    public var size: Int
    public var sha256: String
    public var sequences: [UInt64]

    public init(name: String, size: Int, sha256: String, sequences: [UInt64]) {
        self.name = name
        self.size = size
        self.sha256 = sha256
        self.sequences = sequences
    }
}

/// One step of a job's life, appended to `parley.state.BATCH.INDEX`.
public struct JobEvent: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        /// Published by `parley submit`.
        case queued
        /// A worker took it (attempt = JetStream's delivery count).
        case started
        /// This attempt failed; it will be delivered again.
        case attemptFailed = "attempt-failed"
        /// The result is published.
        case done
        /// It failed its last attempt: the result says why, attempt by attempt.
        case failed
    }

    public var event: Kind
    public var job: String
    public var time: Int64
    public var worker: String?
    public var attempt: Int?
    public var reason: String?

    public init(_ event: Kind, job: String, time: Int64, worker: String? = nil, attempt: Int? = nil, reason: String? = nil) {
        self.event = event
        self.job = job
        self.time = time
        self.worker = worker
        self.attempt = attempt
        self.reason = reason
    }
}

extension JobEvent {
    /// The event that closes a job's history: `done`, or `failed` with the
    /// result's last reason.
    public init(closing result: JobResult, time: Int64) {
        self.init(result.status == .done ? .done : .failed, job: result.job, time: time, worker: result.worker,
                  attempt: result.attempts, reason: result.status == .failed ? result.reasons.last : nil)
    }
}

/// What `parley submit` records about a batch: its jobs, for `parley jobs`.
public struct BatchManifest: Codable, Sendable, Equatable {
    public var batch: String
    public var pipelineName: String
    public var jobs: [String]
    /// Each job's input file name, in job order.
    public var inputs: [String]
    public var submitted: Int64

    public init(batch: String, pipelineName: String, jobs: [String], inputs: [String], submitted: Int64) {
        self.batch = batch
        self.pipelineName = pipelineName
        self.jobs = jobs
        self.inputs = inputs
        self.submitted = submitted
    }
}

/// A job's outcome, published once (de-duplicated on `result-JOB`).
public struct JobResult: Codable, Sendable, Equatable {
    public enum Status: String, Codable, Sendable { case done, failed }

    public var format = JobFormat.result
    public var job: String
    public var status: Status
    /// The worker that finished it (`host:pid`).
    public var worker: String
    /// JetStream's delivery count of the attempt that produced this result.
    public var attempts: Int
    /// Why each failed attempt failed, in order (a worker that died is named).
    public var reasons: [String]
    /// The final transcripts and translations, in segment order.
    public var lines: [ResultLine]
    /// The files the job wrote, by path relative to its outputs folder: the
    /// recorded session under `session/`, other outputs (subtitles, audio)
    /// where the pipeline's relative paths put them, e.g. `out/transcript.srt`.
    public var files: [BlobReference]
    /// The input's duration in seconds (0 when it could not be read).
    public var audioSeconds: Double
    /// When the worker started and finished the successful (or last) attempt.
    public var started: Int64
    public var finished: Int64

    public init(job: String, status: Status, worker: String, attempts: Int, reasons: [String], lines: [ResultLine],
                files: [BlobReference], audioSeconds: Double, started: Int64, finished: Int64) {
        self.job = job
        self.status = status
        self.worker = worker
        self.attempts = attempts
        self.reasons = reasons
        self.lines = lines
        self.files = files
        self.audioSeconds = audioSeconds
        self.started = started
        self.finished = finished
    }
}

/// One final result line of a job: a transcript or a translation of a segment.
public struct ResultLine: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable { case transcript, translation }
    public var kind: Kind
    public var segment: UInt64
    public var language: String
    public var text: String

    public init(kind: Kind, segment: UInt64, language: String, text: String) {
        self.kind = kind
        self.segment = segment
        self.language = language
        self.text = text
    }
}

/// Unix milliseconds, the time in job events and results.
public enum WallClock {
    public static func milliseconds() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }
}
