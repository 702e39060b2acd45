import Foundation

/// Real recorded speech from Debian's pocketsphinx-testdata (installed by
/// scripts/setup), assembled into test recordings with known pauses.
enum SpeechFixtures {
    static let librivox = "/usr/share/pocketsphinx/test/data/librivox"
    static let clips = ["0880", "0890", "0920"].map { "\(librivox)/sense_and_sensibility_01_austen_64kb-\($0).wav" }

    /// 16 kHz mono samples of a WAV file's data chunk.
    static func samples(ofWAV path: String) throws -> [Int16] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        var offset = 12
        while offset + 8 <= data.count {
            let id = String(decoding: data[offset..<(offset + 4)], as: UTF8.self)
            let size = Int(data[offset + 4]) | Int(data[offset + 5]) << 8 | Int(data[offset + 6]) << 16 | Int(data[offset + 7]) << 24
            if id == "data" {
                let body = data[(offset + 8)..<min(data.count, offset + 8 + size)]
                return body.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
            }
            offset += 8 + size + (size & 1)
        }
        throw CocoaError(.fileReadCorruptFile)
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
        var data = Data()
        func append32(_ value: Int) { withUnsafeBytes(of: UInt32(value).littleEndian) { data.append(contentsOf: $0) } }
        func append16(_ value: Int) { withUnsafeBytes(of: UInt16(value).littleEndian) { data.append(contentsOf: $0) } }
        data.append(contentsOf: Array("RIFF".utf8)); append32(36 + samples.count * 2)
        data.append(contentsOf: Array("WAVEfmt ".utf8)); append32(16); append16(1); append16(1)
        append32(rate); append32(rate * 2); append16(2); append16(16)
        data.append(contentsOf: Array("data".utf8)); append32(samples.count * 2)
        samples.withUnsafeBytes { data.append(contentsOf: $0) }
        try data.write(to: URL(fileURLWithPath: path))
    }
}
