/// Σ a[i]·b[i] in eight running sums, which the optimiser packs into
/// vector registers (see `DenseNetwork` for why not `SIMD8`). Not forced
/// inline: `@inline(__always)` cost the detector 2% more instructions a frame.
func dotProduct(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, count: Int) -> Float {
    var s0: Float = 0, s1: Float = 0, s2: Float = 0, s3: Float = 0
    var s4: Float = 0, s5: Float = 0, s6: Float = 0, s7: Float = 0
    var index = 0
    while index + 8 <= count {
        s0 += a[index] * b[index]
        s1 += a[index + 1] * b[index + 1]
        s2 += a[index + 2] * b[index + 2]
        s3 += a[index + 3] * b[index + 3]
        s4 += a[index + 4] * b[index + 4]
        s5 += a[index + 5] * b[index + 5]
        s6 += a[index + 6] * b[index + 6]
        s7 += a[index + 7] * b[index + 7]
        index += 8
    }
    var rest: Float = 0
    while index < count {
        rest += a[index] * b[index]
        index += 1
    }
    return ((s0 + s4) + (s1 + s5)) + ((s2 + s6) + (s3 + s7)) + rest
}
