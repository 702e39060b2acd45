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

    init(size: Int) {
        precondition(size >= 4 && size & (size - 1) == 0, "a power of two")
        self.size = size
        half = size / 2
        cosines = (0...(size / 2)).map { cos(-2 * Float.pi * Float($0) / Float(size)) }
        sines = (0...(size / 2)).map { sin(-2 * Float.pi * Float($0) / Float(size)) }
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
                        var length = 2
                        while length <= half {
                            let span = length / 2, step = 2 * (half / length)  // twiddles of N/2 are every other of N
                            var start = 0
                            while start < half {
                                for k in 0..<span {
                                    let c = cosines[k * step], s = sines[k * step]
                                    let a = start + k, b = a + span
                                    let tr = re[b] * c - im[b] * s, ti = re[b] * s + im[b] * c
                                    re[b] = re[a] - tr; im[b] = im[a] - ti
                                    re[a] += tr; im[a] += ti
                                }
                                start += length
                            }
                            length *= 2
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
