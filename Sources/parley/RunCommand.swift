import ArgumentParser
import Dispatch
import Foundation
import Parley
import enum ParleyCore.Session
import func ParleyCore.counted
import struct ParleySpeech.SessionMessage

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run", abstract: "Run a pipeline file to the end of the stream.",
        discussion: """
            Ctrl-C or SIGTERM ends the input and lets everything in flight drain; a second one aborts \
            (files written so far are completed). The folders above every file sink's location \
            (filesink, transcriptsink, multifilesink, splitmuxsink) are created first, as `mkdir -p` would.

            \(ExitStatus.brief)
            """)

    @Argument(help: "The .pipeline file, or the name of one that `parley list` shows.") var file: String
    @Option(name: [.customLong("set"), .customShort("s")], help: "Set a declared variable: KEY=VALUE (repeatable).")
    var assignments: [String] = []
    @Flag(help: "Print each segment's per-stage latency figures as they arrive.") var latency = false
    @Flag(name: .shortAndLong, help: "No status line.") var quiet = false
    @Flag(help: "Push-to-talk from the keyboard: \(PushToTalk.help).") var ptt = false

    func run() async throws {
        let overrides = try parseAssignments(assignments)
        let file = try PipelineFolders.resolveExisting(self.file)
        guard let (parsed, launch) = loadValidated(file, overrides: overrides) else { throw ExitCode(ExitStatus.invalidInput) }
        let pipeline: Pipeline
        do {
            pipeline = try Pipeline(launch: launch)
        } catch {
            printError("\(file): error: \(error)")
            throw ExitCode(ExitStatus.invalidInput)
        }
        do {
            try pipeline.createOutputFolders()
        } catch {
            printError("\(file): error: \(error)")
            throw ExitCode(ExitStatus.failed)
        }
        // A recorded session says which file and variables made it (secrets are left out by the recorder).
        let variables = parsed.resolvedVariables(overrides: overrides)
        SessionLabel.apply(to: pipeline, file: file, variables: variables)
        // When a transcriptsink writes to standard output (text-translate), standard
        // output is the pipeline's: Parley's own lines go to standard error.
        let resultsToStandardOutput = !pipeline.elements(factory: "transcriptsink").contains {
            let location = $0.property("location")?.string ?? ""
            return location.isEmpty || location == "-"
        }
        var sessions: [String] = []
        let status = StatusLine(enabled: !quiet && isatty(STDERR_FILENO) != 0)
        // The first SIGINT or SIGTERM ends the input: everything in flight
        // drains and every file is completed. A second stops now, keeping
        // what reached the files playable.
        let interrupts = SignalWatch { name, count in
            if count == 1 {
                status.printAbove("\(name): finishing the input and draining (Ctrl-C again to abort)")
                pipeline.sendEOS()
            } else {
                status.printAbove("\(name): aborting (what reached the files is kept)")
                pipeline.stopKeepingFiles()
            }
        }
        defer { interrupts.cancel() }
        let ticker = status.startTicking(pipeline)
        defer { ticker.cancel() }
        var pushToTalk: PushToTalk?
        if ptt {
            guard let keys = PushToTalk(pipeline: pipeline, status: status) else {
                printError("\(file): error: --ptt drives a vadsegmenter, and this pipeline has none")
                throw ExitCode(ExitStatus.invalidInput)
            }
            pushToTalk = keys
        }
        defer { pushToTalk?.finish() }
        // Said before the elements open, so it comes before what they say
        // (providers, models) and before the first result.
        status.printAbove("running \(file) (Ctrl-C ends the input)")
        do {
            try await pipeline.run { event in
                status.observe(event)
                switch event {
                case .segment(let segment) where segment.end != nil:
                    status.printAbove(SegmentFormatter.line(segment), toStandardOutput: resultsToStandardOutput)
                case .transcript(let result) where result.status == .final:
                    status.printAbove("transcript \(result.segmentID): \(result.text)", toStandardOutput: resultsToStandardOutput)
                case .translation(let result) where result.status == .final:
                    status.printAbove("translation \(result.segmentID) (\(result.language)): \(result.text)", toStandardOutput: resultsToStandardOutput)
                case .latency(let report) where latency:
                    status.printAbove(LatencyFormatter.line(report))
                case .stateChanged(_, "PAUSED"):
                    // Keys act from PAUSED on: a pipeline whose sinks wait for data
                    // to preroll would otherwise never hear the first press.
                    pushToTalk?.start()
                case .stateChanged(_, "PLAYING"):
                    pushToTalk?.start()
                case .info(let source, let message):
                    status.printAbove("\(source): \(message)")
                case .warning(let source, let message, _):
                    status.printAbove("warning: \(source): \(message)")
                case .elementMessage(_, let structure) where structure.name == SessionMessage.name:
                    if let session = SessionMessage(structure), session.phase == .ended {
                        sessions.append(session.location)
                        status.printAbove("session: \(counted(session.segments, "segment")), \(session.failures) failed, in \(session.location)")
                    }
                case .fallback(let move):
                    status.printAbove("fallback: \(move.source): segment \(move.segmentID): \(move.from) → \(move.to.isEmpty ? "none left" : move.to): \(move.reason)")
                default:
                    break
                }
            }
        } catch {
            status.finish()
            if interrupts.received > 1 { throw ExitCode(ExitStatus.aborted) }
            printError("error: \(error)")
            if let details = error.details { printError("  details: \(details)") }
            throw ExitCode(ExitStatus.failed)
        }
        status.finish()
        for location in sessions {
            let folder = URL(fileURLWithPath: location)
            let parent = folder.deletingLastPathComponent().standardizedFileURL.path
            let dir = parent == Session.defaultRoot().standardizedFileURL.path ? "" : "--dir \(parent) "
            status.printAbove("replay: parley sessions play \(dir)\(folder.lastPathComponent)", toStandardOutput: resultsToStandardOutput)
            status.printAbove("read:   parley sessions show \(dir)\(folder.lastPathComponent)", toStandardOutput: resultsToStandardOutput)
        }
        if interrupts.received > 1 { throw ExitCode(ExitStatus.aborted) }
    }
}

enum SegmentFormatter {
    static func line(_ segment: SegmentEvent) -> String {
        let start = Double(segment.start) / 1e9, end = Double(segment.end ?? segment.start) / 1e9
        return String(format: "segment %llu  %7.2f s – %7.2f s  (%@)", segment.segmentID, start, end,
                      segment.reason ?? "?")
    }
}

enum LatencyFormatter {
    static func line(_ report: LatencyReport) -> String {
        let figures = report.figures.sorted { $0.key < $1.key }
            .map { "\($0.key)=\(String(format: "%.1f", $0.value))" }.joined(separator: " ")
        return "latency segment=\(report.segmentID) stage=\(report.stage) \(figures)"
    }
}

/// Tells every sessionrecorder which file and variables made the session
/// (the recorder leaves secrets out).
enum SessionLabel {
    static func apply(to pipeline: Pipeline, file: String, variables: [String: String]) {
        for recorder in pipeline.elements(factory: "sessionrecorder") {
            try? recorder.setProperty("pipeline", .string(file))
            try? recorder.setProperty("variables", .string(variables.sorted { $0.key < $1.key }
                .map { "\($0.key)=\($0.value.replacingOccurrences(of: ";", with: ","))" }.joined(separator: ";")))
        }
    }
}
