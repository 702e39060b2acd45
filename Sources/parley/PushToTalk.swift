import Foundation
import GstKit
import Parley

/// `parley run --ptt`: the keyboard drives the pipeline's vadsegmenters.
///
/// Space (or Enter) starts talking and, pressed again, stops: a toggle,
/// because a terminal reports key presses but not releases, so holding a key
/// cannot be told from pressing it. Starting to talk switches a vadsegmenter
/// in `vad` mode to `ptt`; `v` hands segmentation back to voice activity;
/// `q` ends the input (EOS, everything in flight drains). On a terminal the
/// keys act at once (no Enter needed, no echo) and the terminal is restored
/// at the end; from a pipe the same bytes act as they arrive, which is how
/// scripts and tests drive it.
final class PushToTalk: @unchecked Sendable {
    // @unchecked: `talking`, `saved` and `started` are touched under `lock` only.
    static let help = "space starts and stops talking (a toggle: terminals do not report key release), v hands back to the VAD, q ends"

    private let segmenters: [GstKit.Element]
    private let pipeline: Pipeline
    private let status: StatusLine
    private let lock = NSLock()
    private var talking = false
    private var saved: termios?
    private var started = false

    /// Nil when the pipeline has no vadsegmenter to drive.
    init?(pipeline: Pipeline, status: StatusLine) {
        segmenters = pipeline.elements(factory: "vadsegmenter")
        guard !segmenters.isEmpty else { return nil }
        self.pipeline = pipeline
        self.status = status
    }

    /// Once, when the pipeline first plays.
    func start() {
        guard lock.withLock({ defer { started = true }; return !started }) else { return }
        if isatty(STDIN_FILENO) != 0 {
            var original = termios()
            if tcgetattr(STDIN_FILENO, &original) == 0 {
                var raw = original
                raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
                withUnsafeMutableBytes(of: &raw.c_cc) { cc in
                    cc[Int(VMIN)] = 1
                    cc[Int(VTIME)] = 0
                }
                if tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0 { lock.withLock { saved = original } }
            }
        }
        status.printAbove("push-to-talk: \(Self.help)")
        Thread { [self] in readKeys() }.start()
    }

    /// Gives the terminal back as it was.
    func finish() {
        lock.withLock {
            if var original = saved { tcsetattr(STDIN_FILENO, TCSANOW, &original) }
            saved = nil
        }
    }

    private func readKeys() {
        var byte: UInt8 = 0
        while read(STDIN_FILENO, &byte, 1) == 1 {
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"): toggle()
            case UInt8(ascii: "v"), UInt8(ascii: "V"): handBackToVAD()
            case UInt8(ascii: "q"), UInt8(ascii: "Q"):
                status.printAbove("push-to-talk: ending the input")
                pipeline.sendEOS()
                return
            default: break
            }
        }
    }

    private func toggle() {
        let now = lock.withLock { talking.toggle(); return talking }
        for segmenter in segmenters {
            // ptt-active first: the mode switch must find the button already down.
            try? segmenter.setProperty("ptt-active", .bool(now))
            if now { try? segmenter.setProperty("mode", fromString: "ptt") }
        }
        status.printAbove(now ? "● talking (space to stop)" : "○ not talking (space to talk)")
    }

    private func handBackToVAD() {
        lock.withLock { talking = false }
        for segmenter in segmenters {
            try? segmenter.setProperty("ptt-active", .bool(false))
            try? segmenter.setProperty("mode", fromString: "vad")
        }
        status.printAbove("voice activity decides again (space to talk)")
    }
}

