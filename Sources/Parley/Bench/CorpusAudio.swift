import Foundation
import ParleyCore
import Synchronization

/// A corpus recording as the bench and the corpus builders use it: 16 kHz
/// mono samples. A WAV is read directly; anything else GStreamer decodes
/// (FLAC, MP3, Ogg…) goes through decodebin once, before any timing.
enum CorpusAudio {
    static let rate = 16_000

    static func samples(_ path: String) throws(CorpusError) -> [Int16] {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw CorpusError(file: path, line: 0, "cannot read it")
        }
        if let samples = try? WAVDecoder.decode(data, resampledTo: rate) { return samples }
        guard !path.contains("\"") else { throw CorpusError(file: path, line: 0, "a path with \" cannot be decoded") }
        let temporary = FileManager.default.temporaryDirectory.appendingPathComponent("parley-bench-\(getpid())-decode.wav").path
        defer { try? FileManager.default.removeItem(atPath: temporary) }
        let launch = "filesrc location=\"\(path)\" ! decodebin ! audioconvert ! audioresample "
            + "! audio/x-raw,format=S16LE,channels=1,rate=\(rate) ! wavenc ! filesink location=\"\(temporary)\""
        if let failure = playToEnd(launch) { throw CorpusError(file: path, line: 0, "cannot decode it: \(failure)") }
        guard let wav = try? Data(contentsOf: URL(fileURLWithPath: temporary)),
              let samples = try? WAVDecoder.decode(wav, resampledTo: rate) else {
            throw CorpusError(file: path, line: 0, "decoding gave no audio")
        }
        return samples
    }

    /// Plays a pipeline to its end, blocking this thread (never one of Swift's
    /// pool: the bench decodes off it); the error, if any.
    private static func playToEnd(_ launch: String) -> String? {
        let pipeline: Pipeline
        do { pipeline = try Pipeline(launch: launch) } catch { return error.description }
        final class Outcome: Sendable { let failure = Mutex<String?>(nil) }
        let outcome = Outcome()
        let done = DispatchSemaphore(value: 0)
        Task {
            do { try await pipeline.run() } catch { outcome.failure.withLock { $0 = "\(error)" } }
            done.signal()
        }
        done.wait()
        return outcome.failure.withLock { $0 }
    }
}
