import Foundation

/// The detector: `SpeechFeatures` into a small neural network (two ReLU
/// layers) trained by benchmarks/vad/train on speech and non-speech that
/// vadbench does not contain. About 4 k multiply-adds a frame, no ML runtime.
public struct SpeechClassifier: SpeechDetector {
    private var features: SpeechFeatures
    /// Input, hidden and output activations, one buffer each, reused every frame.
    private var activations: [[Float]]
    /// The network's output smoothed over a few frames: single-frame flickers
    /// inside words or inside a distractor do not flip the decision.
    private var smoothedLogit: Float = 0
    static let smoothing: Float = 0.7

    /// A dense layer laid out for SIMD: for each input, its weights to all
    /// outputs side by side (outputs padded to a multiple of 8), so a frame is
    /// `outputs += column × input` over the inputs, eight outputs at a time.
    struct Layer {
        var columns: [SIMD8<Float>]
        var biases: [SIMD8<Float>]
        var inputs: Int
        var outputs: Int
        var chunks: Int { biases.count }

        init(rowMajor weights: [Float], biases: [Float]) {
            outputs = biases.count
            inputs = weights.count / outputs
            let chunks = (outputs + 7) / 8
            var columns = [SIMD8<Float>](repeating: .zero, count: inputs * chunks)
            for output in 0..<outputs {
                for input in 0..<inputs { columns[input * chunks + output / 8][output % 8] = weights[output * inputs + input] }
            }
            self.columns = columns
            var padded = [SIMD8<Float>](repeating: .zero, count: chunks)
            for output in 0..<outputs { padded[output / 8][output % 8] = biases[output] }
            self.biases = padded
        }
    }

    private static let layers: [Layer] = {
        typealias W = SpeechClassifierWeights
        return [Layer(rowMajor: W.weights0, biases: W.biases0), Layer(rowMajor: W.weights1, biases: W.biases1),
                Layer(rowMajor: W.weights2, biases: W.biases2)]
    }()

    public init(rate: Int = 16_000) {
        precondition(SpeechClassifierWeights.layerSizes.first == SpeechFeatures.count,
                     "SpeechClassifierWeights was trained on other features: run benchmarks/vad/train/run")
        features = SpeechFeatures(rate: rate)
        activations = SpeechClassifierWeights.layerSizes.map { [Float](repeating: 0, count: ($0 + 7) / 8 * 8) }
    }

    public mutating func probability(of frame: UnsafeBufferPointer<Int16>) -> Float {
        features.update(with: frame)
        let mean = SpeechClassifierWeights.inputMean, scale = SpeechClassifierWeights.inputScale
        features.values.withUnsafeBufferPointer { values in
            activations[0].withUnsafeMutableBufferPointer { input in
                for index in 0..<values.count { input[index] = (values[index] - mean[index]) * scale[index] }
            }
        }
        let layers = Self.layers
        activations.withUnsafeMutableBufferPointer { activations in
            for number in layers.indices {
                let layer = layers[number], last = number == layers.count - 1
                activations[number].withUnsafeBufferPointer { x in
                    activations[number + 1].withUnsafeMutableBufferPointer { out in
                        layer.columns.withUnsafeBufferPointer { columns in
                            let raw = UnsafeMutableRawPointer(out.baseAddress!).bindMemory(to: SIMD8<Float>.self, capacity: layer.chunks)
                            for chunk in 0..<layer.chunks { raw[chunk] = layer.biases[chunk] }
                            var column = columns.baseAddress!
                            for input in 0..<layer.inputs {
                                let value = SIMD8<Float>(repeating: x[input])
                                for chunk in 0..<layer.chunks { raw[chunk] += column[chunk] * value }
                                column += layer.chunks
                            }
                            if !last {
                                for chunk in 0..<layer.chunks { raw[chunk] = pointwiseMax(raw[chunk], .zero) }
                            }
                        }
                    }
                }
            }
        }
        smoothedLogit = Self.smoothing * smoothedLogit + (1 - Self.smoothing) * activations[layers.count][0]
        return 1 / (1 + exp(-smoothedLogit))
    }
}
