import Foundation
import Testing
@testable import VADSegmenter

/// The recurrent head against the plain GRU definition gru.py trains
/// (standardise, a ReLU layer, then r, z, n and the new state), over a
/// sequence, so a wrong gate order or a state not carried shows.
@Suite struct RecurrentNetworkTests {
    static let inputs = 4, dense = 5, state = 3
    static let values = DenseNetworkTests.values

    static let weights = RecurrentWeights(
        input: [(values(dense * inputs, 11), values(dense, 12)), (values(3 * state * dense, 13), values(3 * state, 14))],
        stateWeights: values(3 * state * state, 15), stateBiases: values(3 * state, 16),
        outputWeights: values(state, 17), outputBias: 0.25)
    static let mean = values(inputs, 18), scale = values(inputs, 19).map { 1 + abs($0) }

    /// One step of the definition, in Double.
    static func referenceStep(_ input: [Float], state h: inout [Double]) -> Double {
        func layer(_ weights: [Float], _ biases: [Float], _ x: [Double]) -> [Double] {
            biases.indices.map { row in x.indices.reduce(Double(biases[row])) { $0 + Double(weights[row * x.count + $1]) * x[$1] } }
        }
        func sigmoid(_ x: Double) -> Double { 1 / (1 + Foundation.exp(-x)) }
        let x = input.indices.map { (Double(input[$0]) - Double(mean[$0])) * Double(scale[$0]) }
        let a = layer(weights.input[0].weights, weights.input[0].biases, x).map { max($0, 0) }
        let fromInput = layer(weights.input[1].weights, weights.input[1].biases, a)
        let fromState = layer(weights.stateWeights, weights.stateBiases, h)
        h = (0..<state).map { unit in
            let r = sigmoid(fromInput[unit] + fromState[unit])
            let z = sigmoid(fromInput[state + unit] + fromState[state + unit])
            let n = Foundation.tanh(fromInput[2 * state + unit] + r * fromState[2 * state + unit])
            return (1 - z) * n + z * h[unit]
        }
        return zip(weights.outputWeights, h).reduce(Double(weights.outputBias)) { $0 + Double($1.0) * $1.1 }
    }

    struct Buffers {
        let first: UnsafeMutablePointer<Float>, second: UnsafeMutablePointer<Float>
        init(_ size: Int) {
            first = .allocate(capacity: size)
            second = .allocate(capacity: size)
        }
        func free() { first.deallocate(); second.deallocate() }
    }

    @Test func followsTheGRUDefinitionOverASequence() {
        let network = RecurrentNetwork(Self.weights, mean: Self.mean, scale: Self.scale)
        #expect(network.stateSize == Self.state)
        let buffers = Buffers(network.bufferSize)
        defer { buffers.free() }
        var state = RecurrentState(size: Self.state)
        var expected = [Double](repeating: 0, count: Self.state)
        var logits: [Float] = []
        for frame in 0..<30 {
            let input = Self.values(Self.inputs, 100 + frame).map { $0 * 3 }
            let want = Self.referenceStep(input, state: &expected)
            let got = input.withUnsafeBufferPointer { state.step(network, inputs: $0.baseAddress!, buffers: (buffers.first, buffers.second)) }
            #expect(abs(Double(got) - want) < 1e-4, "frame \(frame)")
            logits.append(got)
        }
        // The state moved: the same weights gave different logits over the sequence.
        #expect(Set(logits).count > 20)
    }

    @Test func aCopiedStateGoesOnByItself() {
        let network = RecurrentNetwork(Self.weights, mean: Self.mean, scale: Self.scale)
        let buffers = Buffers(network.bufferSize)
        defer { buffers.free() }
        let input = Self.values(Self.inputs, 7)
        func step(_ state: inout RecurrentState) -> Float {
            input.withUnsafeBufferPointer { state.step(network, inputs: $0.baseAddress!, buffers: (buffers.first, buffers.second)) }
        }
        var original = RecurrentState(size: Self.state)
        _ = step(&original)
        var copy = original
        let fromCopy = [step(&copy), step(&copy)]
        // The original, stepped once, gives what the copy gave at its first step: the copy's steps did not reach it.
        #expect(step(&original) == fromCopy[0])
        #expect(fromCopy[0] != fromCopy[1])
    }
}
