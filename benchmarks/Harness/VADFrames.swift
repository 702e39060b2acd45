import Foundation
import ParleyCore
import VADSegmenter

/// Per-10 ms-frame decisions of Parley's speech detector on a 16 kHz mono
/// S16LE WAV file, one 0/1 per line, for scoring with the vadbench contract.
enum VADFrames {
    /// The detector's probability per frame, and the median CPU time of a
    /// whole pass over `runs` passes (a fresh detector each): one pass varies
    /// by ±40% on a shared 2-core machine.
    static func frames(wav path: String, runs: Int = 5) throws -> (rows: [String], seconds: Double) {
        let (samples, _) = try WAVDecoder.decode(try Data(contentsOf: URL(fileURLWithPath: path)))
        var probabilities: [Float] = []
        var times: [Double] = []
        for _ in 0..<runs {
            var detector = SpeechClassifier(rate: 16_000)
            probabilities.removeAll(keepingCapacity: true)
            probabilities.reserveCapacity(samples.count / 160)
            let started = threadCPUSeconds()
            samples.withUnsafeBufferPointer { all in
                var offset = 0
                while offset + 160 <= all.count {
                    let frame = UnsafeBufferPointer(rebasing: all[offset..<(offset + 160)])
                    probabilities.append(detector.probability(of: frame))
                    offset += 160
                }
            }
            times.append(threadCPUSeconds() - started)
        }
        return (probabilities.map { "\($0)" }, times.sorted()[times.count / 2])
    }
}

/// CPU time of this thread: the speed contract counts CPU seconds on one core, not wall time.
func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// The detector's input features per 10 ms frame, as little-endian float32
/// rows of `SpeechFeatures.count`: what benchmarks/vad/train learns from.
enum VADFeatures {
    static func write(wav path: String, to output: String) throws {
        let (samples, rate) = try WAVDecoder.decode(try Data(contentsOf: URL(fileURLWithPath: path)))
        var features = SpeechFeatures(rate: rate)
        let hop = rate / 100
        var rows = [Float]()
        rows.reserveCapacity(samples.count / hop * SpeechFeatures.count)
        samples.withUnsafeBufferPointer { all in
            var offset = 0
            while offset + hop <= all.count {
                features.update(with: UnsafeBufferPointer(rebasing: all[offset..<(offset + hop)]))
                features.withValues { rows += $0 }
                offset += hop
            }
        }
        try rows.withUnsafeBytes { Data($0) }.write(to: URL(fileURLWithPath: output))
    }
}
