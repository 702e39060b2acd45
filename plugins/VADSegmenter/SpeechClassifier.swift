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
        let network = Network.shared, scratch = self.scratch
        let logit = features.withValues { values in
            network.evaluate(values.baseAddress!, input: scratch.input, output: scratch.output)
        }
        smoothedLogit = Self.smoothing * smoothedLogit + (1 - Self.smoothing) * logit
        return 1 / (1 + exp(-smoothedLogit))
    }

    /// Two activation buffers, swapped layer by layer. Pure scratch (written
    /// before it is read on every frame), so copies of the struct may share it.
    final class Scratch {
        let input: UnsafeMutablePointer<Float>
        let output: UnsafeMutablePointer<Float>
        init(widest: Int) {
            input = .allocate(capacity: widest)
            output = .allocate(capacity: widest)
            input.initialize(repeating: 0, count: widest)
            output.initialize(repeating: 0, count: widest)
        }
        deinit {
            input.deallocate()
            output.deallocate()
        }
    }
}

/// The trained weights, once per process, laid out input-major: for each
/// input, its weights to all outputs side by side, so a layer is
/// `outputs += column × input` over its inputs. The inner loop runs over
/// contiguous outputs: inlined pointer arithmetic at -Onone, vectorised
/// by the optimiser.
// @unchecked: the memory is written once, in init, and only read after.
final class Network: @unchecked Sendable {
    static let shared = Network()

    private struct Layer {
        var inputs: Int
        var outputs: Int
        var columns: Int  // offset of the first column in `storage`
        var biases: Int   // offset of the biases in `storage`
    }

    private let layers: [Layer]
    private let storage: UnsafeMutablePointer<Float>
    private let mean: UnsafeMutablePointer<Float>
    private let scale: UnsafeMutablePointer<Float>
    private let inputs: Int

    private init() {
        typealias W = SpeechClassifierWeights
        let trained = [(W.weights0, W.biases0), (W.weights1, W.biases1), (W.weights2, W.biases2)]
        var layers: [Layer] = [], offset = 0
        for (weights, biases) in trained {
            let outputs = biases.count, inputs = weights.count / outputs
            layers.append(Layer(inputs: inputs, outputs: outputs, columns: offset, biases: offset + inputs * outputs))
            offset += (inputs + 1) * outputs
        }
        storage = .allocate(capacity: offset)
        storage.initialize(repeating: 0, count: offset)
        for (layer, (weights, biases)) in zip(layers, trained) {
            for output in 0..<layer.outputs {
                // Trained row-major by output unit.
                for input in 0..<layer.inputs {
                    storage[layer.columns + input * layer.outputs + output] = weights[output * layer.inputs + input]
                }
                storage[layer.biases + output] = biases[output]
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
    func evaluate(_ values: UnsafePointer<Float>, input: UnsafeMutablePointer<Float>,
                  output: UnsafeMutablePointer<Float>) -> Float {
        var index = 0
        while index < inputs {
            input[index] = (values[index] - mean[index]) * scale[index]
            index += 1
        }
        var (from, to) = (input, output)
        let last = layers.count - 1
        layers.withUnsafeBufferPointer { layers in
            for number in 0...last {
                let layer = layers[number]
                Self.affine(from, to, inputs: layer.inputs, outputs: layer.outputs,
                            columns: storage + layer.columns, biases: storage + layer.biases)
                if number < last {
                    var unit = 0
                    while unit < layer.outputs {
                        to[unit] = max(to[unit], 0)
                        unit += 1
                    }
                }
                swap(&from, &to)
            }
        }
        return from[0]
    }

    /// `y = b + Wᵀx` with W stored input-major.
    private static func affine(_ x: UnsafeMutablePointer<Float>, _ y: UnsafeMutablePointer<Float>, inputs: Int, outputs: Int,
                               columns: UnsafeMutablePointer<Float>, biases: UnsafeMutablePointer<Float>) {
        y.update(from: biases, count: outputs)
        var column = columns
        var index = 0
        while index < inputs {
            let value = x[index]
            var unit = 0
            while unit < outputs {
                y[unit] += column[unit] * value
                unit += 1
            }
            column += outputs
            index += 1
        }
    }
}
