import Foundation
import Parley

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
            printError("\r\u{1B}[2K" + text(), terminator: "")
            shown = true
        }
    }

    /// Prints a line without garbling the status line.
    func printAbove(_ line: String, toStandardOutput: Bool = false) {
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
        }
    }
}
