import Foundation
import ParleyCore

/// Mono 16-bit samples as a compressed audio file, through GStreamer's own
/// encoders, blocking the calling thread: `parley serve` answers
/// /v1/audio/speech with it in OpenAI's mp3 (its default), opus and aac.
/// (WAV and FLAC need no GStreamer: WAVEncoder, FLACCodec.)
public enum AudioFileEncoder {
    /// OpenAI's compressed speech formats, as OpenAI sends them.
    public enum Format: String, Sendable, CaseIterable {
        /// MPEG-1/2 layer III frames (lamemp3enc, gstreamer1.0-plugins-good).
        case mp3
        /// Opus in Ogg (opusenc, oggmux: gstreamer1.0-plugins-base).
        case opus
        /// AAC-LC in ADTS frames (avenc_aac, gstreamer1.0-libav).
        case aac

        var encoders: String {
            switch self {
            case .mp3: "lamemp3enc"
            case .opus: "opusenc ! oggmux"
            case .aac: "avenc_aac ! aacparse ! audio/mpeg,stream-format=adts"
            }
        }
    }

    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// Encodes `samples` at `rate`. Blocks: call it off Swift's pool (`OffPool.run`).
    public static func encode(_ samples: [Int16], rate: Int, as format: Format) throws(Failure) -> Data {
        let folder: URL
        do { folder = try PrivateFolder.make(prefix: "parley-encode") } catch { throw Failure(description: error.description) }
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("speech.wav"), output = folder.appendingPathComponent("speech.\(format.rawValue)")
        do { try WAVEncoder.encode(samples, rate: rate).write(to: input) } catch {
            throw Failure(description: "cannot keep the audio: \(error.localizedDescription)")
        }
        let launch = "filesrc location=\(Pipeline.quoted(input.path)) ! wavparse ! audioconvert ! audioresample ! "
            + "\(format.encoders) ! filesink location=\(Pipeline.quoted(output.path))"
        if case .failure(let failure) = AudioFileDecoder.playToEnd(launch, watching: output.path, limitBytes: .max) {
            throw Failure(description: "the \(format.rawValue) encoder failed: \(failure)")
        }
        guard let data = try? Data(contentsOf: output), !data.isEmpty else {
            throw Failure(description: "the \(format.rawValue) encoder gave no audio")
        }
        return data
    }
}
