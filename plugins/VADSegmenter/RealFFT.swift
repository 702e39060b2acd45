import Foundation

/// Power spectra of real frames: an N-point real FFT done as an N/2-point
/// complex FFT of the even and odd samples, then split, which halves the work
/// of a plain complex FFT. Radix 2, tables and scratch made once.
struct RealFFT {
    let size: Int
    private let half: Int
    /// e^{-2πik/N} for k in 0...N/2: the split's twiddles; every other one is the half-size FFT's.
    private let cosines: [Float]
    private let sines: [Float]
    private let reversed: [Int]
    /// Each stage's twiddles side by side (stage of span h: h cosines, then h
    /// sines), so the wide stages load eight at a time.
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

    /// |X[k]|² for k in 0...size/2 of the windowed signal.
    func powerSpectrum(of signal: [Float], window: [Float], into power: inout [Float], scratch: inout Scratch) {
        let half = self.half
        scratch.re.withUnsafeMutableBufferPointer { re in
            scratch.im.withUnsafeMutableBufferPointer { im in
                cosines.withUnsafeBufferPointer { cosines in
                    sines.withUnsafeBufferPointer { sines in
                        // z[n] = x[2n] + i·x[2n+1], in bit-reversed order.
                        for index in 0..<half {
                            let target = reversed[index]
                            re[target] = signal[2 * index] * window[2 * index]
                            im[target] = signal[2 * index + 1] * window[2 * index + 1]
                        }
                        var length = 2, twiddleOffset = 0
                        stageTwiddles.withUnsafeBufferPointer { twiddles in
                            while length <= half {
                                let span = length / 2
                                let c = twiddles.baseAddress! + twiddleOffset, s = c + span
                                var start = 0
                                while start < half {
                                    var k = 0
                                    // Eight butterflies at once where the stage is wide enough (four
                                    // below): the same operations in the same order as the scalar loop.
                                    // Written out for SIMD8 and SIMD4: a generic version was not
                                    // specialised and doubled the FFT's cost.
                                    while k + 8 <= span {
                                        let a = start + k, b = a + span
                                        let cs = UnsafeRawPointer(c + k).loadUnaligned(as: SIMD8<Float>.self)
                                        let sn = UnsafeRawPointer(s + k).loadUnaligned(as: SIMD8<Float>.self)
                                        let rb = UnsafeRawPointer(re.baseAddress! + b).loadUnaligned(as: SIMD8<Float>.self)
                                        let ib = UnsafeRawPointer(im.baseAddress! + b).loadUnaligned(as: SIMD8<Float>.self)
                                        let ra = UnsafeRawPointer(re.baseAddress! + a).loadUnaligned(as: SIMD8<Float>.self)
                                        let ia = UnsafeRawPointer(im.baseAddress! + a).loadUnaligned(as: SIMD8<Float>.self)
                                        let tr = rb * cs - ib * sn, ti = rb * sn + ib * cs
                                        UnsafeMutableRawPointer(re.baseAddress! + b).storeBytes(of: ra - tr, as: SIMD8<Float>.self)
                                        UnsafeMutableRawPointer(im.baseAddress! + b).storeBytes(of: ia - ti, as: SIMD8<Float>.self)
                                        UnsafeMutableRawPointer(re.baseAddress! + a).storeBytes(of: ra + tr, as: SIMD8<Float>.self)
                                        UnsafeMutableRawPointer(im.baseAddress! + a).storeBytes(of: ia + ti, as: SIMD8<Float>.self)
                                        k += 8
                                    }
                                    if span == 4 {
                                        let a = start, b = a + 4
                                        let cs = UnsafeRawPointer(c).loadUnaligned(as: SIMD4<Float>.self)
                                        let sn = UnsafeRawPointer(s).loadUnaligned(as: SIMD4<Float>.self)
                                        let rb = UnsafeRawPointer(re.baseAddress! + b).loadUnaligned(as: SIMD4<Float>.self)
                                        let ib = UnsafeRawPointer(im.baseAddress! + b).loadUnaligned(as: SIMD4<Float>.self)
                                        let ra = UnsafeRawPointer(re.baseAddress! + a).loadUnaligned(as: SIMD4<Float>.self)
                                        let ia = UnsafeRawPointer(im.baseAddress! + a).loadUnaligned(as: SIMD4<Float>.self)
                                        let tr = rb * cs - ib * sn, ti = rb * sn + ib * cs
                                        UnsafeMutableRawPointer(re.baseAddress! + b).storeBytes(of: ra - tr, as: SIMD4<Float>.self)
                                        UnsafeMutableRawPointer(im.baseAddress! + b).storeBytes(of: ia - ti, as: SIMD4<Float>.self)
                                        UnsafeMutableRawPointer(re.baseAddress! + a).storeBytes(of: ra + tr, as: SIMD4<Float>.self)
                                        UnsafeMutableRawPointer(im.baseAddress! + a).storeBytes(of: ia + ti, as: SIMD4<Float>.self)
                                        k = 4
                                    } else if span == 1 {
                                        // The twiddle is exactly 1: no products needed, the same result.
                                        let a = start, b = a + 1
                                        let tr = re[b], ti = im[b]
                                        re[b] = re[a] - tr; im[b] = im[a] - ti
                                        re[a] += tr; im[a] += ti
                                        k = 1
                                    }
                                    while k < span {
                                        let a = start + k, b = a + span
                                        let tr = re[b] * c[k] - im[b] * s[k], ti = re[b] * s[k] + im[b] * c[k]
                                        re[b] = re[a] - tr; im[b] = im[a] - ti
                                        re[a] += tr; im[a] += ti
                                        k += 1
                                    }
                                    start += length
                                }
                                twiddleOffset += 2 * span
                                length *= 2
                            }
                        }
                        // Split Z into the spectra of the even (E) and odd (O) samples: X = E + W^k·O.
                        for k in 0...half {
                            let k1 = k == half ? 0 : k, k2 = k == 0 || k == half ? 0 : half - k
                            let zr = re[k1], zi = im[k1], cr = re[k2], ci = -im[k2]
                            let er = (zr + cr) / 2, ei = (zi + ci) / 2
                            let or = (zi - ci) / 2, oi = -(zr - cr) / 2
                            let xr = er + cosines[k] * or - sines[k] * oi
                            let xi = ei + cosines[k] * oi + sines[k] * or
                            power[k] = xr * xr + xi * xi
                        }
                    }
                }
            }
        }
    }
}
