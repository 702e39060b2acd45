import Foundation

/// The detector, trained by benchmarks/vad/train on speech and non-speech
/// that vadbench does not contain (no ML runtime), in three parts:
///
/// 1. the frame network: `SpeechFeatures` into two ReLU layers and a logit;
/// 2. the context network: that last hidden layer and logit now and their
///    means over the last 300 ms (`ContextHistory`) into one ReLU layer and
///    a logit. A frame that looks alike in a fricative inside a word and in
///    a burst of noise is told apart by what came before it;
/// 3. the recurrent head (`RecurrentNetwork`, a GRU with 16 floats of
///    state) on the same inputs as the context network, with a logit of its
///    own. Its state carries as much of the past as training taught it to,
///    with no fixed reach: the context network sees 300 ms back, no more.
///
/// The two logits are smoothed alike and their probabilities averaged. With
/// the head, F1 rose in all nine conditions of the held-out set on both
/// draws of the training streams (0.002 to 0.020); on vadbench it rose in 15
/// of the 18 conditions of the two draws, was level in 2 and lost 0.001 in
/// 1. On the shipped draw the held-out sounds' frames taken fell from 843 to
/// 714 (benchmarks/vad/train/train.py, "A recurrent head").
///
/// Two such members, trained alike from two model seeds, are run on the
/// same features and their probabilities averaged (an ensemble): on the
/// training streams the pair's F1 is 0.002 over seed 9's alone (0.001 over
/// seed 6's), with fewer false alarms and an earlier end of speech
/// (train.py, "Two seeds"). About 17 k multiply-adds a frame per member
/// (6.3 k in the frame network, 5.5 k in the context network, 5 k in the
/// recurrent head), sixteen outputs at a time (`DenseNetwork`). Each logit is
/// smoothed unevenly: a rise is followed quickly, so the first syllable is
/// not cut; a fall more slowly, so a dip inside a word does not end the
/// speech. The hold on a fall belongs to the weights
/// (`SpeechClassifierWeights.fallingHold`, written by train.py's `--hold`):
/// it is chosen again for each new set of weights on their training
/// streams, never on vadbench (benchmarks/vad/train/streams.py): of the
/// holds whose end of speech there is earliest, the one with the best F1.
/// For the shipped weights 0.3, 0.4 and 0.5 end speech at 530 ms (median,
/// as vadsegmenter cuts; p95 710) and 0.6 at 540; of the first three 0.5
/// has the best F1 (0.9328), with 1.38% of the sounds' frames taken
/// (train.py, "The lookahead again").
///
/// Each output is about an earlier frame: the networks were trained to judge
/// frame t − `lookahead` with the frames after it in hand (a weak first
/// consonant is told from a click by the vowel that follows it, the end of a
/// word from a pause inside it), so a caller pairs outputs with frames
/// through `DecisionDelay`. The decision waits `lookahead` × 10 ms (40):
/// that much latency, counted in the end-of-speech figures; vadsegmenter
/// counts it towards its silence (`Segmenter.init(_:heardAhead:)`), so a
/// longer lookahead delays the onset, not the end.
public struct SpeechClassifier: SpeechDetector {
    /// Frames each output waits for: it is about the frame this many before the newest.
    public static let lookahead = SpeechClassifierWeights.lookahead
    private var features: SpeechFeatures
    /// Per member, in `Network.members`' order.
    private var members: [MemberState]
    private var scratch: Scratch
    static let rising: Float = 0.3, falling = SpeechClassifierWeights.fallingHold

    /// What one member keeps between frames.
    struct MemberState {
        var history: ContextHistory
        var smoothedLogit: Float = 0
        /// The recurrent head's state (nil for a member without one).
        var recurrent: RecurrentState?
        var smoothedRecurrentLogit: Float = 0
    }

    public init(rate: Int = 16_000) {
        typealias W = SpeechClassifierWeights
        precondition(W.layerSizes.first == SpeechFeatures.count,
                     "SpeechClassifierWeights was trained on other features: run benchmarks/vad/train/run")
        features = SpeechFeatures(rate: rate)
        let history = ContextHistory(width: W.layerSizes[W.layerSizes.count - 2] + 1, windows: W.contextWindows)
        precondition(W.contextLayerSizes.first == history.inputCount,
                     "SpeechClassifierWeights' context network was trained on another context: run benchmarks/vad/train/run")
        members = Network.members.map { network in
            MemberState(history: history, recurrent: network.recurrent.map { RecurrentState(size: $0.stateSize) })
        }
        let widest = Network.members.map { max($0.frame.bufferSize, $0.context.bufferSize, $0.recurrent?.bufferSize ?? 0) }.max() ?? 0
        scratch = Scratch(activations: widest, context: history.inputCount)
    }

    public mutating func probability(of frame: UnsafeBufferPointer<Int16>) -> Float {
        features.update(with: frame)
        let scratch = self.scratch
        var sum: Float = 0, heads = 0
        for (index, network) in Network.members.enumerated() {
            let (logit, hidden, hiddenCount) = features.withValues { values in
                network.frame.evaluate(values.baseAddress!, buffers: scratch.buffers)
            }
            // The frame network's last hidden layer, then its logit: the context's unit of memory.
            hidden[hiddenCount] = logit
            members[index].history.inputs(for: hidden, into: scratch.context)
            let contextLogit = network.context.evaluate(scratch.context, buffers: scratch.buffers).logit
            sum += Self.smooth(&members[index].smoothedLogit, towards: contextLogit)
            heads += 1
            if let recurrent = network.recurrent,
               let logit = members[index].recurrent?.step(recurrent, inputs: scratch.context, buffers: scratch.buffers) {
                sum += Self.smooth(&members[index].smoothedRecurrentLogit, towards: logit)
                heads += 1
            }
        }
        return sum / Float(heads)
    }

    /// Moves a head's smoothed logit towards its new logit (a rise quickly,
    /// a fall by the hold) and returns the smoothed probability.
    private static func smooth(_ smoothed: inout Float, towards logit: Float) -> Float {
        let keep = logit > smoothed ? rising : falling
        smoothed = keep * smoothed + (1 - keep) * logit
        return logistic(smoothed)
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

/// One member's trained weights, as benchmarks/vad/train writes them: each
/// layer's weights row-major by output unit with its biases, and the context
/// network's input standardisation (the frame network's is shared).
struct ClassifierMember: Sendable {
    let frame: [(weights: [Float], biases: [Float])]
    let contextMean: [Float]
    let contextScale: [Float]
    let context: [(weights: [Float], biases: [Float])]
    /// The recurrent head on the same context inputs, if the member has one.
    var recurrent: RecurrentWeights? = nil
}

/// Each member's trained networks (frame, context and, if it has one, the recurrent head), once per process.
enum Network {
    typealias W = SpeechClassifierWeights
    static let members: [(frame: DenseNetwork, context: DenseNetwork, recurrent: RecurrentNetwork?)] = W.members.map { member in
        (DenseNetwork(layers: member.frame, mean: W.inputMean, scale: W.inputScale),
         DenseNetwork(layers: member.context, mean: member.contextMean, scale: member.contextScale),
         member.recurrent.map { RecurrentNetwork($0, mean: member.contextMean, scale: member.contextScale) })
    }
}
