import Foundation
import ParleyCore

/// A corpus recording as the bench and the corpus builders use it: 16 kHz
/// mono samples. A WAV is read directly; anything else GStreamer decodes
/// (FLAC, MP3, Ogg…) goes through `AudioFileDecoder` once, before any timing.
enum CorpusAudio {
    static let rate = 16_000

    static func samples(_ path: String) throws(CorpusError) -> [Int16] {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw CorpusError(file: path, line: 0, "cannot read it")
        }
        if let samples = try? WAVDecoder.decode(data, resampledTo: rate) { return samples }
        do {
            return try AudioFileDecoder.decode(path: path, rate: rate)
        } catch {
            throw CorpusError(file: path, line: 0, "cannot decode it: \(error)")
        }
    }
}
