import Foundation

/// Reads 16-bit PCM WAV (any rate; channels are mixed down to mono).
public enum WAVDecoder {
    public enum DecodeError: Error, Sendable, CustomStringConvertible, Equatable {
        case notWAV
        case unsupported(String)
        public var description: String {
            switch self {
            case .notWAV: "the file is not a WAV file"
            case .unsupported(let what): "unsupported WAV: \(what); send 16-bit PCM"
            }
        }
    }

    /// The samples at `rate` (resampled when the file has another).
    public static func decode(_ data: Data, resampledTo rate: Int) throws(DecodeError) -> [Int16] {
        let decoded = try decode(data)
        return Resampler.resample(decoded.samples, from: decoded.rate, to: rate)
    }

    public static func decode(_ data: Data) throws(DecodeError) -> (samples: [Int16], rate: Int) {
        let bytes = [UInt8](data)
        guard bytes.count >= 12, bytes[0..<4] == Array("RIFF".utf8)[...], bytes[8..<12] == Array("WAVE".utf8)[...] else {
            throw .notWAV
        }
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
        var offset = 12
        var rate = 0, channels = 0, bits = 0, format = 0
        while offset + 8 <= bytes.count {
            let id = String(decoding: bytes[offset..<(offset + 4)], as: UTF8.self)
            let size = u32(offset + 4)
            let body = offset + 8
            if id == "fmt ", body + 16 <= bytes.count {
                format = u16(body); channels = u16(body + 2); rate = u32(body + 4); bits = u16(body + 14)
            } else if id == "data" {
                guard format == 1 || format == 0xFFFE else { throw .unsupported("format \(format)") }
                guard bits == 16, channels >= 1 else { throw .unsupported("\(bits)-bit, \(channels) channels") }
                let end = min(bytes.count, body + size)
                let frames = (end - body) / (2 * channels)
                var samples = [Int16](repeating: 0, count: frames)
                for frame in 0..<frames {
                    var sum = 0
                    for channel in 0..<channels {
                        sum += Int(Int16(bitPattern: UInt16(u16(body + (frame * channels + channel) * 2))))
                    }
                    samples[frame] = Int16(sum / channels)
                }
                return (samples, rate)
            }
            offset = body + size + (size & 1)
        }
        throw .notWAV
    }
}
