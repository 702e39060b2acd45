// The Whisper worker: one long-lived Python process (faster-whisper, int8)
// that loads the model once and transcribes segments one at a time, fed over
// a local socket (see whisper_worker.py for the wire format). This side owns
// the queue, so a worker that dies loses only the segment it was working on:
// that one fails with a clear error, the worker is started again, and the
// queued segments go to the new one.
import Foundation
import ParleyCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What the worker answers for one segment.
public struct WhisperResult: Sendable, Decodable, Equatable {
    public struct Segment: Sendable, Decodable, Equatable {
        public var start: Double
        public var end: Double
        public var text: String
        public var avg_logprob: Double
        public var no_speech_prob: Double
        /// Only when the request asked for word times.
        public var words: [Word]?
    }
    /// One word and its time in the segment's audio, in seconds.
    public struct Word: Sendable, Decodable, Equatable {
        public var word: String
        public var start: Double
        public var end: Double
        public var probability: Double
    }
    /// What the worker did ("transcribe", "translate"); nil from a worker
    /// older than the field (whisper_worker.py not installed again since).
    public var task: WhisperTask?
    public var text: String
    /// ISO-639-1, detected unless the request named it.
    public var language: String
    public var language_probability: Double
    /// Seconds of audio.
    public var duration: Double
    /// Seconds of window the encoder got (the audio and the margin, in whole
    /// seconds); nil from a worker older than the field.
    public var window: Double?
    /// How many times the encoder ran for this request: 1 for a segment
    /// within one window, the language found included (the worker encodes
    /// the window once for both); nil from a worker older than the field.
    public var encoder_passes: Int?
    /// The model's own time.
    public var processing_ms: Double
    public var segments: [Segment]

    /// Whisper itself thinks nothing was said.
    public var isNoSpeech: Bool {
        text.isEmpty || (!segments.isEmpty && segments.allSatisfy { $0.no_speech_prob > 0.6 && $0.avg_logprob < -1 })
    }
}

/// Whisper's two tasks: speech to text in its own language, or speech in
/// any language to English text (OpenAI's /v1/audio/translations).
public enum WhisperTask: String, Sendable, Decodable {
    case transcribe, translate
}

public enum WhisperError: Error, Sendable, CustomStringConvertible, Equatable {
    case notPrepared(String)
    /// The worker could not start, or died while loading the model.
    case startFailed(String)
    /// The worker died (or was killed as hung) while transcribing this segment.
    case workerDied(String)
    /// The worker's own queue is full.
    case busy(pending: Int)
    /// The worker could not transcribe this segment (and carries on).
    case failed(String)
    case cancelled
    case stopped

    public var description: String {
        switch self {
        case .notPrepared(let advice): advice
        case .startFailed(let why): "the Whisper worker could not start: \(why)"
        case .workerDied(let why): "the Whisper worker died while transcribing this segment (\(why)); it is being restarted"
        case .busy(let pending): "the Whisper worker's queue is full (\(pending) segments waiting)"
        case .failed(let why): "Whisper could not transcribe the segment: \(why)"
        case .cancelled: "the transcription was cancelled"
        case .stopped: "the Whisper worker was stopped"
        }
    }
}

public final class WhisperWorker: Sendable {
    public struct Options: Sendable {
        /// CTranslate2 threads; 0 = all cores.
        public var threads = 0
        /// Segments that may wait while one is transcribed; more are refused as busy.
        public var maxPending = 16
        public var beamSize = 5
        /// A worker silent this long past a segment's audio length (×10, at least
        /// this) is taken as hung and killed, so no request waits forever.
        public var minimumAnswerTimeout: Duration = .seconds(120)
        public init() {}
    }

    public enum Event: Sendable {
        case started(pid: Int32)
        case ready(pid: Int32, loadSeconds: Double)
        case died(pid: Int32, reason: String, restarting: Bool)
    }

    public static let sampleRate = 16_000
    /// The languages Whisper's models are trained on (their ISO 639 codes, as the model's tokenizer names them).
    public static let languages: Set<String> = [
        "af", "am", "ar", "as", "az", "ba", "be", "bg", "bn", "bo", "br", "bs", "ca", "cs", "cy", "da", "de", "el", "en", "es",
        "et", "eu", "fa", "fi", "fo", "fr", "gl", "gu", "ha", "haw", "he", "hi", "hr", "ht", "hu", "hy", "id", "is", "it", "ja",
        "jw", "ka", "kk", "km", "kn", "ko", "la", "lb", "ln", "lo", "lt", "lv", "mg", "mi", "mk", "ml", "mn", "mr", "ms", "mt",
        "my", "ne", "nl", "nn", "no", "oc", "pa", "pl", "ps", "pt", "ro", "ru", "sa", "sd", "si", "sk", "sl", "sn", "so", "sq",
        "sr", "su", "sv", "sw", "ta", "te", "tg", "th", "tk", "tl", "tr", "tt", "uk", "ur", "uz", "vi", "yi", "yo", "zh", "yue",
    ]

    public let installation: WhisperInstallation
    public let options: Options
    private let onEvent: @Sendable (Event) -> Void
    private let state = Mutex(State())
    private let writer = DispatchQueue(label: "parley.whisper.writer")

    public init(installation: WhisperInstallation, options: Options = Options(),
                onEvent: @escaping @Sendable (Event) -> Void = { _ in }) {
        self.installation = installation
        self.options = options
        self.onEvent = onEvent
    }

    /// The running worker's process id, if one runs.
    public var pid: Int32? { state.withLock { $0.process?.pid } }

    /// Starts the worker if it is not running and waits until its model is
    /// loaded; returns the load time in seconds.
    @discardableResult
    public func start() async throws(WhisperError) -> Double {
        let result: Result<Double, WhisperError> = await withCheckedContinuation { continuation in
            let immediate: Result<Double, WhisperError>? = state.withLock { state in
                if state.stopped { return .failure(.stopped) }
                if state.ready { return .success(state.loadSeconds) }
                state.readyWaiters.append(continuation)
                return nil
            }
            if let immediate { continuation.resume(returning: immediate) } else { launchIfNeeded() }
        }
        return try result.get()
    }

    /// The window margin of a preview (a partial transcript, cloudstt
    /// partials-every-ms): the encoder hears 1 s after the audio rather than
    /// the worker's 8 s, so a pass over a short stretch of speech costs a
    /// fraction of a final's; the last word may come out wrong, as a partial may.
    public static let previewMargin = 1.0

    /// Transcribes 16 kHz mono samples (or, `task: .translate`, puts their
    /// speech into English). `language` empty = detect it. `words`: every
    /// segment also carries its words' times. `margin`: seconds of window
    /// after the audio (nil: the worker's own, 8 s; see whisper_worker.py).
    public func transcribe(_ samples: [Int16], language: String = "", prompt: String = "",
                           temperature: Double = 0, task: WhisperTask = .transcribe,
                           words: Bool = false, margin: Double? = nil) async throws(WhisperError) -> WhisperResult {
        let id = state.withLock { state -> UInt64 in
            defer { state.nextID += 1 }
            return state.nextID
        }
        var header: [String: Any] = ["id": id, "samples": samples.count, "language": language, "prompt": prompt,
                                     "temperature": temperature, "task": task.rawValue, "words": words]
        if let margin { header["margin"] = margin }
        var request = (try? JSONSerialization.data(withJSONObject: header)) ?? Data()
        request.append(10)
        samples.withUnsafeBytes { request.append(contentsOf: $0) }  // S16LE: this side is little-endian too
        let seconds = Double(samples.count) / Double(Self.sampleRate)
        let result: Result<WhisperResult, WhisperError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                enqueue(Job(id: id, request: request, seconds: seconds, continuation: continuation))
            }
        } onCancel: {
            cancelRequest(id)
        }
        let answer = try result.get()
        // A worker script from before these fields ignores them and transcribes.
        if (task == .translate && answer.task != .translate) || (words && answer.segments.contains { $0.words == nil }) {
            throw .failed("the worker script \(installation.worker) is older than this parley (it has no \(task == .translate ? "translate task" : "word times")): run scripts/prepare-whisper")
        }
        return answer
    }

    /// Nothing is being transcribed or waiting to be: a request made now
    /// starts at once (cloudstt's partials run only then).
    public var isIdle: Bool { state.withLock { $0.current == nil && $0.queue.isEmpty } }

    /// Ends the worker; whatever waits fails with `.stopped`.
    public func stop() {
        let (process, jobs, waiters) = state.withLock { state in
            state.stopped = true
            let jobs = (state.current.map { [$0] } ?? []) + state.queue
            let waiters = state.readyWaiters
            state.current = nil
            state.queue = []
            state.readyWaiters = []
            return (state.process, jobs, waiters)
        }
        jobs.forEach { $0.continuation.resume(returning: .failure(.stopped)) }
        waiters.forEach { $0.resume(returning: .failure(.stopped)) }
        if let process {
            // End of input ends the worker's loop; the signal covers one busy transcribing.
            shutdown(process.socket, Int32(SHUT_RDWR))
            kill(process.pid, SIGTERM)
        }
    }

    // MARK: - Queue

    private struct Job {
        var id: UInt64
        var request: Data
        var seconds: Double
        var continuation: CheckedContinuation<Result<WhisperResult, WhisperError>, Never>
    }

    private struct Process {
        var pid: Int32
        var socket: Int32
        var generation: Int
    }

    private struct State {
        var process: Process?
        var ready = false
        /// The running worker stops a request on `{"cancel": id}` (older scripts do not).
        var cancels = false
        var loadSeconds = 0.0
        var generation = 0
        var queue: [Job] = []
        var current: Job?
        var readyWaiters: [CheckedContinuation<Result<Double, WhisperError>, Never>] = []
        var nextID: UInt64 = 1
        var stopped = false
        var stderrTail: [String] = []
    }

    private func enqueue(_ job: Job) {
        let refused: WhisperError? = state.withLock { state in
            if state.stopped { return .stopped }
            if state.queue.count >= options.maxPending { return .busy(pending: state.queue.count) }
            state.queue.append(job)
            return nil
        }
        if let refused { job.continuation.resume(returning: .failure(refused)); return }
        launchIfNeeded()
        sendNext()
    }

    /// A cancelled request still queued leaves the queue; the one being
    /// transcribed is told to stop (`{"cancel": id}`): the worker stops
    /// between the model's steps and answers `cancelled`, so a withdrawn
    /// speculation gives the worker back in about one step, not after the
    /// whole segment. Its answer, if it came first, is thrown away by the caller.
    private func cancelRequest(_ id: UInt64) {
        let (job, process): (Job?, Process?) = state.withLock { state in
            if let index = state.queue.firstIndex(where: { $0.id == id }) { return (state.queue.remove(at: index), nil) }
            return (nil, state.current?.id == id && state.cancels ? state.process : nil)
        }
        job?.continuation.resume(returning: .failure(.cancelled))
        if let process {
            let line = Data("{\"cancel\":\(id)}\n".utf8)
            writer.async { _ = Self.sendAll(line, to: process.socket) }
        }
    }

    /// One segment at a time: the worker is serial anyway, and what has not
    /// been sent survives a restart.
    private func sendNext() {
        let next: (Job, Process)? = state.withLock { state in
            guard state.ready, state.current == nil, !state.queue.isEmpty, let process = state.process else { return nil }
            let job = state.queue.removeFirst()
            state.current = job
            return (job, process)
        }
        guard let (job, process) = next else { return }
        writer.async {
            // A failed write means the worker is gone: its reader reports that.
            _ = Self.sendAll(job.request, to: process.socket)
        }
        let timeout = max(options.minimumAnswerTimeout, .seconds(job.seconds * 10))
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int(timeout.components.seconds * 1000))) {
            [weak self] in self?.killIfStillOn(job.id, process: process, after: timeout)
        }
    }

    private func killIfStillOn(_ id: UInt64, process: Process, after timeout: Duration) {
        let hung = state.withLock { $0.current?.id == id && $0.process?.generation == process.generation }
        guard hung else { return }
        appendStderr("parley: no answer within \(timeout), killing the worker")
        kill(process.pid, SIGKILL)
    }

    // MARK: - The process

    private func launchIfNeeded() {
        let launch: Int? = state.withLock { state in
            guard !state.stopped, state.process == nil else { return nil }
            state.generation += 1
            state.ready = false
            return state.generation
        }
        guard let generation = launch else { return }
        guard installation.isPrepared else {
            fail(generation: generation, with: .notPrepared(installation.notPreparedAdvice))
            return
        }
        var arguments = [installation.python, installation.worker, "--model", installation.model,
                         "--threads", String(options.threads), "--beam-size", String(options.beamSize)]
        var environment = ProcessInfo.processInfo.environment
        environment["HF_HUB_OFFLINE"] = "1"
        environment["PYTHONDONTWRITEBYTECODE"] = "1"
        let spawned: (pid: Int32, socket: Int32, stderr: Int32)
        do throws(WhisperError) {
            spawned = try Self.spawn(arguments, environment: environment)
        } catch {
            fail(generation: generation, with: error)
            return
        }
        arguments.removeAll()
        let process = Process(pid: spawned.pid, socket: spawned.socket, generation: generation)
        state.withLock { $0.process = process }
        onEvent(.started(pid: spawned.pid))
        Thread.detachNewThread { [self] in readAnswers(process) }
        Thread.detachNewThread { [self] in drainStderr(spawned.stderr) }
    }

    /// Fails whatever waits for a worker that never became ready.
    private func fail(generation: Int, with error: WhisperError) {
        let (jobs, waiters) = state.withLock { state -> ([Job], [CheckedContinuation<Result<Double, WhisperError>, Never>]) in
            guard state.generation == generation else { return ([], []) }
            defer { state.queue = []; state.readyWaiters = [] }
            return (state.queue, state.readyWaiters)
        }
        jobs.forEach { $0.continuation.resume(returning: .failure(error)) }
        waiters.forEach { $0.resume(returning: .failure(error)) }
    }

    private func readAnswers(_ process: Process) {
        var pending = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(process.socket, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            pending.append(contentsOf: buffer[0..<count])
            while let newline = pending.firstIndex(of: 10) {
                let line = pending[pending.startIndex..<newline]
                pending = Data(pending[(newline + 1)...])
                handle(line, from: process)
            }
        }
        close(process.socket)
        var status: Int32 = 0
        while waitpid(process.pid, &status, 0) < 0 && errno == EINTR {}
        died(process, reason: Self.describe(status: status))
    }

    private func handle(_ line: Data, from process: Process) {
        guard let object = try? JSONSerialization.jsonObject(with: line) as? [String: Any] else {
            appendStderr("parley: unreadable answer from the worker: \(String(decoding: line.prefix(200), as: UTF8.self))")
            return
        }
        if object["ready"] as? Bool == true {
            let seconds = object["load_seconds"] as? Double ?? 0
            let waiters = state.withLock { state in
                state.ready = true
                state.cancels = object["cancels"] as? Bool == true
                state.loadSeconds = seconds
                defer { state.readyWaiters = [] }
                return state.readyWaiters
            }
            onEvent(.ready(pid: process.pid, loadSeconds: seconds))
            waiters.forEach { $0.resume(returning: .success(seconds)) }
            sendNext()
            return
        }
        let id = (object["id"] as? NSNumber)?.uint64Value
        let job: Job? = state.withLock { state in
            guard let current = state.current, current.id == id else { return nil }
            state.current = nil
            return current
        }
        guard let job else { return }
        if object["cancelled"] as? Bool == true {
            job.continuation.resume(returning: .failure(.cancelled))
        } else if let error = object["error"] as? String {
            job.continuation.resume(returning: .failure(.failed(error)))
        } else if let result = try? JSONDecoder().decode(WhisperResult.self, from: line) {
            job.continuation.resume(returning: .success(result))
        } else {
            job.continuation.resume(returning: .failure(.failed("unreadable answer from the worker")))
        }
        sendNext()
    }

    private func died(_ process: Process, reason exit: String) {
        let tail = state.withLock { $0.stderrTail.last { !$0.isEmpty } }
        let reason = tail.map { "\(exit); last words: \($0)" } ?? exit
        let outcome = state.withLock { state -> (current: Job?, wasReady: Bool, restart: Bool)? in
            guard state.process?.generation == process.generation else { return nil }
            let current = state.current
            let wasReady = state.ready
            state.process = nil
            state.current = nil
            state.ready = false
            // Restart only a worker that had loaded: one that cannot load would only die again.
            return (current, wasReady, wasReady && !state.stopped)
        }
        guard let outcome else { return }
        onEvent(.died(pid: process.pid, reason: reason, restarting: outcome.restart))
        outcome.current?.continuation.resume(returning: .failure(.workerDied(reason)))
        if outcome.wasReady {
            if outcome.restart { launchIfNeeded() }
        } else {
            fail(generation: process.generation, with: .startFailed(reason))
        }
    }

    private func drainStderr(_ descriptor: Int32) {
        var pending = Data()
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            pending.append(contentsOf: buffer[0..<count])
            while let newline = pending.firstIndex(of: 10) {
                appendStderr(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                pending = Data(pending[(newline + 1)...])
            }
        }
        if !pending.isEmpty { appendStderr(String(decoding: pending, as: UTF8.self)) }
        close(descriptor)
    }

    /// The worker's last lines, for the error that names why it died.
    private func appendStderr(_ line: String) {
        state.withLock { state in
            state.stderrTail.append(line)
            if state.stderrTail.count > 40 { state.stderrTail.removeFirst(state.stderrTail.count - 40) }
        }
    }

    // MARK: - POSIX

    /// Spawns the worker with a socket as its stdin and stdout and a pipe as
    /// its stderr. Its own process group: a Ctrl-C meant for the pipeline
    /// (which drains it through EOS) must not kill the worker first.
    private static func spawn(_ arguments: [String], environment: [String: String]) throws(WhisperError)
        -> (pid: Int32, socket: Int32, stderr: Int32) {
        // CLOEXEC from birth on every end, so a second worker never inherits this
        // one's socket (its death would then never reach us as end of file).
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        var sockets: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, type, 0, &sockets) == 0 else {
            throw .startFailed("socketpair: \(String(cString: strerror(errno)))")
        }
        var errorPipe: [Int32] = [0, 0]  // [ours, its stderr]
        guard socketpair(AF_UNIX, type, 0, &errorPipe) == 0 else {
            close(sockets[0]); close(sockets[1])
            throw .startFailed("socketpair: \(String(cString: strerror(errno)))")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, sockets[1], 0)
        posix_spawn_file_actions_adddup2(&actions, sockets[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errorPipe[1], 2)
        // And nothing else of the host's: the worker outlives requests, and any pipe or
        // socket another thread had open as it spawned (a child's output being read to
        // its end, a server's connection) would stay open while the worker lives.
        ChildProcess.closeEverythingAboveStandardStreams(in: &actions)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        posix_spawnattr_setpgroup(&attributes, 0)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGINT, SIGTERM, SIGCHLD] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var noMask = sigset_t()
        sigemptyset(&noMask)
        posix_spawnattr_setsigmask(&attributes, &noMask)

        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { argv.forEach { free($0) }; envp.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, envp)
        close(sockets[1])
        close(errorPipe[1])
        guard spawned == 0 else {
            close(sockets[0]); close(errorPipe[0])
            throw .startFailed("\(arguments[0]): \(String(cString: strerror(spawned)))")
        }
        return (pid, sockets[0], errorPipe[0])
    }

    private static func sendAll(_ data: Data, to socket: Int32) -> Bool {
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                // MSG_NOSIGNAL: a dead worker must not take the host process down with SIGPIPE.
                let sent = send(socket, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
                if sent < 0 && errno == EINTR { continue }
                if sent <= 0 { return false }
                offset += sent
            }
            return true
        }
    }

    static func describe(status: Int32) -> String {
        let signal = status & 0x7f
        if signal == 0 { return "exit status \((status >> 8) & 0xff)" }
        let name = [SIGKILL: "SIGKILL", SIGTERM: "SIGTERM", SIGSEGV: "SIGSEGV", SIGABRT: "SIGABRT", SIGINT: "SIGINT"][signal]
        return "killed by signal \(signal)" + (name.map { " (\($0))" } ?? "")
    }
}
