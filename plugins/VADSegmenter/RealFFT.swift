import Foundation

/// Power spectra of real frames: an N-point real FFT done as an N/2-point
/// complex FFT of the even and odd samples, then split, which halves the work
/// of a plain complex FFT. Radix 2, tables made once.
///
/// Plain scalar loops over raw pointers, no SIMD types: the package builds
/// its library targets with the consumer's optimisation level (no unsafe
/// flags), and at -Onone every SIMD operation is a function call while a
/// pointer subscript is inlined. Optimised builds vectorise these loops
/// themselves.
struct RealFFT {
    let size: Int
    private let half: Int
    /// e^{-2πik/N} for k in 0...N/2: the split's twiddles.
    private let cosines: [Float]
    private let sines: [Float]
    private let reversed: [Int]
    /// Each stage's twiddles side by side (stage of span h: h cosines, then h sines).
    private let stageTwiddles: [Float]

    init(size: Int) {
        // At least 8: the butterflies run the first two stages fused, the rest four at a time.
        precondition(size >= 8 && size & (size - 1) == 0, "a power of two, 8 or more")
        self.size = size
        half = size / 2
        cosines = (0...(size / 2)).map { cos(-2 * Float.pi * Float($0) / Float(size)) }
        sines = (0...(size / 2)).map { sin(-2 * Float.pi * Float($0) / Float(size)) }
        var stageTwiddles: [Float] = []
        var length = 2
        while length <= size / 2 {
            let span = length / 2, step = 2 * (size / 2 / length)
            stageTwiddles += (0..<span).map { cos(-2 * Float.pi * Float($0 * step) / Float(size)) }
            stageTwiddles += (0..<span).map { sin(-2 * Float.pi * Float($0 * step) / Float(size)) }
            length *= 2
        }
        self.stageTwiddles = stageTwiddles
        let bits = (size / 2).trailingZeroBitCount
        reversed = (0..<(size / 2)).map { index in
            var value = 0
            for bit in 0..<bits where index & (1 << bit) != 0 { value |= 1 << (bits - 1 - bit) }
            return value
        }
    }

    /// Working memory, kept between frames so the hot path allocates nothing.
    struct Scratch {
        var re: [Float]
        var im: [Float]
        init(size: Int) {
            re = [Float](repeating: 0, count: size / 2)
            im = [Float](repeating: 0, count: size / 2)
        }
    }

    /// |X[k]|² for k in 0...size/2 of the windowed signal (`size` samples).
    func powerSpectrum(of signal: UnsafePointer<Float>, window: UnsafePointer<Float>,
                       into power: UnsafeMutablePointer<Float>, scratch: inout Scratch) {
        let half = self.half
        scratch.re.withUnsafeMutableBufferPointer { reBuffer in
            scratch.im.withUnsafeMutableBufferPointer { imBuffer in
                reversed.withUnsafeBufferPointer { reversedBuffer in
                    stageTwiddles.withUnsafeBufferPointer { twiddles in
                        let re = reBuffer.baseAddress!, im = imBuffer.baseAddress!
                        // z[n] = x[2n] + i·x[2n+1], in bit-reversed order.
                        let reversed = reversedBuffer.baseAddress!
                        var index = 0
                        while index < half {
                            let target = reversed[index]
                            re[target] = signal[2 * index] * window[2 * index]
                            im[target] = signal[2 * index + 1] * window[2 * index + 1]
                            index += 1
                        }
                        Self.butterflies(re: re, im: im, count: half, twiddles: twiddles.baseAddress!)
                    }
                }
                cosines.withUnsafeBufferPointer { cosines in
                    sines.withUnsafeBufferPointer { sines in
                        Self.split(re: reBuffer.baseAddress!, im: imBuffer.baseAddress!, half: half,
                                   cosines: cosines.baseAddress!, sines: sines.baseAddress!, into: power)
                    }
                }
            }
        }
    }

    /// The in-place radix-2 stages over bit-reversed input.
    private static func butterflies(re: UnsafeMutablePointer<Float>, im: UnsafeMutablePointer<Float>,
                                    count: Int, twiddles: UnsafePointer<Float>) {
        firstTwoStages(re: re, im: im, count: count, twiddles: twiddles)
        // The later stages' twiddles follow the first two's (2 + 4 floats); their spans are 4, 8, ...
        var length = 8
        var c = twiddles + 2 + 4
        while length <= count {
            let span = length / 2
            let s = c + span
            var start = 0
            while start < count {
                let ra = re + start, ia = im + start, rb = ra + span, ib = ia + span
                var k = 0
                // Four butterflies at a time, every load before any store: the
                // optimiser packs them into vector registers with no check at
                // run time that the halves do not overlap (about a hundred
                // instructions a block when it vectorised the plain loop).
                while k < span {
                    let (b0, b1, b2, b3) = (rb[k], rb[k + 1], rb[k + 2], rb[k + 3])
                    let (d0, d1, d2, d3) = (ib[k], ib[k + 1], ib[k + 2], ib[k + 3])
                    let (a0, a1, a2, a3) = (ra[k], ra[k + 1], ra[k + 2], ra[k + 3])
                    let (e0, e1, e2, e3) = (ia[k], ia[k + 1], ia[k + 2], ia[k + 3])
                    let (c0, c1, c2, c3) = (c[k], c[k + 1], c[k + 2], c[k + 3])
                    let (s0, s1, s2, s3) = (s[k], s[k + 1], s[k + 2], s[k + 3])
                    let (tr0, tr1, tr2, tr3) = (b0 * c0 - d0 * s0, b1 * c1 - d1 * s1, b2 * c2 - d2 * s2, b3 * c3 - d3 * s3)
                    let (ti0, ti1, ti2, ti3) = (b0 * s0 + d0 * c0, b1 * s1 + d1 * c1, b2 * s2 + d2 * c2, b3 * s3 + d3 * c3)
                    (rb[k], rb[k + 1], rb[k + 2], rb[k + 3]) = (a0 - tr0, a1 - tr1, a2 - tr2, a3 - tr3)
                    (ib[k], ib[k + 1], ib[k + 2], ib[k + 3]) = (e0 - ti0, e1 - ti1, e2 - ti2, e3 - ti3)
                    (ra[k], ra[k + 1], ra[k + 2], ra[k + 3]) = (a0 + tr0, a1 + tr1, a2 + tr2, a3 + tr3)
                    (ia[k], ia[k + 1], ia[k + 2], ia[k + 3]) = (e0 + ti0, e1 + ti1, e2 + ti2, e3 + ti3)
                    k += 4
                }
                start += length
            }
            c += 2 * span
            length *= 2
        }
    }

    /// The stages of span 1 and 2 in one pass over groups of four: the
    /// general loop spends most of its instructions there on loop control
    /// (64 and 32 blocks of one and two butterflies at 256 points). The
    /// arithmetic is the general loop's, in its order, so the result is the
    /// same to the bit: span 1's twiddle is (1, -0), which leaves its
    /// butterflies' products as they are, and span 2's are multiplied as stored.
    private static func firstTwoStages(re: UnsafeMutablePointer<Float>, im: UnsafeMutablePointer<Float>,
                                       count: Int, twiddles: UnsafePointer<Float>) {
        // Span 2's twiddles follow span 1's (one cosine, one sine): two cosines, then two sines.
        let c0 = twiddles[2], c1 = twiddles[3], s0 = twiddles[4], s1 = twiddles[5]
        var start = 0
        while start < count {
            let r = re + start, i = im + start
            // Span 1: (0, 1) and (2, 3).
            let r0 = r[0] + r[1], i0 = i[0] + i[1], r1 = r[0] - r[1], i1 = i[0] - i[1]
            let r2 = r[2] + r[3], i2 = i[2] + i[3], r3 = r[2] - r[3], i3 = i[2] - i[3]
            // Span 2: (0, 2) and (1, 3).
            let tr0 = r2 * c0 - i2 * s0, ti0 = r2 * s0 + i2 * c0
            let tr1 = r3 * c1 - i3 * s1, ti1 = r3 * s1 + i3 * c1
            r[2] = r0 - tr0; i[2] = i0 - ti0; r[0] = r0 + tr0; i[0] = i0 + ti0
            r[3] = r1 - tr1; i[3] = i1 - ti1; r[1] = r1 + tr1; i[1] = i1 + ti1
            start += 4
        }
    }

    /// Splits Z into the spectra of the even (E) and odd (O) samples: X = E + W^k·O.
    private static func split(re: UnsafeMutablePointer<Float>, im: UnsafeMutablePointer<Float>, half: Int,
                              cosines: UnsafePointer<Float>, sines: UnsafePointer<Float>,
                              into power: UnsafeMutablePointer<Float>) {
        /// |X[k]|² from Z[k1] and Z[k2]: k and half - k, but 0 for both at k = 0 and at k = half.
        @inline(__always) func bin(_ k: Int, _ k1: Int, _ k2: Int) -> Float {
            let zr = re[k1], zi = im[k1], cr = re[k2], ci = -im[k2]
            let er = (zr + cr) / 2, ei = (zi + ci) / 2
            let or = (zi - ci) / 2, oi = -(zr - cr) / 2
            let xr = er + cosines[k] * or - sines[k] * oi
            let xi = ei + cosines[k] * oi + sines[k] * or
            return xr * xr + xi * xi
        }
        // The two ends apart, so the loop between them has no branch and vectorises.
        power[0] = bin(0, 0, 0)
        var k = 1
        while k < half {
            power[k] = bin(k, k, half - k)
            k += 1
        }
        power[half] = bin(half, 0, 0)
    }
}

extension RealFFT {
    /// The same on arrays (`signal` and `window` of `size`, `power` of `size / 2 + 1`).
    func powerSpectrum(of signal: [Float], window: [Float], into power: inout [Float], scratch: inout Scratch) {
        precondition(signal.count >= size && window.count >= size && power.count > size / 2)
        signal.withUnsafeBufferPointer { signal in
            window.withUnsafeBufferPointer { window in
                power.withUnsafeMutableBufferPointer { power in
                    powerSpectrum(of: signal.baseAddress!, window: window.baseAddress!, into: power.baseAddress!, scratch: &scratch)
                }
            }
        }
    }
}
