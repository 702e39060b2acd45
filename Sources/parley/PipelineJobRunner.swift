import Dispatch
import Foundation
import Parley
import ParleyJobs
import class ParleyCore.Flag
import enum ParleyCore.OffPool

/// Runs a job's pipeline in this process, as `parley run` would: the job's
/// pipeline text is written to its work folder under the submitted name,
/// its input is given as the variable INPUT, and its session is recorded
/// into `outputs/session` (through SESSION when the file declares it,
/// otherwise by setting every sessionrecorder's `location`).
///
/// Jobs run side by side in one process, so a relative path in a variable
/// (`TRANSCRIPT=out/transcript.srt`, set or by default) would make them
/// write over one another in the worker's folder: it is resolved inside the
/// job's `outputs` instead, and the file comes back with the result. A
/// relative path that climbs out (`../x`) fails the job, naming the variable.
///
/// Unless `trustsPipelines`, the built pipeline must stay inside the job's
/// folder (`PipelineConfinement`: its files, no network or device, no
/// provider address of the submitter's) or the job fails before it plays.
/// A job that plays past its `deadline` is stopped and fails for good.
struct PipelineJobRunner: JobRunner {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// `parley worker --trust-pipelines`: run whatever a submitter's pipeline reaches.
    var trustsPipelines = false
    /// How long a job may play (`--job-deadline-s`).
    var deadline = JobDeadline()

    func run(_ job: JobSpec, input: URL, outputs: URL) throws -> JobOutcome {
        let folder = outputs.deletingLastPathComponent()
        let sessionFolder = outputs.appendingPathComponent("session")
        let path = folder.appendingPathComponent(Worker.safeName(job.pipelineName)).path
        let file: PipelineFile
        do {
            file = try PipelineFile(path: path, text: job.pipeline)
            try Data(job.pipeline.utf8).write(to: URL(fileURLWithPath: path))
        } catch {
            throw Failure(description: "\(error)")
        }
        // A job's variables are its own (--set) and the file's defaults, never this worker's
        // environment, which a declared ${OPENAI_API_KEY} would otherwise read into the job.
        // (A --set name the file does not declare stays, for the validator to name.)
        let variables = job.variables.merging(file.resolvedVariables(overrides: job.variables, environment: [:])) { set, _ in set }
        if let shard = job.bench {
            // parley bench sets SOURCE and SINK itself (and refuses them --set).
            let variables = variables.filter { !["SOURCE", "SINK"].contains($0.key) || job.variables[$0.key] != nil }
            // What the bench plays: the file with a recording of the corpus as its SOURCE, a session inside outputs.
            let played: Pipeline
            do {
                played = try BenchPipeline(file: file, overrides: variables)
                    .built(streamPath: input.path, session: outputs.appendingPathComponent("sessions").path)
            } catch {
                throw Failure(description: "\(job.pipelineName): \(error)")
            }
            try confine(played, to: folder)
            return try Self.wait {
                try await BenchShardRunner.run(job, shard: shard, pipeline: file, variables: variables, manifest: input, outputs: outputs)
            }
        }
        let declared = Set(file.variables.map(\.name))
        var overrides = variables
        overrides["INPUT"] = input.path
        if declared.contains("SESSION") { overrides["SESSION"] = sessionFolder.path }
        for variable in file.variables where variable.name != "INPUT" && variable.name != "SESSION" {
            let value = overrides[variable.name] ?? variable.defaultValue
            guard Self.isRelativePath(value) else { continue }
            guard !value.split(separator: "/").contains("..") else {
                throw Failure(description: "\(variable.name)=\(value): a job's files stay inside its outputs; use a path without ..")
            }
            overrides[variable.name] = outputs.appendingPathComponent(value).path
        }
        let errors = PipelineValidator().validate(file, overrides: overrides)
        guard errors.isEmpty else {
            throw Failure(description: errors.map(\.description).joined(separator: "; "))
        }
        let pipeline: Pipeline
        do {
            pipeline = try Pipeline(launch: PipelineFile.launchString(try file.tokens(overrides: overrides)))
        } catch {
            throw Failure(description: "\(job.pipelineName): \(error)")
        }
        try confine(pipeline, to: folder)
        do {
            // The folders under outputs the file sinks write into, as `parley run` makes them.
            try pipeline.createOutputFolders()
        } catch {
            throw Failure(description: "\(job.pipelineName): \(error)")
        }
        let recorders = pipeline.elements(factory: "sessionrecorder")
        for (index, recorder) in recorders.enumerated() where !declared.contains("SESSION") {
            let location = recorders.count == 1 ? sessionFolder : sessionFolder.appendingPathComponent("\(index)")
            try? recorder.setProperty("location", .string(location.path))
        }
        SessionLabel.apply(to: pipeline, file: job.pipelineName, variables: file.resolvedVariables(overrides: overrides))

        let collected = Collected()
        let expired = Flag()
        let watchdog = Task.detached { [deadline] in
            // A pipeline that never ends (a live test source, a stalled input) would hold the worker for good
            // while its heartbeats keep it "alive": past the deadline it is stopped.
            let started = ContinuousClock.now
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                let inputSeconds = pipeline.inputProgress?.duration.map { Double($0) / 1e9 }
                guard ContinuousClock.now - started > .seconds(deadline.seconds(forInput: inputSeconds)) else { continue }
                expired.set()
                await OffPool.run { pipeline.stop() }
                return
            }
        }
        defer { watchdog.cancel() }
        try Self.wait {
            do throws(PipelineError) {
                try await pipeline.run { event in
                    switch event {
                    case .transcript(let result) where result.status == .final:
                        collected.add(ResultLine(kind: .transcript, segment: result.segmentID, language: result.language, text: result.text))
                    case .translation(let result) where result.status == .final:
                        collected.add(ResultLine(kind: .translation, segment: result.segmentID, language: result.language, text: result.text))
                    case .eos:
                        // The input's length, as its parser knows it, while the pipeline still stands.
                        if let progress = pipeline.inputProgress { collected.inputNanoseconds = progress.duration ?? progress.position }
                    default:
                        break
                    }
                }
            } catch {
                var reason = "\(error)"
                if let details = error.details { reason += " (\(details))" }
                // An input that cannot be read: no other attempt, here or on another worker, reads it better.
                if case .unreadableData = error { throw FinalJobFailure(reason) }
                throw Failure(description: reason)
            }
        }
        if expired.isSet {
            let inputSeconds = pipeline.inputProgress?.duration.map { Double($0) / 1e9 }
            // The same pipeline and input would run as long again: no other attempt.
            throw FinalJobFailure("the job ran past its deadline of \(Int(deadline.seconds(forInput: inputSeconds))) s "
                                  + "(\(deadline.explanation(forInput: inputSeconds))) and was stopped")
        }
        return JobOutcome(lines: collected.lines, audioSeconds: Double(collected.inputNanoseconds) / 1e9)
    }

    func confine(_ pipeline: Pipeline, to folder: URL) throws {
        guard !trustsPipelines else { return }
        let violations = PipelineConfinement(folder: folder.path).violations(in: pipeline)
        guard violations.isEmpty else {
            // The same pipeline is refused the same way on every attempt and every worker: fail it at once.
            throw FinalJobFailure("this worker keeps a job's pipeline inside the job's folder (parley worker --trust-pipelines lifts that): "
                                  + violations.joined(separator: "; "))
        }
    }

    /// Runs async work to its end from a worker's (plain) thread.
    static func wait<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let done = DispatchSemaphore(value: 0)
        let box = Outcome<T>()
        Task {
            do { box.set(.success(try await body())) } catch { box.set(.failure(error)) }
            done.signal()
        }
        done.wait()
        return try box.get()
    }

    /// A value that names a file below the current folder: it has a folder
    /// part or the extension of a file a pipeline writes, and is no absolute
    /// path, URL or list (a model name such as gpt-3.5-turbo is left alone).
    static func isRelativePath(_ value: String) -> Bool {
        guard !value.isEmpty, !value.hasPrefix("/"), !value.contains("://"), !value.contains(","), !value.contains(" ") else {
            return false
        }
        let fileExtension = (value as NSString).pathExtension.lowercased()
        return value.contains("/") || outputExtensions.contains(fileExtension)
    }

    static let outputExtensions: Set<String> = ["srt", "vtt", "txt", "json", "jsonl", "wav", "flac", "ogg", "opus", "mp3", "webm", "raw"]
}

/// What the pipeline's bus thread hands over: final lines, the input's length.
private final class Collected: @unchecked Sendable {
    // @unchecked: every field is behind the lock.
    private let lock = NSLock()
    private var gathered: [ResultLine] = []
    private var nanoseconds: UInt64 = 0

    func add(_ line: ResultLine) { lock.withLock { gathered.append(line) } }
    var lines: [ResultLine] { lock.withLock { gathered } }
    var inputNanoseconds: UInt64 {
        get { lock.withLock { nanoseconds } }
        set { lock.withLock { nanoseconds = newValue } }
    }
}

/// The outcome of async work, handed to the thread waiting for it.
private final class Outcome<T>: @unchecked Sendable {
    // @unchecked: the value is behind the lock.
    private let lock = NSLock()
    private var value: Result<T, any Error>?
    func set(_ result: Result<T, any Error>) { lock.withLock { value = result } }
    func get() throws -> T {
        guard let result = lock.withLock({ value }) else { throw CancellationError() }
        return try result.get()
    }
}

/// How long a job may play: `fixedSeconds` when set (`parley worker
/// --job-deadline-s`), else from its input's duration as the pipeline
/// reports it: `baseSeconds` and `perInputSecond` for each second of input
/// (local engines on 2 cores run at about 1× real time when paced, far
/// faster from a file), or `unknownInputSeconds` when it says none (a live
/// source).
struct JobDeadline: Sendable {
    static let baseSeconds = 120.0
    static let perInputSecond = 4.0
    static let unknownInputSeconds = 600.0

    var fixedSeconds = 0.0

    func seconds(forInput inputSeconds: Double?) -> Double {
        if fixedSeconds > 0 { return fixedSeconds }
        guard let inputSeconds, inputSeconds.isFinite, inputSeconds > 0 else { return Self.unknownInputSeconds }
        return Self.baseSeconds + Self.perInputSecond * inputSeconds
    }

    func explanation(forInput inputSeconds: Double?) -> String {
        if fixedSeconds > 0 { return "parley worker --job-deadline-s" }
        guard let inputSeconds, inputSeconds.isFinite, inputSeconds > 0 else { return "the pipeline does not say how long its input is" }
        return String(format: "%.0f s and %.0f s per second of its %.1f s input", Self.baseSeconds, Self.perInputSecond, inputSeconds)
    }
}
