import Foundation
import Parley
import enum ParleyCore.SafeText

/// The live line on a terminal: elapsed, audio position, segments done and in flight.
final class StatusLine: @unchecked Sendable {
    // @unchecked: all state behind `lock`.
    private let enabled: Bool
    private let lock = NSLock()
    private let started = Date()
    private var segmentsClosed = 0
    private var results = 0
    private var position: UInt64 = 0
    private var shown = false
    /// After `finish()` lines still print, without a status line under them.
    private var finished = false

    init(enabled: Bool) { self.enabled = enabled }

    func observe(_ event: PipelineEvent) {
        lock.withLock {
            switch event {
            case .segment(let segment) where segment.end != nil: segmentsClosed += 1
            case .transcript(let result) where result.status != .partial: results += 1
            default: break
            }
        }
    }

    func startTicking(_ pipeline: Pipeline) -> Task<Void, Never> {
        Task.detached { [self] in
            while !Task.isCancelled {
                let position = pipeline.position ?? 0
                lock.withLock { self.position = position }
                draw()
                try? await Task.sleep(nanoseconds: 500_000_000)
            }
        }
    }

    private func text() -> String {
        let elapsed = Date().timeIntervalSince(started)
        let audio = Double(position) / 1e9
        let done = max(results, segmentsClosed)
        let inFlight = max(0, segmentsClosed - results)
        return String(format: "elapsed %.1fs  audio %.1fs  segments %d done, %d in flight", elapsed, audio, done, inFlight)
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
            out.append(scalar != "\t" && SafeText.isControl(scalar) ? "\u{FFFD}" : scalar)
            count += 1
        }
        return String(out)
    }
}
