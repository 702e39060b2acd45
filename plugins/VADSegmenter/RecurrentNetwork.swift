import Foundation

/// A member's recurrent head: a gated recurrent unit (GRU) over the same
/// per-frame context inputs the context network reads, with a state of
/// `stateSize` floats carried from frame to frame.
///
/// The context network sees a fixed 300 ms back; the state keeps what
/// training taught it to keep, for as long as it needs: what was missed was
/// mostly weak stretches inside an utterance, which a recurrent state can
/// hold through, and what was taken for speech was mostly animals' calls
/// that go on for most of a second. Trained by benchmarks/vad/train/train.py
/// (`--recurrent-state`, gru.py) on chunks of 4 s that start from a zero
/// state, as the element's stream does.
///
///     a = relu(W1 x + b1)                       (x: the context inputs)
///     r = σ(Wr a + Ur h + br)    z = σ(Wz a + Uz h + bz)
///     n = tanh(Wn a + bn + r ∘ (Un h + bn'))
///     h ← (1 − z) ∘ n + z ∘ h                   logit = w·h + b
///
/// The first two lines' matrices run as one `DenseNetwork` (the ReLU layer,
/// then the gates' input projections, r, z and n blocks), the state's
/// projections as another; about 5 k multiply-adds a frame for a state of 16.
// @unchecked: the weights are written once, in init, and only read after.
final class RecurrentNetwork: @unchecked Sendable {
    let stateSize: Int
    private let input: DenseNetwork
    private let recurrence: DenseNetwork
    private let outputWeights: [Float]
    private let outputBias: Float

    /// Floats each of the two scratch buffers `step` is given needs.
    var bufferSize: Int { max(input.bufferSize, recurrence.bufferSize) }

    init(_ trained: RecurrentWeights, mean: [Float], scale: [Float]) {
        stateSize = trained.outputWeights.count
        precondition(trained.stateBiases.count == 3 * stateSize && trained.input.last?.biases.count == 3 * stateSize,
                     "a GRU's gates are three blocks of its state's size")
        input = DenseNetwork(layers: trained.input, mean: mean, scale: scale)
        // The state goes in as it is: no standardisation to fold.
        recurrence = DenseNetwork(layers: [(trained.stateWeights, trained.stateBiases)],
                                  mean: [Float](repeating: 0, count: stateSize), scale: [Float](repeating: 1, count: stateSize))
        outputWeights = trained.outputWeights
        outputBias = trained.outputBias
    }

    /// Moves `state` (`stateSize` floats) on by one frame of context inputs
    /// and returns the logit read from the new state.
    func step(_ inputs: UnsafePointer<Float>, state: UnsafeMutablePointer<Float>,
              buffers: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>)) -> Float {
        let fromInput = input.outputs(of: inputs, buffers: buffers)
        // The other buffer is free again: the state's projections go there (one layer, so only the first given is written).
        let free = fromInput == buffers.0 ? buffers.1 : buffers.0
        let fromState = recurrence.outputs(of: state, buffers: (free, free))
        let size = stateSize
        for unit in 0..<size {
            let reset = logistic(fromInput[unit] + fromState[unit])
            let update = logistic(fromInput[size + unit] + fromState[size + unit])
            // tanh(x) as 2σ(2x) − 1: one `exp`, where libm's `tanhf` costs three times
            // the instructions (through `expm1f`), within 1e-7 of it.
            let candidate = 2 * logistic(2 * (fromInput[2 * size + unit] + reset * fromState[2 * size + unit])) - 1
            state[unit] = (1 - update) * candidate + update * state[unit]
        }
        return outputWeights.withUnsafeBufferPointer { dotProduct($0.baseAddress!, state, count: size) } + outputBias
    }
}

/// One stream's state of a recurrent head: zero at the start, as in
/// training. Its memory is copied on write, so the struct keeps value semantics.
struct RecurrentState {
    private var memory: FrameMemory

    init(size: Int) { memory = FrameMemory(count: size) }

    /// The head's logit for this frame's context inputs, the state moved on.
    mutating func step(_ network: RecurrentNetwork, inputs: UnsafePointer<Float>,
                       buffers: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>)) -> Float {
        if !isKnownUniquelyReferenced(&memory) { memory = memory.copy() }
        return network.step(inputs, state: memory.base, buffers: buffers)
    }
}

/// A recurrent head's trained weights, as benchmarks/vad/train writes them:
/// the ReLU layer and the gates' input projections (row-major by output
/// unit, r, z, n blocks), the state's projections and the output.
struct RecurrentWeights: Sendable {
    let input: [(weights: [Float], biases: [Float])]
    let stateWeights: [Float]
    let stateBiases: [Float]
    let outputWeights: [Float]
    let outputBias: Float
}
