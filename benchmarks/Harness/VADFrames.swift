import Foundation
import VADSegmenter

/// Per-10 ms-frame decisions of Parley's speech detector on a 16 kHz mono
/// S16LE WAV file, one 0/1 per line, for scoring with the vadbench contract.
enum VADFrames {
    /// Probabilities and the spectral detector's features per frame.
    static func frames(wav path: String) throws -> (rows: [String], seconds: Double) {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let samples: [Int16] = data.withUnsafeBytes { raw in
            // Skip to the data chunk.
            var offset = 12
            while offset + 8 <= raw.count {
                let id = String(decoding: raw[offset..<(offset + 4)], as: UTF8.self)
                let size = Int(raw.load(fromByteOffset: offset + 4, as: UInt32.self))
                if id == "data" {
                    let count = min(size, raw.count - offset - 8) / 2
                    return Array(UnsafeRawBufferPointer(rebasing: raw[(offset + 8)...]).bindMemory(to: Int16.self).prefix(count))
                }
                offset += 8 + size + (size & 1)
            }
            return []
        }
        var detector = SpectralDetector(rate: 16_000)
        var probabilities: [Float] = [], features: [(Float, Float)] = []
        probabilities.reserveCapacity(samples.count / 160)
        let started = ProcessInfo.processInfo.systemUptime
        samples.withUnsafeBufferPointer { all in
            var offset = 0
            while offset + 160 <= all.count {
                let frame = UnsafeBufferPointer(rebasing: all[offset..<(offset + 160)])
                probabilities.append(detector.probability(of: frame))
                features.append((detector.lastLogLikelihood, detector.lastTonality))
                offset += 160
            }
        }
        let seconds = ProcessInfo.processInfo.systemUptime - started
        let rows = zip(probabilities, features).map { "\($0) \($1.0) \($1.1)" }
        return (rows, seconds)
    }
}
