import Foundation

/// The detector: `SpeechFeatures` into a small neural network (two ReLU
/// layers) trained by benchmarks/vad/train on speech and non-speech that
/// vadbench does not contain. About 6 k multiply-adds a frame, no ML runtime.
public struct SpeechClassifier: SpeechDetector {
    private var features: SpeechFeatures
    private var scratch: Scratch
    /// The network's output smoothed over a few frames: single-frame flickers
    /// inside words or inside a distractor do not flip the decision.
    private var smoothedLogit: Float = 0
    static let smoothing: Float = 0.7

    public init(rate: Int = 16_000) {
        precondition(SpeechClassifierWeights.layerSizes.first == SpeechFeatures.count,
                     "SpeechClassifierWeights was trained on other features: run benchmarks/vad/train/run")
        features = SpeechFeatures(rate: rate)
        scratch = Scratch(widest: SpeechClassifierWeights.layerSizes.max()!)
    }

    public mutating func probability(of frame: UnsafeBufferPointer<Int16>) -> Float {
        features.update(with: frame)
        let network = Network.shared
        let logit = features.values.withUnsafeBufferPointer { values in
            network.evaluate(values, input: scratch.input, output: scratch.output)
        }
        smoothedLogit = Self.smoothing * smoothedLogit + (1 - Self.smoothing) * logit
        return 1 / (1 + exp(-smoothedLogit))
    }

    /// Two activation buffers, swapped layer by layer; a class so the struct
    /// stays cheap to copy and the memory is freed once.
    final class Scratch {
        let input: UnsafeMutablePointer<SIMD8<Float>>
        let output: UnsafeMutablePointer<SIMD8<Float>>
        let chunks: Int
        init(widest: Int) {
            chunks = (widest + 7) / 8
            input = .allocate(capacity: chunks)
            output = .allocate(capacity: chunks)
            input.initialize(repeating: .zero, count: chunks)
            output.initialize(repeating: .zero, count: chunks)
        }
        deinit {
            input.deallocate()
            output.deallocate()
        }
    }
}

/// The trained weights laid out for SIMD, once per process: for each input,
/// its weights to all outputs side by side (outputs padded to a multiple of
/// 8), so a layer is `outputs += column × input` over its inputs, eight
/// outputs at a time.
// @unchecked: the buffers are written once, in init, and only read after.
final class Network: @unchecked Sendable {
    static let shared = Network()

    private struct Layer {
        var inputs: Int
        var chunks: Int
        var columns: Int  // offset of the first column in `storage`
        var biases: Int   // offset of the biases in `storage`
    }

    private let layers: [Layer]
    private let storage: UnsafeMutablePointer<SIMD8<Float>>
    private let mean: UnsafeMutablePointer<Float>
    private let scale: UnsafeMutablePointer<Float>
    private let inputs: Int

    private init() {
        typealias W = SpeechClassifierWeights
        let trained = [(W.weights0, W.biases0), (W.weights1, W.biases1), (W.weights2, W.biases2)]
        var layers: [Layer] = [], offset = 0
        for (weights, biases) in trained {
            let chunks = (biases.count + 7) / 8, inputs = weights.count / biases.count
            layers.append(Layer(inputs: inputs, chunks: chunks, columns: offset, biases: offset + inputs * chunks))
            offset += (inputs + 1) * chunks
        }
        storage = .allocate(capacity: offset)
        storage.initialize(repeating: .zero, count: offset)
        for (layer, (weights, biases)) in zip(layers, trained) {
            for output in 0..<biases.count {
                for input in 0..<layer.inputs {
                    storage[layer.columns + input * layer.chunks + output / 8][output % 8] = weights[output * layer.inputs + input]
                }
                storage[layer.biases + output / 8][output % 8] = biases[output]
            }
        }
        self.layers = layers
        inputs = W.inputMean.count
        mean = .allocate(capacity: inputs)
        mean.initialize(from: W.inputMean, count: inputs)
        scale = .allocate(capacity: inputs)
        scale.initialize(from: W.inputScale, count: inputs)
    }

    /// The output logit for one frame's features.
    func evaluate(_ values: UnsafeBufferPointer<Float>, input: UnsafeMutablePointer<SIMD8<Float>>,
                  output: UnsafeMutablePointer<SIMD8<Float>>) -> Float {
        var x = UnsafeMutableRawPointer(input).assumingMemoryBound(to: Float.self)
        for index in 0..<inputs { x[index] = (values[index] - mean[index]) * scale[index] }
        var (from, to) = (input, output)
        for (number, layer) in layers.enumerated() {
            x = UnsafeMutableRawPointer(from).assumingMemoryBound(to: Float.self)
            let column = storage + layer.columns
            if layer.chunks == 4 {
                // 32 outputs stay in registers across the whole input loop.
                let biases = storage + layer.biases
                var a = biases[0], b = biases[1], c = biases[2], d = biases[3]
                var weights = column
                for index in 0..<layer.inputs {
                    let value = SIMD8<Float>(repeating: x[index])
                    a += weights[0] * value
                    b += weights[1] * value
                    c += weights[2] * value
                    d += weights[3] * value
                    weights += 4
                }
                to[0] = a; to[1] = b; to[2] = c; to[3] = d
            } else if layer.chunks <= 2 {
                let biases = storage + layer.biases
                var a = biases[0], b = layer.chunks > 1 ? biases[1] : .zero
                var weights = column
                for index in 0..<layer.inputs {
                    let value = SIMD8<Float>(repeating: x[index])
                    a += weights[0] * value
                    if layer.chunks > 1 { b += weights[1] * value }
                    weights += layer.chunks
                }
                to[0] = a
                if layer.chunks > 1 { to[1] = b }
            } else {
                for chunk in 0..<layer.chunks { to[chunk] = storage[layer.biases + chunk] }
                var weights = column
                for index in 0..<layer.inputs {
                    let value = SIMD8<Float>(repeating: x[index])
                    for chunk in 0..<layer.chunks { to[chunk] += weights[chunk] * value }
                    weights += layer.chunks
                }
            }
            if number < layers.count - 1 {
                for chunk in 0..<layer.chunks { to[chunk] = pointwiseMax(to[chunk], .zero) }
            }
            swap(&from, &to)
        }
        return from[0][0]
    }
}
