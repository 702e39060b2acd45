/// A stack of dense layers (ReLU between them, a logit out) with the trained
/// weights, built once per process.
///
/// Weights are kept in blocks of sixteen output units: for each block, every
/// input's sixteen weights side by side, so a layer is "sixteen outputs +=
/// sixteen weights × one input" over its inputs, which the optimiser packs
/// into vector registers. Two blocks are run together where a layer has
/// them, so each input is loaded and broadcast once per 32 multiply-adds
/// (blocks of eight spent about 1.4 instructions a multiply-add, sixteen
/// about 1.1, pairs of sixteen about 0.9). A hidden layer whose outputs are
/// not a multiple of sixteen is padded with zero weights; a logit (one
/// output) is stored unpadded and summed alone, input by input, as a block's
/// lane would sum it (padded to a block, the detector's logits cost about
/// 2,000 instructions a frame more, for the same results). The input's
/// standardisation, `(x - mean) × scale`, is folded into the first layer's
/// weights and biases here, so the features go in as the front end gives them.
// @unchecked: the memory is written once, in init, and only read after.
final class DenseNetwork: @unchecked Sendable {
    /// Output units per block.
    static let lanes = 16

    private struct Layer {
        var inputs: Int
        var blocks: Int
        /// Weights side by side per input: `lanes`, or 1 for a logit (one output, no padding).
        var stride: Int
        var weights: Int  // offset of the first block's weights in `storage`, in floats
        var biases: Int   // offset of the biases in `storage`, in floats
    }

    private let layers: [Layer]
    private let storage: UnsafeMutablePointer<Float>
    /// Floats a scratch buffer needs: the widest layer's outputs, padded to blocks, and one more.
    let bufferSize: Int

    /// `trained`: each layer's weights row-major by output unit (as
    /// benchmarks/vad/train writes them) and its biases.
    init(layers trained: [(weights: [Float], biases: [Float])], mean: [Float], scale: [Float]) {
        var trained = trained
        trained[0] = Self.folding(mean: mean, scale: scale, into: trained[0])
        var layers: [Layer] = [], offset = 0
        for (weights, biases) in trained {
            let outputs = biases.count, inputs = weights.count / outputs
            let blocks = (outputs + Self.lanes - 1) / Self.lanes
            let padded = outputs == 1 ? 1 : blocks * Self.lanes
            layers.append(Layer(inputs: inputs, blocks: blocks, stride: outputs == 1 ? 1 : Self.lanes,
                                weights: offset, biases: offset + padded * inputs))
            offset += padded * (inputs + 1)
        }
        storage = .allocate(capacity: offset)
        storage.initialize(repeating: 0, count: offset)
        for (layer, (weights, biases)) in zip(layers, trained) {
            for output in biases.indices {
                let (block, lane) = output.quotientAndRemainder(dividingBy: Self.lanes)
                for input in 0..<layer.inputs {
                    storage[layer.weights + (block * layer.inputs + input) * layer.stride + lane] = weights[output * layer.inputs + input]
                }
                storage[layer.biases + output] = biases[output]
            }
        }
        self.layers = layers
        bufferSize = layers.map { $0.blocks * Self.lanes }.max()! + 1
    }

    deinit { storage.deallocate() }

    /// w·((x - mean)·scale) + b = (w·scale)·x + (b - Σ w·scale·mean).
    private static func folding(mean: [Float], scale: [Float], into layer: (weights: [Float], biases: [Float]))
        -> (weights: [Float], biases: [Float]) {
        var (weights, biases) = layer
        let inputs = mean.count
        precondition(weights.count == inputs * biases.count, "the first layer's inputs and the standardisation disagree")
        for output in biases.indices {
            var shift: Double = 0
            for input in 0..<inputs {
                weights[output * inputs + input] *= scale[input]
                shift += Double(weights[output * inputs + input]) * Double(mean[input])
            }
            biases[output] -= Float(shift)
        }
        return (weights, biases)
    }

    /// The output logit for one input, and the last hidden layer's
    /// activations (in one of `buffers`, until the next evaluation).
    func evaluate(_ values: UnsafePointer<Float>, buffers: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>))
        -> (logit: Float, hidden: UnsafeMutablePointer<Float>, hiddenCount: Int) {
        let (outputs, before) = run(values, buffers: buffers)
        return (outputs[0], before, layers[layers.count - 1].inputs)
    }

    /// Every unit of the last layer for one input (in one of `buffers`, until
    /// the next evaluation), for a network whose last layer is not one logit.
    func outputs(of values: UnsafePointer<Float>, buffers: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>))
        -> UnsafeMutablePointer<Float> {
        run(values, buffers: buffers).outputs
    }

    /// The last layer's outputs and the buffer holding the layer before them.
    private func run(_ values: UnsafePointer<Float>, buffers: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>))
        -> (outputs: UnsafeMutablePointer<Float>, before: UnsafeMutablePointer<Float>) {
        var from = values
        var (to, spare) = buffers
        let last = layers.count - 1
        layers.withUnsafeBufferPointer { layers in
            for number in 0...last {
                apply(layers[number], to: from, into: to, rectify: number < last)
                from = UnsafePointer(to)
                swap(&to, &spare)
            }
        }
        // After the last swap `spare` holds the output and `to` the layer before it.
        return (spare, to)
    }

    /// `y = b + Wx`, then max(y, 0) if `rectify`: two blocks of outputs at a
    /// time while there are two (each input loaded and broadcast once for
    /// 32 multiply-adds: about 0.9 instructions a multiply-add where one
    /// block spends 1.1), then a lone last block.
    ///
    /// Scalar sums, not `SIMD16`: the optimiser packs them into vector
    /// registers all the same, and at -Onone (the debug builds the tests
    /// run) SIMD operators are generic calls, ten times slower than this
    /// plain arithmetic. Each output's products are summed in input order
    /// either way, so the pairing changes no result.
    ///
    /// Skipping inputs that are exactly zero (the ReLU layers' and the
    /// context's) was tried: 4% fewer instructions a frame, 5% more CPU
    /// time, the branch costing more than the work it skips.
    private func apply(_ layer: Layer, to x: UnsafePointer<Float>, into y: UnsafeMutablePointer<Float>, rectify: Bool) {
        let lanes = Self.lanes  // a local: at -Onone a static is an accessor call
        let blockWeights = layer.inputs * lanes
        if layer.stride == 1 {
            // A logit: one sum over the inputs, in order, as a block's lane would add them.
            let weights = storage + layer.weights
            var sum = storage[layer.biases], input = 0
            while input < layer.inputs {
                sum += weights[input] * x[input]
                input += 1
            }
            y[0] = rectify ? max(sum, 0) : sum
            return
        }
        var block = 0
        while block + 2 <= layer.blocks {
            var weights = storage + layer.weights + block * blockWeights
            let biases = storage + layer.biases + block * lanes
            var (s0, s1, s2, s3, s4, s5, s6, s7) = (biases[0], biases[1], biases[2], biases[3], biases[4], biases[5], biases[6], biases[7])
            var (s8, s9, s10, s11, s12, s13, s14, s15) = (biases[8], biases[9], biases[10], biases[11],
                                                          biases[12], biases[13], biases[14], biases[15])
            var (u0, u1, u2, u3, u4, u5, u6, u7) = (biases[16], biases[17], biases[18], biases[19],
                                                    biases[20], biases[21], biases[22], biases[23])
            var (u8, u9, u10, u11, u12, u13, u14, u15) = (biases[24], biases[25], biases[26], biases[27],
                                                          biases[28], biases[29], biases[30], biases[31])
            var input = 0
            while input < layer.inputs {
                let value = x[input], w = weights + blockWeights
                s0 += weights[0] * value; s1 += weights[1] * value; s2 += weights[2] * value; s3 += weights[3] * value
                s4 += weights[4] * value; s5 += weights[5] * value; s6 += weights[6] * value; s7 += weights[7] * value
                s8 += weights[8] * value; s9 += weights[9] * value; s10 += weights[10] * value; s11 += weights[11] * value
                s12 += weights[12] * value; s13 += weights[13] * value; s14 += weights[14] * value; s15 += weights[15] * value
                u0 += w[0] * value; u1 += w[1] * value; u2 += w[2] * value; u3 += w[3] * value
                u4 += w[4] * value; u5 += w[5] * value; u6 += w[6] * value; u7 += w[7] * value
                u8 += w[8] * value; u9 += w[9] * value; u10 += w[10] * value; u11 += w[11] * value
                u12 += w[12] * value; u13 += w[13] * value; u14 += w[14] * value; u15 += w[15] * value
                weights += lanes
                input += 1
            }
            let out = y + block * lanes
            (out[0], out[1], out[2], out[3], out[4], out[5], out[6], out[7]) = (s0, s1, s2, s3, s4, s5, s6, s7)
            (out[8], out[9], out[10], out[11], out[12], out[13], out[14], out[15]) = (s8, s9, s10, s11, s12, s13, s14, s15)
            (out[16], out[17], out[18], out[19], out[20], out[21], out[22], out[23]) = (u0, u1, u2, u3, u4, u5, u6, u7)
            (out[24], out[25], out[26], out[27], out[28], out[29], out[30], out[31]) = (u8, u9, u10, u11, u12, u13, u14, u15)
            if rectify { Self.rectify(out, count: 2 * lanes) }
            block += 2
        }
        // The lone last block: the pair's first half written again, not the
        // pair run on a padded second block (the frame network's second layer
        // and the gates' third block are lone: 1,280 multiply-adds a member
        // that would be wasted).
        if block < layer.blocks {
            var weights = storage + layer.weights + block * blockWeights
            let biases = storage + layer.biases + block * lanes
            var (s0, s1, s2, s3, s4, s5, s6, s7) = (biases[0], biases[1], biases[2], biases[3], biases[4], biases[5], biases[6], biases[7])
            var (s8, s9, s10, s11, s12, s13, s14, s15) = (biases[8], biases[9], biases[10], biases[11],
                                                          biases[12], biases[13], biases[14], biases[15])
            var input = 0
            while input < layer.inputs {
                let value = x[input]
                s0 += weights[0] * value; s1 += weights[1] * value; s2 += weights[2] * value; s3 += weights[3] * value
                s4 += weights[4] * value; s5 += weights[5] * value; s6 += weights[6] * value; s7 += weights[7] * value
                s8 += weights[8] * value; s9 += weights[9] * value; s10 += weights[10] * value; s11 += weights[11] * value
                s12 += weights[12] * value; s13 += weights[13] * value; s14 += weights[14] * value; s15 += weights[15] * value
                weights += lanes
                input += 1
            }
            let out = y + block * lanes
            (out[0], out[1], out[2], out[3], out[4], out[5], out[6], out[7]) = (s0, s1, s2, s3, s4, s5, s6, s7)
            (out[8], out[9], out[10], out[11], out[12], out[13], out[14], out[15]) = (s8, s9, s10, s11, s12, s13, s14, s15)
            if rectify { Self.rectify(out, count: lanes) }
        }
    }

    /// max(y, 0) in place.
    private static func rectify(_ y: UnsafeMutablePointer<Float>, count: Int) {
        var index = 0
        while index < count {
            y[index] = max(y[index], 0)
            index += 1
        }
    }
}
