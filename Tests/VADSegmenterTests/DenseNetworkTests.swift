import Testing
@testable import VADSegmenter

/// The blocked, standardisation-folded layers against the plain definition:
/// standardise, then `max(0, b + Wx)` per layer, a bare logit out.
@Suite struct DenseNetworkTests {
    /// Weights row-major by output unit, as benchmarks/vad/train writes them.
    struct Reference {
        var layers: [(weights: [Float], biases: [Float])]
        var mean: [Float]
        var scale: [Float]

        func evaluate(_ input: [Float]) -> (logit: Float, hidden: [Float]) {
            var values = zip(input, zip(mean, scale)).map { ($0 - $1.0) * $1.1 }
            var hidden: [Float] = []
            for (number, layer) in layers.enumerated() {
                let inputs = values.count
                hidden = values
                values = layer.biases.indices.map { output in
                    let sum = (0..<inputs).reduce(layer.biases[output]) { $0 + layer.weights[output * inputs + $1] * values[$1] }
                    return number < layers.count - 1 ? max(sum, 0) : sum
                }
            }
            return (values[0], hidden)
        }
    }

    /// A deterministic spread of small values, positive and negative.
    static func values(_ count: Int, seed: Int) -> [Float] {
        (0..<count).map { Float((($0 + 1) * 7919 + seed * 104_729) % 2001 - 1000) / 1000 }
    }

    /// 5 inputs, 37 and 3 hidden units (neither a multiple of a block; 37 is
    /// two full blocks, run as a pair, and a padded one run alone, 3 a padded
    /// block alone), 1 logit.
    static let reference = Reference(
        layers: [(values(185, seed: 1), values(37, seed: 2)), (values(111, seed: 3), values(3, seed: 4)), (values(3, seed: 5), values(1, seed: 6))],
        mean: values(5, seed: 7), scale: values(5, seed: 8).map { 1 + abs($0) })

    func evaluate(_ network: DenseNetwork, _ input: [Float]) -> (logit: Float, hidden: [Float]) {
        let first = UnsafeMutablePointer<Float>.allocate(capacity: network.bufferSize)
        let second = UnsafeMutablePointer<Float>.allocate(capacity: network.bufferSize)
        defer { first.deallocate(); second.deallocate() }
        let (logit, hidden, count) = input.withUnsafeBufferPointer { network.evaluate($0.baseAddress!, buffers: (first, second)) }
        return (logit, Array(UnsafeBufferPointer(start: hidden, count: count)))
    }

    @Test func matchesThePlainDefinition() {
        let reference = Self.reference
        let network = DenseNetwork(layers: reference.layers, mean: reference.mean, scale: reference.scale)
        for seed in 0..<20 {
            let input = Self.values(5, seed: 100 + seed).map { $0 * 3 }
            let expected = reference.evaluate(input), got = evaluate(network, input)
            #expect(abs(got.logit - expected.logit) < 1e-4, "input \(seed)")
            #expect(got.hidden.count == 3)
            for (unit, (a, b)) in zip(got.hidden, expected.hidden).enumerated() {
                #expect(abs(a - b) < 1e-4, "input \(seed), hidden unit \(unit)")
            }
        }
    }

    @Test func hiddenUnitsAreRectified() {
        let reference = Self.reference
        let network = DenseNetwork(layers: reference.layers, mean: reference.mean, scale: reference.scale)
        var sawZero = false
        for seed in 0..<20 {
            let hidden = evaluate(network, Self.values(5, seed: 200 + seed).map { $0 * 3 }).hidden
            #expect(hidden.allSatisfy { $0 >= 0 })
            sawZero = sawZero || hidden.contains(0)
        }
        // The inputs drive some unit below zero: the rectifier was exercised.
        #expect(sawZero)
    }
}
