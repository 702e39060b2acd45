/// Converts mono 16-bit audio between sample rates, for engines that want
/// one rate (pocketsphinx: 16 kHz). Linear interpolation, after a moving
/// average when going down so that what folds back is attenuated; good
/// enough for speech recognition, not for listening.
public enum Resampler {
    public static func resample(_ samples: [Int16], from source: Int, to target: Int) -> [Int16] {
        guard source != target, source > 0, target > 0, !samples.isEmpty else { return samples }
        var input = samples.map(Float.init)
        if target < source {
            let width = max(1, Int((Double(source) / Double(target)).rounded()))
            if width > 1 {
                var smoothed = [Float](repeating: 0, count: input.count)
                var sum: Float = 0
                for index in input.indices {
                    sum += input[index]
                    if index >= width { sum -= input[index - width] }
                    smoothed[index] = sum / Float(min(index + 1, width))
                }
                input = smoothed
            }
        }
        let count = Int(Double(samples.count) * Double(target) / Double(source))
        let step = Double(source) / Double(target)
        var output = [Int16](repeating: 0, count: count)
        for index in 0..<count {
            let position = Double(index) * step
            let left = Int(position)
            let right = min(left + 1, input.count - 1)
            let fraction = Float(position - Double(left))
            let value = input[left] * (1 - fraction) + input[right] * fraction
            output[index] = Int16(max(-32768, min(32767, value.rounded())))
        }
        return output
    }
}
