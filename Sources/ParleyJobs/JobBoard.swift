import Foundation
import ParleyCore

/// Parley's streams on a JetStream server, and every read and write the
/// worker, `parley submit` and `parley jobs` make on them.
///
/// | stream | subjects | retention |
/// |---|---|---|
/// | `PARLEY_JOBS` | `parley.jobs` | work queue: removed when a worker acknowledges; de-duplicated on the job id for 24 h |
/// | `PARLEY_BLOBS` | `parley.blobs.>` | inputs and session files in 256 KiB chunks, kept 7 days |
/// | `PARLEY_STATE` | `parley.state.>`, `parley.batches.>` | job events and batch manifests, kept 7 days |
/// | `PARLEY_RESULTS` | `parley.results.>` | one result per job (de-duplicated on `result-JOB` for 24 h), kept 7 days |
/// | `PARLEY_EXHAUSTED` | JetStream's max-deliveries advisory for `parley-workers` | work queue: a job whose every delivery went unanswered, until a worker records it failed |
///
/// Files travel as chunked messages because the C client in Debian (3.4)
/// has no object store; a ``BlobReference`` lists a file's chunks by stream
/// sequence, so concurrent uploads never mix, and its SHA-256 is checked when
/// the file is read back. Everything runs on file storage: a restarted server
/// loses nothing that it acknowledged.
public struct JobBoard: Sendable {
    public static let jobsStream = "PARLEY_JOBS"
    public static let blobsStream = "PARLEY_BLOBS"
    public static let stateStream = "PARLEY_STATE"
    public static let resultsStream = "PARLEY_RESULTS"
    public static let exhaustedStream = "PARLEY_EXHAUSTED"
    public static let jobsSubject = "parley.jobs"
    /// The durable consumer every worker shares.
    public static let workersConsumer = "parley-workers"
    /// The durable consumer through which workers take the exhausted jobs.
    public static let exhaustedConsumer = "parley-exhausted"
    /// Where JetStream says a job reached max-deliver unacknowledged.
    public static let exhaustedSubject = MaxDeliveriesAdvisory.subject(stream: jobsStream, consumer: workersConsumer)
    /// Chunks stay well under the server's default 1 MiB message limit.
    public static let chunkSize = 256 * 1024
    /// How long a job id, or a result id, is remembered to drop duplicates.
    /// Longer than any job's redeliveries (max-deliver × ack wait + its runs).
    public static let duplicateWindow: Duration = .seconds(24 * 3600)
    public static let retention: Duration = .seconds(7 * 24 * 3600)

    public let jetStream: JetStream

    public init(_ jetStream: JetStream) {
        self.jetStream = jetStream
    }

    /// Creates the streams that do not exist yet.
    public func prepare() throws(JetStreamError) {
        for spec in [
            StreamSpec(name: Self.jobsStream, subjects: [Self.jobsSubject], workQueue: true, maxAge: Self.retention,
                       duplicateWindow: Self.duplicateWindow),
            StreamSpec(name: Self.blobsStream, subjects: ["parley.blobs.>"], maxAge: Self.retention),
            StreamSpec(name: Self.stateStream, subjects: ["parley.state.>", "parley.batches.>"], maxAge: Self.retention),
            StreamSpec(name: Self.resultsStream, subjects: ["parley.results.>"], maxAge: Self.retention,
                       duplicateWindow: Self.duplicateWindow),
            // JetStream publishes the advisory once, to whoever listens: a
            // stream keeps it until a worker has recorded the job as failed.
            StreamSpec(name: Self.exhaustedStream, subjects: [Self.exhaustedSubject], workQueue: true, maxAge: Self.retention),
        ] {
            try jetStream.ensureStream(spec)
        }
    }

    // MARK: Files

    /// Stores `bytes` as chunks on `parley.blobs.BATCH.INDEX.PART`.
    public func storeBlob(name: String, bytes: [UInt8], batch: String, index: Int, part: String) throws(JetStreamError) -> BlobReference {
        let subject = "parley.blobs.\(batch).\(index).\(part)"
        var sequences: [UInt64] = []
        var offset = 0
        repeat {
            let end = min(offset + Self.chunkSize, bytes.count)
            sequences.append(try jetStream.publish(subject, Array(bytes[offset..<end])).sequence)
            offset = end
        } while offset < bytes.count
        return BlobReference(name: name, size: bytes.count, sha256: Self.hex(SHA256.hash(bytes)), sequences: sequences)
    }

    /// Reads a stored file back, checking its size and digest. The reference
    /// comes in a job or a result, so its size is a claim: checked against
    /// its chunks before anything is read, and never allocated on trust (a
    /// job claiming 100 GB made every worker it reached abort).
    public func fetchBlob(_ blob: BlobReference) throws(JetStreamError) -> [UInt8] {
        // storeBlob's chunks: one at least (an empty file), then one per chunkSize.
        let chunks = blob.size < 0 ? -1 : max(1, blob.size / Self.chunkSize + (blob.size % Self.chunkSize == 0 ? 0 : 1))
        guard chunks == blob.sequences.count else {
            throw JetStreamError("reading \(SafeText.excerpt(blob.name, limit: 80))",
                                 message: "\(blob.sequences.count) chunks cannot hold the \(blob.size) bytes it claims")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(min(blob.size, Self.chunkSize * 64))
        for sequence in blob.sequences {
            bytes += try jetStream.message(stream: Self.blobsStream, sequence: sequence).data
            guard bytes.count <= blob.size else { break }
        }
        guard bytes.count == blob.size, Self.hex(SHA256.hash(bytes)) == blob.sha256 else {
            throw JetStreamError("reading \(SafeText.excerpt(blob.name, limit: 80))", message: "its chunks do not add up to the \(blob.size) bytes and SHA-256 it was stored with")
        }
        return bytes
    }

    // MARK: Jobs, events, results

    /// Queues a job; a second publication of the same id is dropped by JetStream.
    @discardableResult
    public func queue(_ job: JobSpec) throws(JetStreamError) -> PublishAck {
        try jetStream.publish(Self.jobsSubject, Self.encode(job), messageID: job.id)
    }

    public func record(_ event: JobEvent) throws(JetStreamError) {
        let (batch, index) = Self.split(event.job)
        try jetStream.publish("parley.state.\(batch).\(index)", Self.encode(event))
    }

    public func record(_ manifest: BatchManifest) throws(JetStreamError) {
        try jetStream.publish("parley.batches.\(manifest.batch)", Self.encode(manifest), messageID: "batch-\(manifest.batch)")
    }

    /// Publishes a job's result; JetStream keeps only the first for each job.
    @discardableResult
    public func publish(_ result: JobResult) throws(JetStreamError) -> PublishAck {
        let (batch, index) = Self.split(result.job)
        return try jetStream.publish("parley.results.\(batch).\(index)", Self.encode(result), messageID: "result-\(result.job)")
    }

    /// The job stored at `sequence` of the work queue, nil when it is gone
    /// (acknowledged, or removed).
    public func queuedJob(at sequence: UInt64) throws(JetStreamError) -> StoredMessage? {
        try jetStream.messageIfStored(stream: Self.jobsStream, sequence: sequence)
    }

    /// Takes a job out of the work queue without a worker acknowledging it.
    public func removeQueuedJob(at sequence: UInt64) throws(JetStreamError) {
        try jetStream.deleteMessage(stream: Self.jobsStream, sequence: sequence)
    }

    public func manifest(batch: String) throws(JetStreamError) -> BatchManifest? {
        try jetStream.lastMessage(stream: Self.stateStream, subject: "parley.batches.\(batch)").flatMap { Self.decode($0.data) }
    }

    /// A job's events, oldest first (`index` nil: the whole batch's).
    public func events(batch: String, index: Int? = nil) throws(JetStreamError) -> [JobEvent] {
        try jetStream.messages(stream: Self.stateStream, subject: "parley.state.\(batch).\(index.map(String.init) ?? "*")")
            .compactMap { Self.decode($0.data) }
    }

    public func result(job: String) throws(JetStreamError) -> JobResult? {
        let (batch, index) = Self.split(job)
        return try jetStream.lastMessage(stream: Self.resultsStream, subject: "parley.results.\(batch).\(index)")
            .flatMap { Self.decode($0.data) }
    }

    /// Every result stored for the batch, in the order they were published.
    public func results(batch: String) throws(JetStreamError) -> [StoredResult] {
        try jetStream.messages(stream: Self.resultsStream, subject: "parley.results.\(batch).*").compactMap { message in
            Self.decode(message.data).map { StoredResult(result: $0, sequence: message.sequence) }
        }
    }

    // MARK: Helpers

    /// A job id's batch and index (`k3v9qa-0004` → `k3v9qa`, 4).
    public static func split(_ job: String) -> (batch: String, index: Int) {
        guard let dash = job.lastIndex(of: "-"), let index = Int(job[job.index(after: dash)...]) else { return (job, 0) }
        return (String(job[..<dash]), index)
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    static func encode<T: Encodable>(_ value: T) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array((try? encoder.encode(value)) ?? Data())
    }

    static func decode<T: Decodable>(_ bytes: [UInt8]) -> T? {
        try? JSONDecoder().decode(T.self, from: Data(bytes))
    }
}

/// A result as stored, with its stream sequence (results are never
/// renumbered, so a watcher can read on from the last one it saw).
public struct StoredResult: Sendable {
    public let result: JobResult
    public let sequence: UInt64
}
