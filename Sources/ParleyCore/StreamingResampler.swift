/// Linear-interpolation resampling of a stream that arrives in chunks: the
/// position and the last sample carry over, so chunk edges leave no clicks
/// and the output length follows the input's total, not each chunk's.
/// (Up-sampling speech from 22050 to 24000 Hz: no anti-alias filter needed.)
public struct StreamingResampler: Sendable {
    public let sourceRate: Int
    public let targetRate: Int
    private let step: Double
    /// Position of the next output sample, in input samples from `previous`.
    private var position = 0.0
    private var previous: Float?

    public init(from sourceRate: Int, to targetRate: Int) {
        self.sourceRate = sourceRate
        self.targetRate = targetRate
        step = Double(sourceRate) / Double(targetRate)
    }

    /// The output samples `chunk` completes.
    public mutating func process(_ chunk: UnsafeBufferPointer<Int16>) -> [Int16] {
        guard sourceRate != targetRate else { return Array(chunk) }
        guard !chunk.isEmpty else { return [] }
        // Input positions: index 0 is `previous` (when there is one), then the chunk.
        let offset = previous == nil ? 0 : 1
        func sample(_ index: Int) -> Float { index < offset ? previous! : Float(chunk[index - offset]) }
        let available = chunk.count + offset
        var output: [Int16] = []
        output.reserveCapacity(Int(Double(chunk.count) / step) + 2)
        while position + 1 < Double(available) {
            let left = Int(position)
            let fraction = Float(position - Double(left))
            let value = sample(left) * (1 - fraction) + sample(left + 1) * fraction
            output.append(Int16(max(-32768, min(32767, value.rounded()))))
            position += step
        }
        // Keep the last sample; positions now count from it.
        position -= Double(available - 1)
        previous = Float(chunk[chunk.count - 1])
        return output
    }
}
