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
        precondition(size >= 4 && size & (size - 1) == 0, "a power of two")
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
        var length = 2
        var c = twiddles
        while length <= count {
            let span = length / 2
            let s = c + span
            var start = 0
            while start < count {
                let ra = re + start, ia = im + start, rb = ra + span, ib = ia + span
                var k = 0
                while k < span {
                    let tr = rb[k] * c[k] - ib[k] * s[k], ti = rb[k] * s[k] + ib[k] * c[k]
                    rb[k] = ra[k] - tr
                    ib[k] = ia[k] - ti
                    ra[k] += tr
                    ia[k] += ti
                    k += 1
                }
                start += length
            }
            c += 2 * span
            length *= 2
        }
    }

    /// Splits Z into the spectra of the even (E) and odd (O) samples: X = E + W^k·O.
    private static func split(re: UnsafeMutablePointer<Float>, im: UnsafeMutablePointer<Float>, half: Int,
                              cosines: UnsafePointer<Float>, sines: UnsafePointer<Float>,
                              into power: UnsafeMutablePointer<Float>) {
        var k = 0
        while k <= half {
            let k1 = k == half ? 0 : k, k2 = k == 0 || k == half ? 0 : half - k
            let zr = re[k1], zi = im[k1], cr = re[k2], ci = -im[k2]
            let er = (zr + cr) / 2, ei = (zi + ci) / 2
            let or = (zi - ci) / 2, oi = -(zr - cr) / 2
            let xr = er + cosines[k] * or - sines[k] * oi
            let xi = ei + cosines[k] * oi + sines[k] * or
            power[k] = xr * xr + xi * xi
            k += 1
        }
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
