import Foundation
import ParleyCore

/// Real recorded speech from Debian's pocketsphinx-testdata (installed by
/// scripts/setup), assembled into test recordings with known pauses.
enum SpeechFixtures {
    static let librivox = "/usr/share/pocketsphinx/test/data/librivox"
    static let clips = ["0880", "0890", "0920"].map { "\(librivox)/sense_and_sensibility_01_austen_64kb-\($0).wav" }

    /// 16 kHz mono samples of a WAV file.
    static func samples(ofWAV path: String) throws -> [Int16] {
        try WAVDecoder.decode(try Data(contentsOf: URL(fileURLWithPath: path))).samples
    }

    struct Recording {
        var path: String
        /// Where each clip lies, in seconds.
        var spans: [ClosedRange<Double>]
    }

    /// The three LibriVox clips with `gap` seconds of silence between them.
    static func threeUtterances(gap: Double = 1.0, in folder: URL) throws -> Recording {
        var all: [Int16] = []
        var spans: [ClosedRange<Double>] = []
        for (index, clip) in clips.enumerated() {
            if index > 0 { all += [Int16](repeating: 0, count: Int(gap * 16_000)) }
            let start = Double(all.count) / 16_000
            all += try samples(ofWAV: clip)
            spans.append(start...(Double(all.count) / 16_000))
        }
        let path = folder.appendingPathComponent("three-utterances.wav").path
        try writeWAV(all, rate: 16_000, to: path)
        return Recording(path: path, spans: spans)
    }

    static func writeWAV(_ samples: [Int16], rate: Int, to path: String) throws {
        try WAVEncoder.encode(samples, rate: rate).write(to: URL(fileURLWithPath: path))
    }
}
