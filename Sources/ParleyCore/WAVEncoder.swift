import Foundation

/// 16-bit PCM WAV (mono: the upload format every transcription API takes).
public enum WAVEncoder {
    public static func encode(_ samples: [Int16], rate: Int) -> Data {
        var data = Data(capacity: 44 + samples.count * 2)
        data.append(header(sampleCount: samples.count, rate: rate))
        samples.withUnsafeBytes { data.append(contentsOf: $0) }
        return data
    }

    /// The 44-byte header for `sampleCount` samples (all channels', interleaved):
    /// what a file written as audio arrives starts with, and gets again once
    /// its length is known.
    public static func header(sampleCount: Int, rate: Int, channels: Int = 1) -> Data {
        var data = Data(capacity: 44)
        func append32(_ value: Int) { withUnsafeBytes(of: UInt32(value).littleEndian) { data.append(contentsOf: $0) } }
        func append16(_ value: Int) { withUnsafeBytes(of: UInt16(value).littleEndian) { data.append(contentsOf: $0) } }
        data.append(contentsOf: Array("RIFF".utf8)); append32(36 + sampleCount * 2)
        data.append(contentsOf: Array("WAVEfmt ".utf8)); append32(16); append16(1); append16(channels)
        append32(rate); append32(rate * 2 * channels); append16(2 * channels); append16(16)
        data.append(contentsOf: Array("data".utf8)); append32(sampleCount * 2)
        return data
    }
}
