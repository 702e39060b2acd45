// The Piper en_US "joe" voice, in a worker process of its own (piper-tts is
// GPL-3.0: it runs beside Parley, never linked into it), as the Whisper
// engine runs. One worker per installation and process, shared by every
// element that speaks with it, started on first use (or `preload`) and
// started again after it dies. Requests go one at a time: each is one JSON
// line out and one back (piper_worker.py), the audio base64 S16LE mono.
import Foundation
import ParleyCore
import Synchronization

public struct PiperError: Error, Sendable, CustomStringConvertible {
    public var description: String
}

public final class PiperVoice: Sendable {
    /// Piper's "joe" medium voice speaks at 22050 Hz.
    public static let rate = 22_050
    /// How long the voice may take to load, and one request to be answered.
    static let loadTimeoutMs: Int32 = 120_000
    static let requestTimeoutMs: Int32 = 60_000

    public let installation: PiperInstallation
    /// The worker, while it runs. Held only around the exchange with it, so
    /// requests are answered one after another, in the order they came.
    private let worker = Mutex<ChildProcess?>(nil)

    private static let voices = Mutex<[PiperInstallation: PiperVoice]>([:])

    /// The voice of `installation`, one per process.
    public static func shared(_ installation: PiperInstallation) -> PiperVoice {
        voices.withLock { voices in
            if let voice = voices[installation] { return voice }
            let voice = PiperVoice(installation: installation)
            voices[installation] = voice
            return voice
        }
    }

    private init(installation: PiperInstallation) { self.installation = installation }

    /// Starts loading the voice on a thread of its own, so the first request
    /// does not wait for it (an element calls this as it opens).
    public func preload() {
        Thread { [self] in _ = try? withWorker { _ throws(PiperError) in () } }.start()
    }

    /// `text` spoken, at `speed` (1 normal; Piper's length scale is its inverse).
    /// Blocks: call it off Swift's cooperative pool.
    public func speak(_ text: String, speed: Double = 1) throws(PiperError) -> [Int16] {
        let request: [String: Any] = ["text": text, "length_scale": 1 / min(4, max(0.25, speed))]
        guard let line = try? JSONSerialization.data(withJSONObject: request) else { throw PiperError(description: "the text could not be sent") }
        let answer = try withWorker { worker throws(PiperError) -> [UInt8] in
            switch worker.exchange(Array(line) + [10], until: 10, timeoutMs: Self.requestTimeoutMs) {
            case .success(let answer): return answer
            case .failure(.timedOut): throw PiperError(description: "the Piper worker did not answer within \(Self.requestTimeoutMs / 1000) s")
            case .failure(.closed): throw PiperError(description: "the Piper worker ended")
            }
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(answer)) as? [String: Any] else {
            throw PiperError(description: "the Piper worker's answer is not JSON")
        }
        if let error = object["error"] as? String { throw PiperError(description: "Piper: \(SafeText.excerpt(error, limit: 300))") }
        guard let encoded = object["audio"] as? String, let bytes = Data(base64Encoded: encoded), bytes.count % 2 == 0 else {
            throw PiperError(description: "the Piper worker's answer has no audio")
        }
        return bytes.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }.map { Int16(littleEndian: $0) }
    }

    /// Runs `body` with the worker, started (and its ready line read) if it
    /// is not running; a worker that failed is ended, so the next call starts
    /// a new one.
    private func withWorker<T>(_ body: (ChildProcess) throws(PiperError) -> T) throws(PiperError) -> T {
        try worker.withLock { current throws(PiperError) -> T in
            if current == nil || current?.isRunning == false {
                current?.terminate()
                current = try start()
            }
            guard let running = current else { throw PiperError(description: "the Piper worker could not start") }
            do throws(PiperError) {
                return try body(running)
            } catch {
                running.terminate()
                current = nil
                throw error
            }
        }
    }

    private func start() throws(PiperError) -> ChildProcess {
        guard installation.isPrepared else { throw PiperError(description: installation.notPreparedAdvice) }
        let process: ChildProcess
        do {
            process = try ChildProcess(executable: installation.python, arguments: [installation.worker])
        } catch {
            throw PiperError(description: "the Piper worker could not start: \(error.description)")
        }
        switch process.exchange([], until: 10, timeoutMs: Self.loadTimeoutMs) {
        case .success(let line):
            let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any]
            if object?["ready"] as? Bool == true { return process }
            process.terminate()
            let reason = (object?["error"] as? String).map { SafeText.excerpt($0, limit: 300) } ?? "it said something else"
            throw PiperError(description: "the Piper voice did not load: \(reason)")
        case .failure:
            process.terminate()
            throw PiperError(description: "the Piper worker ended or hung while loading its voice (\(installation.folder))")
        }
    }
}
