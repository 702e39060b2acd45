import Foundation
import ParleyCore
import Synchronization

/// Any audio file GStreamer's decodebin reads (MP3, M4A/MP4 AAC, Ogg
/// Vorbis/Opus, WebM, FLAC, WAV…) as mono 16-bit samples at one rate,
/// decoded once, blocking the calling thread. Used by `parley bench` for
/// corpora and by `parley serve` for uploads in formats other than WAV and
/// FLAC. Decoding stops soon after `maxSeconds` of audio, so a small file
/// that expands to hours (a decompression bomb) costs little.
public enum AudioFileDecoder {
    public enum Failure: Error, Sendable, CustomStringConvertible {
        case unreadable(String)
        case tooLong(maxSeconds: Double)
        public var description: String {
            switch self {
            case .unreadable(let reason): reason
            case .tooLong(let limit): "the audio is longer than \(Int(limit)) s"
            }
        }
    }

    /// Decodes the file at `path`. Blocks: call it off Swift's pool (`OffPool.run`).
    public static func decode(path: String, rate: Int, maxSeconds: Double = .infinity) throws(Failure) -> [Int16] {
        let folder = try privateFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        return try decode(path: path, rate: rate, maxSeconds: maxSeconds, workingIn: folder)
    }

    /// Decodes `data` (an upload), kept meanwhile in a private temporary
    /// folder. A failure's text never holds that folder's path: the caller
    /// (`parley serve`) hands it to a client, who named the file itself and
    /// has no business knowing where the server kept it.
    public static func decode(data: Data, rate: Int, maxSeconds: Double) throws(Failure) -> [Int16] {
        let folder = try privateFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("upload")
        func unnamed(_ reason: String) -> Failure {
            // GStreamer's errors name the file they read: `… (reading "/tmp/parley-decode-…/upload")`.
            let shorter = reason.replacingOccurrences(of: " (reading \"\(input.path)\")", with: "")
            return .unreadable(shorter.replacingOccurrences(of: folder.path, with: "the upload's folder"))
        }
        do { try data.write(to: input) } catch {
            throw unnamed("cannot keep the upload: \(error.localizedDescription)")
        }
        do {
            return try decode(path: input.path, rate: rate, maxSeconds: maxSeconds, workingIn: folder)
        } catch {
            guard case .unreadable(let reason) = error else { throw error }
            throw unnamed(reason)
        }
    }

    /// A folder only this user can read (uploads may be private speech; see `PrivateFolder`).
    private static func privateFolder() throws(Failure) -> URL {
        do { return try PrivateFolder.make(prefix: "parley-decode") } catch { throw .unreadable(error.description) }
    }

    /// Decodes into a WAV in `folder`, then reads it back.
    private static func decode(path: String, rate: Int, maxSeconds: Double, workingIn folder: URL) throws(Failure) -> [Int16] {
        let output = folder.appendingPathComponent("decoded.wav")
        let launch = "filesrc location=\(Pipeline.quoted(path)) ! decodebin ! audioconvert ! audioresample "
            + "! audio/x-raw,format=S16LE,channels=1,rate=\(rate) ! wavenc ! filesink location=\(Pipeline.quoted(output.path))"
        let limitBytes = maxSeconds.isFinite ? Int(maxSeconds * Double(rate)) * 2 + 44 : Int.max
        let stoppedEarly: Bool
        switch playToEnd(launch, watching: output.path, limitBytes: limitBytes) {
        case .success(let early): stoppedEarly = early
        case .failure(let failure): throw failure
        }
        guard let wav = try? Data(contentsOf: output), let samples = try? WAVDecoder.decode(wav, resampledTo: rate) else {
            throw .unreadable("decoding gave no audio")
        }
        guard !stoppedEarly, Double(samples.count) <= maxSeconds * Double(rate) else { throw .tooLong(maxSeconds: maxSeconds) }
        return samples
    }

    /// Plays a pipeline to its end on this thread; ends its input once the
    /// file it writes passes `limitBytes`. Whether it did, or the error.
    static func playToEnd(_ launch: String, watching output: String, limitBytes: Int) -> Result<Bool, Failure> {
        let pipeline: Pipeline
        do { pipeline = try Pipeline(launch: launch) } catch { return .failure(.unreadable(error.description)) }
        final class Outcome: Sendable {
            let failure = Mutex<String?>(nil)
            let stoppedEarly = Atomic<Bool>(false)
        }
        let outcome = Outcome()
        let done = DispatchSemaphore(value: 0)
        Task {
            do { try await pipeline.run() } catch { outcome.failure.withLock { $0 = "\(error)" } }
            done.signal()
        }
        while done.wait(timeout: .now() + .milliseconds(50)) == .timedOut {
            let size = (try? FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? 0
            if size > limitBytes && !outcome.stoppedEarly.exchange(true, ordering: .relaxed) { pipeline.sendEOS() }
        }
        if let failure = outcome.failure.withLock({ $0 }) { return .failure(.unreadable(failure)) }
        return .success(outcome.stoppedEarly.load(ordering: .relaxed))
    }
}
