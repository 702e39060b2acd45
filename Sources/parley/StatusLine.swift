import Foundation
import Parley
import enum ParleyCore.SafeText

/// The live line on a terminal: elapsed time; how far into the input the
/// pipeline is and, for a file, how much of it that is and when it will be
/// done; segments cut, and with a speech recognizer in the pipeline, how
/// many have their transcript and how many are still in flight; while a
/// segment is being spoken and cloudstt shows it as it goes
/// (`partials-every-ms`), the end of what it has heard so far — a live
/// caption, gone once the segment's final is printed.
final class StatusLine: @unchecked Sendable {
    // @unchecked: all state behind `lock`.
    private let enabled: Bool
    private let lock = NSLock()
    private let started = Date()
    private var segmentsClosed = 0
    private var results = 0
    private var position: UInt64 = 0
    private var duration: UInt64?
    private var reachedEnd = false
    /// Whether segments become transcripts here (a cloudstt), so some can be in flight.
    private var countsTranscripts = false
    private weak var pipeline: Pipeline?
    /// Where each cut segment ends, and the furthest end of a transcribed one:
    /// with a recognizer, the share of the file that is done.
    private var segmentEnds: [UInt64: UInt64] = [:]
    private var transcribedUpTo: UInt64 = 0
    private var shown = false
    /// After `finish()` lines still print, without a status line under them.
    private var finished = false
    /// Until the pipeline plays, its elements are opening: a speech model
    /// loading takes seconds, and the line says so instead of "0% done".
    private var playing = false
    /// The latest partial transcript of the segment being spoken, until its final.
    private var caption: String?
    /// How much of a caption the line shows: its end, where the words are new.
    static let captionCharacters = 60

    init(enabled: Bool) { self.enabled = enabled }

    func observe(_ event: PipelineEvent) {
        // At the end the input's length is the position, even when the run
        // was too short for a tick to have asked.
        let final = { if case .eos = event { return self.pipeline?.inputProgress } else { return nil } }()
        lock.withLock {
            switch event {
            case .segment(let segment) where segment.end != nil:
                segmentsClosed += 1
                segmentEnds[segment.segmentID] = segment.end
            case .transcript(let result) where result.status == .partial:
                caption = result.text
            case .transcript(let result):
                caption = nil
                results += 1
                transcribedUpTo = max(transcribedUpTo, segmentEnds[result.segmentID] ?? 0)
            case .stateChanged(_, "PLAYING"):
                playing = true
            case .eos:
                reachedEnd = true
                duration = final?.duration ?? duration
                position = max(position, duration ?? final?.position ?? 0)
            default: break
            }
        }
    }

    func startTicking(_ pipeline: Pipeline) -> Task<Void, Never> {
        let transcribes = !pipeline.elements(factory: "cloudstt").isEmpty
        lock.withLock {
            countsTranscripts = transcribes
            self.pipeline = pipeline
        }
        return Task.detached { [self] in
            while !Task.isCancelled {
                let progress = pipeline.inputProgress
                lock.withLock {
                    guard !reachedEnd, let progress else { return }
                    // Never backwards: a query between buffers can answer less.
                    position = max(position, progress.position)
                    duration = progress.duration ?? duration
                }
                draw()
                try? await Task.sleep(nanoseconds: 500_000_000)
            }
        }
    }

    private func text() -> String {
        let elapsed = Date().timeIntervalSince(started)
        guard playing || reachedEnd else {
            return String(format: "elapsed %.1fs  starting: the elements are opening (loading a speech model takes a few seconds)", elapsed)
        }
        var audio = String(format: "audio %.1fs", Double(position) / 1e9)
        if let duration, duration > 0 {
            // Done is what has been through the whole pipeline: with a
            // recognizer, the audio up to the last transcribed segment (or
            // all of it once everything read is transcribed).
            let allDone = reachedEnd || (countsTranscripts ? results == segmentsClosed && position >= duration : position >= duration)
            let done = allDone ? duration : (countsTranscripts ? transcribedUpTo : position)
            let fraction = min(1, Double(done) / Double(duration))
            audio += String(format: " of %.1fs read (%.0f%% done", Double(duration) / 1e9, fraction * 100)
            if fraction > 0.01 && fraction < 1 {
                audio += String(format: ", about %.0fs left", elapsed / fraction * (1 - fraction))
            }
            audio += ")"
        }
        let segments = countsTranscripts
            ? "segments \(segmentsClosed), transcribed \(results), \(max(0, segmentsClosed - results)) in flight"
            : "segments \(segmentsClosed)"
        return String(format: "elapsed %.1fs  ", elapsed) + audio + "  " + segments + (caption.map(Self.hearing) ?? "")
    }

    /// `  hearing: "…the end of the caption"`, one line however long the segment.
    static func hearing(_ caption: String) -> String {
        let line = TerminalText.safe(caption.replacingOccurrences(of: "\n", with: " "))
        let shown = line.count > captionCharacters ? "…" + line.suffix(captionCharacters - 1) : line
        return "  hearing: \"\(shown)\""
    }

    private func draw() {
        guard enabled else { return }
        lock.withLock {
            guard !finished else { return }
            printError("\r\u{1B}[2K" + text(), terminator: "")
            shown = true
        }
    }

    /// Prints a line without garbling the status line.
    /// Prints one line above the status line. The text may come from a
    /// provider or a user: it is made safe for a terminal first.
    func printAbove(_ text: String, toStandardOutput: Bool = false) {
        let line = TerminalText.safe(text)
        lock.withLock {
            if shown { printError("\r\u{1B}[2K", terminator: "") }
            if toStandardOutput {
                FileHandle.standardOutput.write(Data((line + "\n").utf8))
            } else {
                printError(line)
            }
        }
        draw()
    }

    func finish() {
        guard enabled else { return }
        lock.withLock {
            printError("\r\u{1B}[2K" + text())
            shown = false
            finished = true
        }
    }
}

/// Text from providers and users made fit for one terminal line: control
/// characters (escape sequences that retitle or clear the terminal, carriage
/// returns that overwrite, newlines that forge lines) become U+FFFD, and a
/// line longer than `maxCharacters` is cut with a note of how much was left out.
enum TerminalText {
    static let maxCharacters = 4096

    static func safe(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        var count = 0
        for scalar in text.unicodeScalars {
            if count == maxCharacters {
                return String(out) + "… (\(text.unicodeScalars.count - count) more characters)"
            }
            out.append(scalar != "\t" && SafeText.isUnsafe(scalar) ? "\u{FFFD}" : scalar)
            count += 1
        }
        return String(out)
    }
}
