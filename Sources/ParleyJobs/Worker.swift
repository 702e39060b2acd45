import Dispatch
import Foundation
import ParleyCore
import Synchronization

/// How a worker takes jobs. The redelivery settings belong to the durable
/// consumer all workers share: the first worker to subscribe sets them, and a
/// worker started later with different values is told so at start.
public struct WorkerSettings: Sendable {
    public static let DEFAULT_CONCURRENCY = 1
    public static let DEFAULT_ACK_WAIT: Duration = .seconds(30)
    public static let DEFAULT_MAX_DELIVER = 3
    public static let DEFAULT_RETRY_DELAY: Duration = .seconds(1)

    /// Jobs run at once by this worker.
    public var concurrency = DEFAULT_CONCURRENCY
    /// How long the server waits for an acknowledgement or a sign of life
    /// before it delivers the job to another worker. A running job says it is
    /// alive every third of this.
    public var ackWait = DEFAULT_ACK_WAIT
    /// Deliveries of one job before it is recorded as failed.
    public var maxDeliver = DEFAULT_MAX_DELIVER
    /// The pause before a failed attempt is delivered again.
    public var retryDelay = DEFAULT_RETRY_DELAY
    /// Where each job's input and outputs are written while it runs.
    public var workFolder: URL

    public init(workFolder: URL) {
        self.workFolder = workFolder
    }
}

/// What running a job's pipeline gave.
public struct JobOutcome: Sendable {
    public var lines: [ResultLine]
    public var audioSeconds: Double

    public init(lines: [ResultLine], audioSeconds: Double) {
        self.lines = lines
        self.audioSeconds = audioSeconds
    }
}

/// Runs one job's pipeline: blocking, on the calling thread. A thrown
/// error's description is the attempt's reason, so it names what failed.
///
/// Everything the run writes under `outputs` (its session in
/// `outputs/session`, any other file it makes there) comes back with the
/// result, by its path relative to `outputs`.
public protocol JobRunner: Sendable {
    func run(_ job: JobSpec, input: URL, outputs: URL) throws -> JobOutcome
}

/// What a `JobRunner` throws for a failure no other attempt can change (the
/// job's input cannot be decoded): the job fails at once, with this reason,
/// instead of being delivered again up to max-deliver times.
public struct FinalJobFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ reason: String) { description = reason }
}

/// A worker: takes jobs from the work queue, runs them, publishes their
/// results and acknowledges them.
///
/// The order of the steps is what makes the guarantees:
/// 1. a job whose result is already stored (its last worker died between
///    publishing and acknowledging) is acknowledged without running again;
/// 2. the result is published *before* the acknowledgement, with the
///    de-duplication id `result-JOB`, so a worker that dies in between costs a
///    rerun whose result JetStream drops, never a lost result;
/// 3. a failed attempt asks for redelivery after `retryDelay` until the
///    delivery count reaches `maxDeliver`; the last failure publishes a
///    `failed` result with every attempt's reason and acknowledges; so does
///    the first for a failure no attempt can change (`FinalJobFailure`: an
///    input that cannot be decoded);
/// 4. a job whose last delivery went unanswered too (every worker it met
///    died) is announced by JetStream's max-deliveries advisory, kept in
///    `PARLEY_EXHAUSTED`: a worker records its `failed` result and removes it.
/// While the server is away, every step waits for it (the client reconnects
/// by itself) for up to `patience`, so a restarted server costs a pause.
public final class Worker: Sendable {
    public let name: String
    private let board: JobBoard
    private let settings: WorkerSettings
    private let runner: any JobRunner
    private let log: @Sendable (String) -> Void
    private let draining = Atomic<Bool>(false)
    private let patience: Duration

    public init(board: JobBoard, settings: WorkerSettings, runner: any JobRunner, name: String,
                patience: Duration = .seconds(600), log: @escaping @Sendable (String) -> Void) {
        self.board = board
        self.settings = settings
        self.runner = runner
        self.name = name
        self.patience = patience
        self.log = log
    }

    /// Stops taking jobs; the ones running finish (SIGTERM).
    public func drain() {
        draining.store(true, ordering: .sequentiallyConsistent)
    }

    /// What ``run(_:)`` takes jobs from.
    public struct Subscriptions: Sendable {
        /// One per job slot, on the shared work queue.
        let jobs: [WorkQueueSubscription]
        /// The jobs JetStream gave up on.
        let exhausted: WorkQueueSubscription
    }

    /// Subscribes, checks the shared consumer's settings, and returns the
    /// subscriptions for ``run(_:)``.
    public func subscribe() throws(JetStreamError) -> Subscriptions {
        // Job folders of a worker that was killed here before.
        let swept = LeftoverFolders.sweep(settings.workFolder)
        if swept > 0 { log("removed \(counted(swept, "job folder")) a killed worker left in \(settings.workFolder.path)") }
        try board.prepare()
        var jobs: [WorkQueueSubscription] = []
        for _ in 0..<max(settings.concurrency, 1) {
            jobs.append(try board.jetStream.workQueue(
                stream: JobBoard.jobsStream, subject: JobBoard.jobsSubject, durable: JobBoard.workersConsumer,
                ackWait: settings.ackWait, maxDeliver: settings.maxDeliver))
        }
        let shared = try board.jetStream.consumerSettings(stream: JobBoard.jobsStream, durable: JobBoard.workersConsumer)
        if shared.ackWait != settings.ackWait || shared.maxDeliver != settings.maxDeliver {
            throw JetStreamError("joining the workers", message: "the queue's consumer was made with ack wait \(shared.ackWait) and max deliver \(shared.maxDeliver), this worker asks for \(settings.ackWait) and \(settings.maxDeliver); start it with the queue's values")
        }
        let exhausted = try board.jetStream.workQueue(
            stream: JobBoard.exhaustedStream, subject: JobBoard.exhaustedSubject, durable: JobBoard.exhaustedConsumer,
            ackWait: .seconds(60), maxDeliver: 10)
        return Subscriptions(jobs: jobs, exhausted: exhausted)
    }

    /// Takes and runs jobs on one thread per job slot, and records the jobs
    /// JetStream gave up on from one more, until ``drain()``; returns when
    /// every running job is settled.
    public func run(_ subscriptions: Subscriptions) {
        let group = DispatchGroup()
        func spawn(_ name: String, _ loop: @escaping @Sendable () -> Void) {
            group.enter()
            let thread = Thread {
                loop()
                group.leave()
            }
            thread.name = name
            thread.start()
        }
        for (slot, subscription) in subscriptions.jobs.enumerated() {
            spawn("parley-worker-\(slot)") { [self] in take(from: subscription, handle) }
        }
        let exhausted = subscriptions.exhausted
        spawn("parley-worker-exhausted") { [self] in take(from: exhausted, recordExhausted) }
        group.wait()
    }

    private func take(from subscription: WorkQueueSubscription, _ handle: (Delivery) -> Void) {
        var quietSince: ContinuousClock.Instant?
        while !draining.load(ordering: .sequentiallyConsistent) {
            do {
                guard let delivery = try subscription.next(timeout: .milliseconds(500)) else { continue }
                quietSince = nil
                handle(delivery)
            } catch {
                if quietSince == nil {
                    quietSince = .now
                    log("waiting for the server: \(error)")
                }
                Thread.sleep(forTimeInterval: 0.25)
            }
        }
    }

    // MARK: One job

    private func handle(_ delivery: Delivery) {
        let job: JobSpec
        do {
            job = try JSONDecoder().decode(JobSpec.self, from: Data(delivery.data))
        } catch {
            refuse(delivery, because: error)
            return
        }
        guard job.isWellFormed else {
            refuse(delivery, because: MalformedJob(description: "its id is not its batch id and index (BATCH-INDEX, the batch 1-32 of a-z and 0-9)"))
            return
        }
        let attempt = delivery.deliveryCount
        if let existing = try? persist("looking up \(job.id)'s result", { () throws(JetStreamError) in try board.result(job: job.id) }) {
            log("\(job.id): its result (\(existing.status.rawValue)) is already stored; acknowledging")
            settle(job, "acknowledging") { () throws(JetStreamError) in try delivery.acknowledge() }
            return
        }
        let started = WallClock.milliseconds()
        log("\(job.id): started, attempt \(attempt) of \(settings.maxDeliver) (\(SafeText.excerpt(job.pipelineName, limit: 80)), \(SafeText.excerpt(job.input.name, limit: 80)))")
        try? persist("recording \(job.id) started") { () throws(JetStreamError) in
            try board.record(JobEvent(.started, job: job.id, time: started, worker: name, attempt: attempt))
        }
        let heartbeat = Heartbeat(every: settings.ackWait / 3) { try? delivery.stillWorking() }
        let outcome = Result { () throws(JobFailure) in try execute(job) }
        heartbeat.stop()
        let finished = WallClock.milliseconds()
        switch outcome {
        case .success(let (outcome, files)):
            let result = JobResult(job: job.id, status: .done, worker: name, attempts: attempt,
                                   reasons: earlierReasons(job, attempt: attempt), lines: outcome.lines, files: files,
                                   audioSeconds: outcome.audioSeconds, started: started, finished: finished)
            finish(job, delivery, result)
            log("\(job.id): done in \(String(format: "%.1f", Double(finished - started) / 1000)) s, \(outcome.lines.count) lines, \(files.count) files")
        case .failure(let failure):
            if attempt >= settings.maxDeliver || !failure.worthRetrying {
                let events = (try? board.events(batch: job.batch, index: job.index)) ?? []
                let reasons = AttemptHistory.reasons(events: events, current: attempt, worker: name, reason: failure.reason)
                let result = JobResult(job: job.id, status: .failed, worker: name, attempts: attempt, reasons: reasons, lines: [],
                                       files: [], audioSeconds: 0, started: started, finished: finished)
                finish(job, delivery, result)
                log("\(job.id): failed for good after attempt \(attempt): \(failure.reason)")
            } else {
                try? persist("recording \(job.id)'s failed attempt") { () throws(JetStreamError) in
                    try board.record(JobEvent(.attemptFailed, job: job.id, time: finished, worker: name, attempt: attempt, reason: failure.reason))
                }
                settle(job, "asking for redelivery") { () throws(JetStreamError) in try delivery.retryLater(after: settings.retryDelay) }
                log("\(job.id): attempt \(attempt) failed, will be delivered again: \(failure.reason)")
            }
        }
    }

    /// A job whose last delivery went unanswered too (its worker died, or
    /// lost the server, `max-deliver` times): JetStream will not deliver it
    /// again and says so once, in an advisory kept in `PARLEY_EXHAUSTED`.
    /// Whichever worker takes the advisory publishes the job's `failed`
    /// result with every attempt's reason, unless a result is already
    /// stored (a late worker got there first), and removes the job from the
    /// work queue, where JetStream leaves it.
    private func recordExhausted(_ delivery: Delivery) {
        let advisory: MaxDeliveriesAdvisory
        do {
            advisory = try JSONDecoder().decode(MaxDeliveriesAdvisory.self, from: Data(delivery.data))
        } catch {
            log("message \(delivery.streamSequence) on \(delivery.subject) is no max-deliveries advisory (\(Self.describe(error))): terminated")
            try? delivery.terminate()
            return
        }
        let sequence = advisory.streamSequence
        do {
            try persist("recording the job at \(JobBoard.jobsStream) \(sequence) as failed") { () throws(JetStreamError) in
                guard let message = try board.queuedJob(at: sequence) else { return }
                if let job: JobSpec = JobBoard.decode(message.data), try board.result(job: job.id) == nil {
                    let events = try board.events(batch: job.batch, index: job.index)
                    let reasons = AttemptHistory.reasons(events: events, through: advisory.deliveries)
                    let last = events.last { $0.event == .started }
                    let now = WallClock.milliseconds()
                    let result = JobResult(job: job.id, status: .failed, worker: last?.worker ?? name, attempts: advisory.deliveries,
                                           reasons: reasons, lines: [], files: [], audioSeconds: 0, started: last?.time ?? now, finished: now)
                    if try !board.publish(result).duplicate {
                        try board.record(JobEvent(closing: result, time: now))
                        log("\(job.id): failed for good: none of its \(advisory.deliveries) deliveries was answered")
                    }
                }
                try board.removeQueuedJob(at: sequence)
            }
            try persist("acknowledging the advisory") { () throws(JetStreamError) in try delivery.acknowledge() }
        } catch {
            // Not acknowledged: the advisory comes back after its ack wait.
            log("recording the job at \(JobBoard.jobsStream) \(sequence) as failed: \(error)")
        }
    }

    /// A job this worker cannot read (a newer format, an input kind it does
    /// not know): failed at once with the reason, since no retry reads it
    /// better; a message that is no job at all is only terminated.
    private func refuse(_ delivery: Delivery, because error: any Error) {
        struct Identity: Decodable { let id: String }
        // A result is published under the job's id only when that is a job id: one that is
        // not would name other subjects, or forge log lines, with what the message says.
        guard let identity = try? JSONDecoder().decode(Identity.self, from: Data(delivery.data)), JobSpec.isJobID(identity.id) else {
            log("message \(delivery.streamSequence) on \(delivery.subject) is no \(JobFormat.job) job with a job id: terminated")
            try? delivery.terminate()
            return
        }
        let now = WallClock.milliseconds()
        let reason = "this worker cannot read the job: \(Self.describe(error))"
        let result = JobResult(job: identity.id, status: .failed, worker: name, attempts: delivery.deliveryCount,
                               reasons: ["attempt \(delivery.deliveryCount) on \(name): \(reason)"], lines: [], files: [],
                               audioSeconds: 0, started: now, finished: now)
        _ = try? persist("publishing \(identity.id)'s result") { () throws(JetStreamError) in try board.publish(result) }
        try? board.record(JobEvent(closing: result, time: now))
        try? delivery.terminate()
        log("\(identity.id): \(reason)")
    }

    /// A job that decodes but whose fields disagree (see `JobSpec.isWellFormed`).
    struct MalformedJob: Error, CustomStringConvertible {
        var description: String
    }

    static func describe(_ error: any Error) -> String {
        if case DecodingError.dataCorrupted(let context) = error { return context.debugDescription }
        return "\(error)"
    }

    private func earlierReasons(_ job: JobSpec, attempt: Int) -> [String] {
        guard attempt > 1 else { return [] }
        let events = (try? board.events(batch: job.batch, index: job.index)) ?? []
        return Array(AttemptHistory.reasons(events: events, current: attempt, worker: name, reason: "done").dropLast())
    }

    /// Fetches the input, runs the pipeline, stores what it wrote.
    private func execute(_ job: JobSpec) throws(JobFailure) -> (JobOutcome, [BlobReference]) {
        // Private (0700) and marked as this process's: if the worker is
        // killed, the next one to start removes it (LeftoverFolders.sweep).
        let folder: URL
        do { folder = try LeftoverFolders.make(prefix: Self.safeName(job.id), in: settings.workFolder) } catch {
            throw JobFailure("making the job's folder in \(settings.workFolder.path): \(error)")
        }
        defer { try? FileManager.default.removeItem(at: folder) }
        let inputFolder = folder.appendingPathComponent("input")
        let outputs = folder.appendingPathComponent("outputs")
        let input: URL
        do {
            try FileManager.default.createDirectory(at: inputFolder, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: outputs, withIntermediateDirectories: true)
            switch job.input {
            case .file(let blob):
                input = inputFolder.appendingPathComponent(Self.safeName(blob.name))
                try fetch(blob, to: input, job: job)
            case .corpus(let manifest, let files):
                for blob in files { try fetch(blob, to: inputFolder.appendingPathComponent(Self.safeName(blob.name)), job: job) }
                input = inputFolder.appendingPathComponent("manifest.jsonl")
                try Data(manifest.utf8).write(to: input)
            }
        } catch let failure as JobFailure {
            throw failure
        } catch {
            throw JobFailure("writing the input into \(inputFolder.path): \(error.localizedDescription)")
        }
        let outcome: JobOutcome
        do {
            outcome = try runner.run(job, input: input, outputs: outputs)
        } catch let final as FinalJobFailure {
            throw JobFailure("\(final)", worthRetrying: false)
        } catch {
            throw JobFailure("\(error)")
        }
        var files: [BlobReference] = []
        do {
            for (path, url) in Self.files(in: outputs) {
                let data = try [UInt8](Data(contentsOf: url))
                files.append(try persist("storing \(path)") { () throws(JetStreamError) in
                    try board.storeBlob(name: path, bytes: data, batch: job.batch, index: job.index, part: "outputs")
                })
            }
        } catch {
            throw JobFailure("storing the outputs: \(error)")
        }
        return (outcome, files)
    }

    private func fetch(_ blob: BlobReference, to file: URL, job: JobSpec) throws {
        let bytes: [UInt8]
        do {
            bytes = try persist("fetching \(job.id)'s input") { () throws(JetStreamError) in try board.fetchBlob(blob) }
        } catch {
            throw JobFailure("fetching the input \(SafeText.excerpt(blob.name, limit: 80)): \(error)")
        }
        try Data(bytes).write(to: file)
    }

    private func finish(_ job: JobSpec, _ delivery: Delivery, _ result: JobResult) {
        do {
            let ack = try persist("publishing \(job.id)'s result") { () throws(JetStreamError) in try board.publish(result) }
            if ack.duplicate { log("\(job.id): a result was already stored; JetStream dropped this one") }
        } catch {
            // Not acknowledged: the job comes back after the ack wait.
            log("\(job.id): could not publish the result (\(error)); it will be delivered again")
            return
        }
        try? persist("recording \(job.id) \(result.status.rawValue)") { () throws(JetStreamError) in
            try board.record(JobEvent(closing: result, time: WallClock.milliseconds()))
        }
        settle(job, "acknowledging") { () throws(JetStreamError) in try delivery.acknowledge() }
    }

    private func settle(_ job: JobSpec, _ what: String, _ body: () throws(JetStreamError) -> Void) {
        do {
            try persist("\(what) \(job.id)", body)
        } catch {
            log("\(job.id): \(what) failed (\(error)); the server will deliver it again and its stored result will be kept")
        }
    }

    /// Runs `body`, trying again while the error is transient (server
    /// restarting, connection down) for up to `patience`.
    private func persist<T>(_ what: String, _ body: () throws(JetStreamError) -> T) throws(JetStreamError) -> T {
        let deadline = ContinuousClock.now + patience
        var pause = 0.1
        var told = false
        while true {
            do {
                return try body()
            } catch where error.isTransient && ContinuousClock.now < deadline {
                if !told { log("\(what): \(error); trying again while the server comes back"); told = true }
                Thread.sleep(forTimeInterval: pause)
                pause = min(pause * 2, 2)
            }
        }
    }

    // MARK: Files

    public static func safeName(_ name: String) -> String {
        let base = (name as NSString).lastPathComponent
        let cleaned = String(base.map { $0.isLetter || $0.isNumber || "._-".contains($0) ? $0 : "_" }.prefix(120))
        return cleaned.isEmpty || cleaned.hasPrefix(".") ? "input" + cleaned : cleaned
    }

    /// Regular files under `folder`, as (relative path, URL), sorted.
    static func files(in folder: URL) -> [(String, URL)] {
        let root = folder.standardizedFileURL.path
        guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey]) else { return [] }
        var found: [(String, URL)] = []
        for case let url as URL in walker where (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true {
            let path = url.standardizedFileURL.path
            guard path.hasPrefix(root + "/") else { continue }
            found.append((String(path.dropFirst(root.count + 1)), url))
        }
        return found.sorted { $0.0 < $1.0 }
    }
}

/// Why one attempt failed.
struct JobFailure: Error {
    let reason: String
    /// False for what no other attempt can change (an input kind this
    /// version does not know, an input the runner cannot decode).
    let worthRetrying: Bool

    init(_ reason: String, worthRetrying: Bool = true) {
        self.reason = reason
        self.worthRetrying = worthRetrying
    }
}

/// Calls `beat` every `interval` on a queue of its own until stopped.
///
/// Not on `.global()`: that pool is Swift concurrency's too, as wide as the
/// machine has cores, and a job's pipeline keeps it busy; a beat waiting
/// there for a thread came later than the ack wait on a loaded machine and
/// the job was delivered a second time. A queue of its own is given a
/// thread when the pool has none free.
final class Heartbeat {
    private let timer: DispatchSourceTimer

    init(every interval: Duration, beat: @escaping @Sendable () -> Void) {
        let seconds = max(Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18, 0.1)
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "parley.worker.heartbeat"))
        timer.schedule(deadline: .now() + seconds, repeating: seconds)
        timer.setEventHandler(handler: beat)
        timer.resume()
    }

    func stop() { timer.cancel() }
}

extension JobInput {
    /// The input's name, for logs.
    public var name: String {
        switch self {
        case .file(let blob): return blob.name
        case .corpus(_, let files): return "a corpus of \(files.count) files"
        }
    }
}
