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
/// About 12 k multiply-adds a frame (6.3 k in the frame network, 5.5 k in the
/// context network), sixteen outputs at a time (`DenseNetwork`). The context logit is then smoothed
/// unevenly: a rise is followed quickly, so the first syllable is not cut;
/// a fall more slowly (0.6 kept: the least hold at which the end of speech on
/// the training streams is as early as it was before the lookahead, chosen
/// there, not on vadbench), so a dip inside a word does not end the speech.
///
/// Each output is about an earlier frame: the networks were trained to judge
/// frame t − `lookahead` with the frames after it in hand (a weak first
/// consonant is told from a click by the vowel that follows it, the end of a
/// word from a pause inside it), so a caller pairs outputs with frames
/// through `DecisionDelay`. The decision waits `lookahead` × 10 ms: that
/// much latency, counted in the end-of-speech figures.
public struct SpeechClassifier: SpeechDetector {
    /// Frames each output waits for: it is about the frame this many before the newest.
    public static let lookahead = SpeechClassifierWeights.lookahead
    private var features: SpeechFeatures
    private var history: ContextHistory
    private var scratch: Scratch
    private var smoothedLogit: Float = 0
    static let rising: Float = 0.3, falling: Float = 0.6

    public init(rate: Int = 16_000) {
        typealias W = SpeechClassifierWeights
        precondition(W.layerSizes.first == SpeechFeatures.count,
                     "SpeechClassifierWeights was trained on other features: run benchmarks/vad/train/run")
        features = SpeechFeatures(rate: rate)
        history = ContextHistory(width: W.layerSizes[W.layerSizes.count - 2] + 1, windows: W.contextWindows)
        precondition(W.contextLayerSizes.first == history.inputCount,
                     "SpeechClassifierWeights' context network was trained on another context: run benchmarks/vad/train/run")
        scratch = Scratch(activations: max(Network.frame.bufferSize, Network.context.bufferSize), context: history.inputCount)
    }

    public mutating func probability(of frame: UnsafeBufferPointer<Int16>) -> Float {
        features.update(with: frame)
        let scratch = self.scratch
        let (logit, hidden, hiddenCount) = features.withValues { values in
            Network.frame.evaluate(values.baseAddress!, buffers: scratch.buffers)
        }
        // The frame network's last hidden layer, then its logit: the context's unit of memory.
        hidden[hiddenCount] = logit
        history.inputs(for: hidden, into: scratch.context)
        let contextLogit = Network.context.evaluate(scratch.context, buffers: scratch.buffers).logit
        let keep = contextLogit > smoothedLogit ? Self.rising : Self.falling
        smoothedLogit = keep * smoothedLogit + (1 - keep) * contextLogit
        return 1 / (1 + exp(-smoothedLogit))
    }

    /// Decides the frames still waiting in `delay` as if the stream went quiet
    /// after them (at its end, or before a new rate): each gets the output
    /// after one more frame of digital silence, `frameSamples` long.
    public mutating func decideWaiting<Pending>(in delay: inout DecisionDelay<Pending>, frameSamples: Int)
        -> [(frame: Pending, probability: Float)] {
        let silence = [Int16](repeating: 0, count: frameSamples)
        return delay.drain { silence.withUnsafeBufferPointer { probability(of: $0) } }
    }

    /// Two activation buffers, swapped layer by layer, and the context
    /// network's input. Pure scratch (written before it is read on every
    /// frame), so copies of the struct may share it.
    final class Scratch {
        let first: UnsafeMutablePointer<Float>
        let second: UnsafeMutablePointer<Float>
        let context: UnsafeMutablePointer<Float>
        init(activations: Int, context contextCount: Int) {
            first = Self.zeros(activations)
            second = Self.zeros(activations)
            context = Self.zeros(contextCount)
        }
        private static func zeros(_ count: Int) -> UnsafeMutablePointer<Float> {
            let buffer = UnsafeMutablePointer<Float>.allocate(capacity: count)
            buffer.initialize(repeating: 0, count: count)
            return buffer
        }
        var buffers: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>) { (first, second) }
        deinit {
            for buffer in [first, second, context] { buffer.deallocate() }
        }
    }
}

/// The two trained networks, once per process.
enum Network {
    typealias W = SpeechClassifierWeights
    static let frame = DenseNetwork(layers: [(W.weights0, W.biases0), (W.weights1, W.biases1), (W.weights2, W.biases2)],
                                    mean: W.inputMean, scale: W.inputScale)
    static let context = DenseNetwork(layers: [(W.contextWeights0, W.contextBiases0), (W.contextWeights1, W.contextBiases1)],
                                      mean: W.contextMean, scale: W.contextScale)
}
