import Dispatch
import Foundation
import Parley
import ParleyJobs

/// Runs a job's pipeline in this process, as `parley run` would: the job's
/// pipeline text is written to its work folder under the submitted name,
/// its input is given as the variable INPUT, and its session is recorded
/// into the folder the worker names (through SESSION when the file declares
/// it, otherwise by setting every sessionrecorder's `location`).
struct PipelineJobRunner: JobRunner {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    func run(_ job: JobSpec, input: URL, sessionFolder: URL) throws -> JobOutcome {
        let folder = sessionFolder.deletingLastPathComponent()
        let path = folder.appendingPathComponent(Worker.safeName(job.pipelineName)).path
        let file: PipelineFile
        do {
            file = try PipelineFile(path: path, text: job.pipeline)
            try Data(job.pipeline.utf8).write(to: URL(fileURLWithPath: path))
        } catch {
            throw Failure(description: "\(error)")
        }
        let declared = Set(file.variables.map(\.name))
        var overrides = job.variables
        overrides["INPUT"] = input.path
        if declared.contains("SESSION") { overrides["SESSION"] = sessionFolder.path }
        let errors = PipelineValidator().validate(file, overrides: overrides)
        guard errors.isEmpty else {
            throw Failure(description: errors.map(\.description).joined(separator: "; "))
        }
        let launch: String
        let pipeline: Pipeline
        do {
            launch = PipelineFile.launchString(try file.tokens(overrides: overrides))
            pipeline = try Pipeline(launch: launch)
        } catch {
            throw Failure(description: "\(job.pipelineName): \(error)")
        }
        let recorders = pipeline.elements(factory: "sessionrecorder")
        for (index, recorder) in recorders.enumerated() where !declared.contains("SESSION") {
            let location = recorders.count == 1 ? sessionFolder : sessionFolder.appendingPathComponent("\(index)")
            try? recorder.setProperty("location", .string(location.path))
        }
        SessionLabel.apply(to: pipeline, file: job.pipelineName, variables: file.resolvedVariables(overrides: overrides))

        let lines = LineCollector()
        let finished = DispatchSemaphore(value: 0)
        let outcome = LineCollector.Outcome()
        Task {
            do {
                try await pipeline.run { event in
                    switch event {
                    case .transcript(let result) where result.status == .final:
                        lines.add(ResultLine(kind: .transcript, segment: result.segmentID, language: result.language, text: result.text))
                    case .translation(let result) where result.status == .final:
                        lines.add(ResultLine(kind: .translation, segment: result.segmentID, language: result.language, text: result.text))
                    default:
                        break
                    }
                }
            } catch let error as PipelineError {
                var reason = "\(error)"
                if case .elementError(_, _, let debug?) = error { reason += " (\(debug))" }
                outcome.fail(reason)
            } catch {
                outcome.fail("\(error)")
            }
            finished.signal()
        }
        finished.wait()
        if let reason = outcome.failure { throw Failure(description: reason) }
        let seconds = (try? AudioFileDecoder.decode(path: input.path, rate: 8000)).map { Double($0.count) / 8000 } ?? 0
        return JobOutcome(lines: lines.all, sessionFolder: recorders.isEmpty ? nil : sessionFolder, audioSeconds: seconds)
    }
}

/// Lines gathered from the pipeline's bus thread.
private final class LineCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [ResultLine] = []

    func add(_ line: ResultLine) { lock.withLock { lines.append(line) } }
    var all: [ResultLine] { lock.withLock { lines } }

    final class Outcome: @unchecked Sendable {
        private let lock = NSLock()
        private var reason: String?
        func fail(_ text: String) { lock.withLock { reason = text } }
        var failure: String? { lock.withLock { reason } }
    }
}
