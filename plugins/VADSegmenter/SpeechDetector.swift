import Foundation

/// Decides, per 10 ms frame, how likely it is that the frame is speech.
/// Implementations keep their own adaptive state; one instance per stream.
public protocol SpeechDetector {
    /// A probability-like score in 0...1 for one frame of mono samples.
    mutating func probability(of frame: UnsafeBufferPointer<Int16>) -> Float
}

/// A first detector: frame energy against an adaptive noise floor, with a
/// penalty for frames whose zero-crossing rate says noise, not voice.
///
/// Why this shape: the floor follows stationary noise (it falls fast and
/// rises slowly), so a steady hum or hiss settles into the floor instead of
/// reading as speech; what stands above it by several dB is a candidate.
/// It is cheap (one pass per frame) and will be replaced by a stronger
/// detector measured on ../shared/vadbench.
public struct EnergyDetector: SpeechDetector {
    /// dB above the floor at which the score crosses 0.5.
    public var midpointSNR: Float = 9
    /// dB over which the score goes from ~0.12 to ~0.88.
    public var slope: Float = 2
    private var floor: Float = -60
    private var framesSeen = 0
    private var smoothed: Float = 0

    public init() {}

    public mutating func probability(of frame: UnsafeBufferPointer<Int16>) -> Float {
        guard !frame.isEmpty else { return 0 }
        var energy: Double = 0
        var crossings = 0
        var previous = frame[0]
        var mean: Double = 0
        for sample in frame { mean += Double(sample) }
        mean /= Double(frame.count)
        for sample in frame {
            let centered = Double(sample) - mean  // DC offset must not read as energy
            energy += centered * centered
            if (sample >= 0) != (previous >= 0) { crossings += 1 }
            previous = sample
        }
        let level = Float(10 * log10(energy / Double(frame.count) / (32768.0 * 32768.0) + 1e-10))
        framesSeen += 1
        if framesSeen == 1 {
            floor = level
        } else if level < floor {
            floor = 0.7 * floor + 0.3 * level       // fall fast into quiet
        } else {
            floor += min(0.04, (level - floor) * 0.002)  // rise slowly: ~4 dB/s at most
        }
        // Digital silence has no floor to speak of: keep it from dragging the
        // floor to -100 dB, where any noise would then look like speech.
        floor = max(floor, -75)
        let snr = level - floor
        var score = 1 / (1 + exp(-(snr - midpointSNR) / slope))
        // Zero-crossing rate above ~0.45 per sample is hiss or fricative noise;
        // voiced speech sits well below. Damp, do not veto (fricatives exist).
        let zcr = Float(crossings) / Float(frame.count)
        if zcr > 0.45 { score *= 0.5 }
        smoothed = 0.5 * smoothed + 0.5 * score
        return max(score, smoothed * 0.9)
    }
}
