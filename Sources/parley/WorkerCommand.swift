import ArgumentParser
import Foundation
import ParleyJobs
import enum ParleyCore.PrivateFolder

/// `parley worker`: takes jobs from the NATS work queue until stopped.
struct WorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker", abstract: "Take jobs from the NATS JetStream work queue and run them.",
        discussion: """
            Each job's pipeline file runs in this process with the job's variables and its input; its session \
            is recorded, uploaded and published with the transcripts as the job's result, then the job is \
            acknowledged. While a job runs the worker tells the server every third of the ack wait that it is \
            alive. A worker that dies has its jobs delivered to another after the ack wait; a job that fails \
            --max-deliver times is recorded as failed with every attempt's reason.

            SIGTERM or Ctrl-C stops taking jobs and finishes the running ones (drains); a second one exits \
            at once, and the server delivers the unfinished jobs to another worker after the ack wait.

            Every worker shares one durable consumer (parley-workers): the first to start sets --ack-wait \
            and --max-deliver, and a worker asking for others is refused with the values to use.

            A job's pipeline runs as this worker's user, so it is checked before it plays: its files \
            (location, uri, cache-dir) inside the job's folder, no network element, no device, no \
            base-url (an API key in this worker's environment goes only to its provider's own address). \
            --trust-pipelines lifts the check, for submitters trusted as this user.

            \(ExitStatus.brief)
            """)

    @OptionGroup var nats: NatsOptions
    @Option(help: "Jobs run at once.") var concurrency = WorkerSettings.DEFAULT_CONCURRENCY
    @Option(name: .customLong("ack-wait-s"), help: "Seconds without a sign of life before a job goes to another worker.")
    var ackWait = Double(WorkerSettings.DEFAULT_ACK_WAIT.components.seconds)
    @Option(name: .customLong("ack-wait"), help: .hidden) var oldAckWait: Double?
    @Option(name: .customLong("max-deliver"), help: "Deliveries of a job before it is recorded as failed.")
    var maxDeliver = WorkerSettings.DEFAULT_MAX_DELIVER
    @Option(name: .customLong("retry-delay-s"), help: "Seconds before a failed attempt is delivered again.")
    var retryDelay = Double(WorkerSettings.DEFAULT_RETRY_DELAY.components.seconds)
    @Option(name: .customLong("retry-delay"), help: .hidden) var oldRetryDelay: Double?
    @Flag(name: .customLong("trust-pipelines"),
          help: "Run every job's pipeline as it was sent: files anywhere this user may reach, the network, devices, any provider address. Without it a job's pipeline keeps to the job's folder, with no network or device and the providers' own addresses only, or fails.")
    var trustPipelines = false
    @Option(name: .customLong("job-deadline-s"),
            help: "Seconds a job may run before it is stopped and failed (not retried); 0 = from its input: \(Int(JobDeadline.baseSeconds)) s and \(Int(JobDeadline.perInputSecond)) s per second of input (\(Int(JobDeadline.unknownInputSeconds)) s when the pipeline cannot say how long its input is).")
    var jobDeadline = 0.0
    @Option(name: .customLong("work-dir"), help: "Where jobs' inputs and sessions are written while they run, each job in a folder of its own removed when it ends (default: a private temporary folder, removed when the worker exits).")
    var workDir: String?

    mutating func validate() throws {
        Deprecated.fold(oldAckWait, into: &ackWait, "--ack-wait", "--ack-wait-s")
        Deprecated.fold(oldRetryDelay, into: &retryDelay, "--retry-delay", "--retry-delay-s")
        guard (1...64).contains(concurrency) else { throw ValidationError("--concurrency takes 1 to 64, got \(concurrency)") }
        guard ackWait >= 1, ackWait <= 3600 else { throw ValidationError("--ack-wait-s takes 1 to 3600 seconds, got \(ackWait)") }
        guard (1...100).contains(maxDeliver) else { throw ValidationError("--max-deliver takes 1 to 100, got \(maxDeliver)") }
        guard retryDelay >= 0, retryDelay <= 3600 else { throw ValidationError("--retry-delay-s takes 0 to 3600 seconds, got \(retryDelay)") }
        guard jobDeadline >= 0, jobDeadline <= 7 * 86_400 else { throw ValidationError("--job-deadline-s takes 0 to 604800 seconds, got \(jobDeadline)") }
    }

    func run() async throws {
        let name = workerName()
        let folder: URL
        if let workDir {
            folder = URL(fileURLWithPath: workDir)
        } else {
            // A worker killed before left its folder: the first worker to start after it removes it.
            LeftoverFolders.sweep(FileManager.default.temporaryDirectory, prefix: "parley-worker-")
            do { folder = try LeftoverFolders.make(prefix: "parley-worker", in: FileManager.default.temporaryDirectory) } catch {
                printError("error: \(error)")
                throw ExitCode(ExitStatus.failed)
            }
        }
        var settings = WorkerSettings(workFolder: folder)
        settings.concurrency = concurrency
        settings.ackWait = .milliseconds(Int64(ackWait * 1000))
        settings.maxDeliver = maxDeliver
        settings.retryDelay = .milliseconds(Int64(retryDelay * 1000))
        let board = try nats.board(as: "parley worker \(name)")
        let worker = Worker(board: board, settings: settings, runner: PipelineJobRunner(trustsPipelines: trustPipelines, deadline: JobDeadline(fixedSeconds: jobDeadline)), name: name) { line in
            printError("worker \(name): \(line)")
        }
        let subscriptions: Worker.Subscriptions
        do {
            subscriptions = try worker.subscribe()
        } catch {
            printError("error: \(error)")
            throw ExitCode(ExitStatus.failed)
        }
        let interrupts = SignalWatch { signal, count in
            if count == 1 {
                printError("worker \(name): \(signal): finishing the running jobs, taking no more (again to exit now)")
                worker.drain()
            } else {
                printError("worker \(name): \(signal): exiting now; unfinished jobs go to another worker after the ack wait")
                Foundation.exit(ExitStatus.aborted)
            }
        }
        defer { interrupts.cancel() }
        printError("worker \(name): taking jobs from \(board.jetStream.address) (concurrency \(concurrency), ack wait \(ackWait) s, max deliver \(maxDeliver))")
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let thread = Thread {
                worker.run(subscriptions)
                done.resume()
            }
            thread.start()
        }
        // Each job removes its own folder; the whole folder goes only when the worker made it.
        // A --work-dir is the user's, with whatever else they keep there.
        if workDir == nil { try? FileManager.default.removeItem(at: folder) }
        printError("worker \(name): drained, exiting")
    }
}
