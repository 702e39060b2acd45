import Foundation

/// What a UI draws while it listens: per interval, how loud the input was
/// and how sure the detector was that someone spoke. Posted by vadsegmenter
/// as `parley/vad-level` when `level-interval-ms` is above 0.
public struct LevelReading: Sendable, Equatable {
    /// Stream time of the interval's first sample, and its length (ns).
    public var start: UInt64
    public var duration: UInt64
    /// The highest speech probability of the interval's 10 ms frames: a
    /// single spoken frame lights a "listening" indicator, as it should.
    public var probability: Float
    /// RMS and peak level of the interval in dBFS (-100 for digital silence).
    public var levelDB: Double
    public var peakDB: Double
    /// Whether a segment was open at the interval's end.
    public var speaking: Bool
}

/// Gathers 10 ms frames into readings of `interval` nanoseconds (a whole
/// number of frames, at least one). Pure: the element feeds it frames and
/// posts what it returns.
public struct LevelMeter: Sendable {
    /// As asked; the interval itself is at least one frame.
    public let intervalMs: Int
    private let interval: UInt64
    private var start: UInt64?
    private var covered: UInt64 = 0
    private var sumOfSquares: Double = 0
    private var samples = 0
    private var peak: Int32 = 0
    private var probability: Float = 0

    public init(intervalMs: Int) {
        self.intervalMs = intervalMs
        interval = UInt64(max(10, intervalMs)) * 1_000_000
    }

    /// Adds one frame; a reading once the frames cover the interval.
    public mutating func add(_ frame: UnsafeBufferPointer<Int16>, sumOfSquares frameSquares: Double, probability frameProbability: Float,
                             pts: UInt64, duration: UInt64, speaking: Bool) -> LevelReading? {
        if start == nil { start = pts }
        covered += duration
        sumOfSquares += frameSquares
        samples += frame.count
        for sample in frame { peak = max(peak, abs(Int32(sample))) }
        probability = max(probability, frameProbability)
        guard covered + duration / 2 >= interval else { return nil }
        let rms = samples > 0 ? (sumOfSquares / Double(samples)).squareRoot() : 0
        let reading = LevelReading(start: start!, duration: covered, probability: probability,
                                   levelDB: Self.decibels(rms), peakDB: Self.decibels(Double(peak)), speaking: speaking)
        self = LevelMeter(intervalMs: intervalMs)
        return reading
    }

    /// dBFS of an amplitude on the 16-bit scale, floored at -100.
    static func decibels(_ amplitude: Double) -> Double {
        amplitude > 0 ? max(-100, 20 * log10(amplitude / 32768)) : -100
    }
}
