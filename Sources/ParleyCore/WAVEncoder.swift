import Foundation

/// 16-bit PCM mono WAV, the upload format every transcription API takes.
public enum WAVEncoder {
    public static func encode(_ samples: [Int16], rate: Int) -> Data {
        var data = Data(capacity: 44 + samples.count * 2)
        func append32(_ value: Int) { withUnsafeBytes(of: UInt32(value).littleEndian) { data.append(contentsOf: $0) } }
        func append16(_ value: Int) { withUnsafeBytes(of: UInt16(value).littleEndian) { data.append(contentsOf: $0) } }
        data.append(contentsOf: Array("RIFF".utf8)); append32(36 + samples.count * 2)
        data.append(contentsOf: Array("WAVEfmt ".utf8)); append32(16); append16(1); append16(1)
        append32(rate); append32(rate * 2); append16(2); append16(16)
        data.append(contentsOf: Array("data".utf8)); append32(samples.count * 2)
        samples.withUnsafeBytes { data.append(contentsOf: $0) }
        return data
    }
}
