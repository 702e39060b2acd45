/// Converts mono 16-bit audio between sample rates, whole or as a stream
/// that arrives in chunks, for engines that want one rate (pocketsphinx,
/// Whisper: 16 kHz) and outputs that keep one (cloudtts, a recording played
/// at 16 kHz). Linear interpolation, after a moving average as wide as the
/// rate ratio when going down, so that what folds back is attenuated; good
/// enough for speech, not for music.
///
/// Streaming keeps only the samples the next output still needs, so any
/// length of audio passes through in constant memory; chunk edges change
/// nothing (output sample k is always interpolated at k × source/target).
///
///     var resampler = Resampler(from: 44_100, to: 16_000)
///     for chunk in chunks { out += chunk.withUnsafeBufferPointer { resampler.process($0) } }
///     out += resampler.finish()
public struct Resampler: Sendable {
    public let sourceRate: Int
    public let targetRate: Int
    private let step: Double
    /// Moving-average width: the rate ratio going down, 1 (none) otherwise.
    private let width: Int
    /// The last `width` inputs, by input index modulo `width`.
    private var recent: [Float]
    private var sum: Float = 0
    /// Inputs taken so far.
    private var taken = 0
    /// Smoothed inputs from index `base` on.
    private var smoothed: [Float] = []
    private var base = 0
    /// Outputs made so far.
    private var made = 0

    public init(from sourceRate: Int, to targetRate: Int) {
        self.sourceRate = sourceRate
        self.targetRate = targetRate
        let valid = sourceRate > 0 && targetRate > 0
        step = valid ? Double(sourceRate) / Double(targetRate) : 1
        width = valid && targetRate < sourceRate ? max(1, Int(step.rounded())) : 1
        recent = [Float](repeating: 0, count: width)
    }

    /// Whether samples pass through unchanged.
    private var passesThrough: Bool { sourceRate == targetRate || sourceRate <= 0 || targetRate <= 0 }

    /// The whole of `samples` at `target` Hz: floor(count × target / source) samples.
    public static func resample(_ samples: [Int16], from source: Int, to target: Int) -> [Int16] {
        var resampler = Resampler(from: source, to: target)
        guard !resampler.passesThrough, !samples.isEmpty else { return samples }
        let count = Int(Double(samples.count) * Double(target) / Double(source))
        let output = samples.withUnsafeBufferPointer { resampler.process($0) } + resampler.finish()
        return Array(output.prefix(count))
    }

    /// The outputs `chunk` completes: each once both inputs it lies between have arrived.
    public mutating func process(_ chunk: UnsafeBufferPointer<Int16>) -> [Int16] {
        guard !passesThrough else { return Array(chunk) }
        smoothed.reserveCapacity(smoothed.count + chunk.count)
        for sample in chunk { take(Float(sample)) }
        return emit(last: false)
    }

    /// At the end of the stream: the outputs left, the last inputs standing in
    /// for the ones that will not come.
    public mutating func finish() -> [Int16] {
        guard !passesThrough else { return [] }
        return emit(last: true)
    }

    private mutating func take(_ sample: Float) {
        var value = sample
        if width > 1 {
            // A running sum over the last `width` inputs: add the new, drop the one `width` back.
            sum += sample
            if taken >= width { sum -= recent[taken % width] }
            recent[taken % width] = sample
            value = sum / Float(min(taken + 1, width))
        }
        smoothed.append(value)
        taken += 1
    }

    private mutating func emit(last: Bool) -> [Int16] {
        guard taken > 0 else { return [] }
        var output: [Int16] = []
        while true {
            let position = Double(made) * step
            let left = Int(position)
            var right = left + 1
            if right >= taken {
                // At the end, every output before the input's end, the last input standing in for the next.
                guard last, position < Double(taken) else { break }
                right = taken - 1
            }
            let fraction = Float(position - Double(left))
            let value = smoothed[left - base] * (1 - fraction) + smoothed[right - base] * fraction
            output.append(Int16(max(-32768, min(32767, value.rounded()))))
            made += 1
        }
        // What no later output reads goes, in large steps (a removal moves the rest).
        let needed = min(taken - 1, Int(Double(made) * step))
        if needed - base >= 4096 {
            smoothed.removeFirst(needed - base)
            base = needed
        }
        return output
    }
}
