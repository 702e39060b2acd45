import Foundation
import ParleyCore
import VADSegmenter

/// Per-10 ms-frame decisions of Parley's speech detector on a 16 kHz mono
/// S16LE WAV file, one 0/1 per line, for scoring with the vadbench contract.
enum VADFrames {
    /// Probabilities and the spectral detector's features per frame.
    static func frames(wav path: String) throws -> (rows: [String], seconds: Double) {
        let (samples, _) = try WAVDecoder.decode(try Data(contentsOf: URL(fileURLWithPath: path)))
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
