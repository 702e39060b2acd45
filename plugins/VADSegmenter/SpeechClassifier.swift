import Foundation

/// The detector, in two stages trained by benchmarks/vad/train on speech and
/// non-speech that vadbench does not contain (no ML runtime):
///
/// 1. the frame network: `SpeechFeatures` into two ReLU layers and a logit;
/// 2. the context network: that last hidden layer and logit now and their
///    means over the last 300 ms (`ContextHistory`) into one ReLU layer and
///    the logit used. A frame that looks alike in a fricative inside a word
///    and in a burst of noise is told apart by what came before it.
///
/// About 8.3 k multiply-adds a frame (5.6 k in the frame network). The context logit is then smoothed
/// unevenly: a rise is followed quickly, so the first syllable is not cut;
/// a fall slowly, so a dip inside a word does not end the speech.
public struct SpeechClassifier: SpeechDetector {
    private var features: SpeechFeatures
    private var history: ContextHistory
    private var scratch: Scratch
    private var smoothedLogit: Float = 0
    static let rising: Float = 0.3, falling: Float = 0.7

    public init(rate: Int = 16_000) {
        typealias W = SpeechClassifierWeights
        precondition(W.layerSizes.first == SpeechFeatures.count,
                     "SpeechClassifierWeights was trained on other features: run benchmarks/vad/train/run")
        features = SpeechFeatures(rate: rate)
        history = ContextHistory(width: W.layerSizes[W.layerSizes.count - 2] + 1, windows: W.contextWindows)
        precondition(W.contextLayerSizes.first == history.inputCount,
                     "SpeechClassifierWeights' context network was trained on another context: run benchmarks/vad/train/run")
        scratch = Scratch(widest: (W.layerSizes + W.contextLayerSizes).max()!)
    }

    public mutating func probability(of frame: UnsafeBufferPointer<Int16>) -> Float {
        features.update(with: frame)
        let scratch = self.scratch
        let (logit, hidden, hiddenCount) = features.withValues { values in
            Network.frame.evaluate(values.baseAddress!, scratch: scratch)
        }
        // The frame network's last hidden layer, then its logit: the context's unit of memory.
        hidden[hiddenCount] = logit
        history.inputs(for: hidden, into: scratch.context)
        let contextLogit = Network.context.evaluate(scratch.context, scratch: scratch).logit
        let keep = contextLogit > smoothedLogit ? Self.rising : Self.falling
        smoothedLogit = keep * smoothedLogit + (1 - keep) * contextLogit
        return 1 / (1 + exp(-smoothedLogit))
    }

    /// Two activation buffers, swapped layer by layer, and the context
    /// network's input. Pure scratch (written before it is read on every
    /// frame), so copies of the struct may share it.
    final class Scratch {
        let input: UnsafeMutablePointer<Float>
        let output: UnsafeMutablePointer<Float>
        let context: UnsafeMutablePointer<Float>
        init(widest: Int) {
            // One more than the widest layer: the logit is written after the last hidden layer.
            let capacity = widest + 1
            input = .allocate(capacity: capacity)
            output = .allocate(capacity: capacity)
            context = .allocate(capacity: capacity)
            for buffer in [input, output, context] { buffer.initialize(repeating: 0, count: capacity) }
        }
        deinit {
            for buffer in [input, output, context] { buffer.deallocate() }
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
    typealias W = SpeechClassifierWeights
    static let frame = Network(layers: [(W.weights0, W.biases0), (W.weights1, W.biases1), (W.weights2, W.biases2)],
                               mean: W.inputMean, scale: W.inputScale)
    static let context = Network(layers: [(W.contextWeights0, W.contextBiases0), (W.contextWeights1, W.contextBiases1)],
                                 mean: W.contextMean, scale: W.contextScale)

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

    private init(layers trained: [(weights: [Float], biases: [Float])], mean inputMean: [Float], scale inputScale: [Float]) {
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
        inputs = inputMean.count
        mean = .allocate(capacity: inputs)
        mean.initialize(from: inputMean, count: inputs)
        scale = .allocate(capacity: inputs)
        scale.initialize(from: inputScale, count: inputs)
    }

    /// The output logit for one input, and the last hidden layer's
    /// activations (in one of `scratch`'s buffers, until the next evaluation).
    func evaluate(_ values: UnsafePointer<Float>, scratch: SpeechClassifier.Scratch)
        -> (logit: Float, hidden: UnsafeMutablePointer<Float>, hiddenCount: Int) {
        let input = scratch.input
        var index = 0
        while index < inputs {
            input[index] = (values[index] - mean[index]) * scale[index]
            index += 1
        }
        var (from, to) = (input, scratch.output)
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
        // After the last swap `to` holds the layer before the output.
        return (from[0], to, layers[last].inputs)
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
