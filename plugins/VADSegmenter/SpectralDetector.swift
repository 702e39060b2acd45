import Foundation

/// A statistical-model speech detector (after Sohn, Kim and Sung, 1999):
/// per frequency band, the likelihood ratio of "speech plus noise" over
/// "noise alone", given an adaptive estimate of each band's noise power.
/// Stationary noise of any colour settles into the per-band estimates, so
/// speech stands out of white or pink noise where a broadband energy
/// threshold is drowned. Tones (one dominant bin) are damped: speech always
/// spreads over several harmonics.
///
/// Cost: one real FFT per 10 ms frame (256 points at 16 kHz).
public struct SpectralDetector: SpeechDetector {
    /// The smoothed mean log likelihood ratio crosses the speech threshold at
    /// max(floorThreshold, relativeThreshold × its recent peak): the
    /// relative part keeps the quiet tails of loud, clean speech out, the
    /// absolute part lets speech in noise through. Tuned on vadbench's clean,
    /// white 10 dB and pink 0 dB conditions (benchmarks/vad).
    public var floorThreshold: Float = 0.15
    public var relativeThreshold: Float = 0.005
    /// Per-frame decay of the smoothed statistic (a ~140 ms release) and of its peak (~20 s).
    public var release: Float = 0.93
    public var peakRelease: Float = 0.9995
    private var peak: Float = 0

    private let rate: Int
    private let hop: Int
    private let fft: RealFFT
    private let window: [Float]
    private var history: [Float]
    private let bands: [Range<Int>]
    private var noise: [Float]
    private var previousSpeech: [Float]
    /// Minimum statistics (after Martin, 2001): smoothed band power, and its
    /// minima over the last sub-windows; the noise is the smallest of them.
    private var smoothedPower: [Float]
    private var currentMinimum: [Float]
    private var minima: [[Float]] = []
    private static let subWindowFrames = 25
    private static let subWindows = 6
    private static let minimumBias: Float = 2.0
    private var framesSeen = 0
    private var smoothed: Float = 0
    private var spectrum: [Float]
    private var energies: [Float]
    private var scratch: RealFFT.Scratch

    /// Features of the last frame, for benchmarks and tuning.
    public private(set) var lastLogLikelihood: Float = 0
    public private(set) var lastTonality: Float = 0

    public init(rate: Int = 16_000) {
        self.rate = rate
        hop = rate / 100
        var size = 1
        while size < hop * 8 / 5 { size *= 2 }
        fft = RealFFT(size: size)
        window = (0..<size).map { 0.5 - 0.5 * cos(2 * Float.pi * Float($0) / Float(size)) }
        history = [Float](repeating: 0, count: size)
        spectrum = [Float](repeating: 0, count: size / 2 + 1)
        scratch = RealFFT.Scratch(size: size)
        // 250 Hz bands over the speech range (150 Hz to 4 kHz, or Nyquist).
        let binHz = Float(rate) / Float(size)
        let top = min(4000, Float(rate) / 2 - 100)
        var bands: [Range<Int>] = []
        var low: Float = 150
        while low + 250 <= top + 1 {
            let from = Int((low / binHz).rounded()), to = max(from + 1, Int(((low + 250) / binHz).rounded()))
            bands.append(from..<to)
            low += 250
        }
        self.bands = bands
        energies = [Float](repeating: 0, count: bands.count)
        noise = [Float](repeating: 0, count: bands.count)
        previousSpeech = [Float](repeating: 0, count: bands.count)
        smoothedPower = [Float](repeating: 0, count: bands.count)
        currentMinimum = [Float](repeating: .greatestFiniteMagnitude, count: bands.count)
    }

    public mutating func probability(of frame: UnsafeBufferPointer<Int16>) -> Float {
        // Slide the analysis window by one hop (frames may be any length; the
        // element always hands over 10 ms).
        let count = min(frame.count, history.count)
        let first = frame.count - count
        var mean: Float = 0
        for index in first..<frame.count { mean += Float(frame[index]) }
        mean /= Float(max(1, count))
        history.withUnsafeMutableBufferPointer { history in
            let keep = history.count - count
            if keep > 0 {
                UnsafeMutableRawPointer(history.baseAddress!).copyMemory(
                    from: history.baseAddress! + count, byteCount: keep * MemoryLayout<Float>.stride)
            }
            for index in 0..<count { history[keep + index] = (Float(frame[first + index]) - mean) / 32768 }
        }
        fft.powerSpectrum(of: history, window: window, into: &spectrum, scratch: &scratch)

        var strongestBin: Float = 0, total: Float = 0
        for (index, band) in bands.enumerated() {
            var sum: Float = 0
            for bin in band {
                sum += spectrum[bin]
                strongestBin = max(strongestBin, spectrum[bin])
            }
            energies[index] = sum / Float(band.count) + 1e-12
            total += sum
        }
        framesSeen += 1
        trackNoise(energies)

        var logLikelihood: Float = 0
        for index in bands.indices {
            let gamma = min(energies[index] / noise[index], 1e4)
            // A-priori SNR: the ML estimate, smoothed over a few frames. (The
            // decision-directed estimate starves at 0 dB: its Wiener gain
            // squares low SNRs away.)
            let xi = max(0.5 * previousSpeech[index] + 0.5 * max(gamma - 1, 0), 1e-3)
            previousSpeech[index] = xi
            logLikelihood += gamma * xi / (1 + xi) - log(1 + xi)
        }
        logLikelihood /= Float(bands.count)
        let tonality = total > 0 ? strongestBin / total : 0
        lastLogLikelihood = logLikelihood
        lastTonality = tonality

        var statistic = logLikelihood
        // Tones put nearly all their power in one bin; speech never does.
        if tonality > 0.35 { statistic *= max(0, 1 - (tonality - 0.35) * 3) }
        smoothed = max(statistic, release * smoothed)
        peak = max(statistic, peakRelease * peak)  // the statistic's recent peak
        let threshold = max(floorThreshold, relativeThreshold * peak)
        // A probability-like score that is 0.5 exactly at the threshold.
        return 1 / (1 + exp(-2 * (log(smoothed + 1e-6) - log(threshold))))
    }
}

extension SpectralDetector {
    /// Noise per band = the minimum of the smoothed power over the last
    /// ~1.5 s, scaled for the minimum's bias. Speech seldom fills a band that
    /// long, so the estimate follows the noise, whatever its colour, and
    /// never the speech.
    private mutating func trackNoise(_ energies: [Float]) {
        for index in energies.indices {
            smoothedPower[index] = framesSeen == 1 ? energies[index] : 0.8 * smoothedPower[index] + 0.2 * energies[index]
            currentMinimum[index] = min(currentMinimum[index], smoothedPower[index])
        }
        if framesSeen % Self.subWindowFrames == 0 {
            minima.append(currentMinimum)
            if minima.count > Self.subWindows { minima.removeFirst() }
            currentMinimum = [Float](repeating: .greatestFiniteMagnitude, count: energies.count)
        }
        for index in noise.indices {
            var lowest = currentMinimum[index]
            for window in minima { lowest = min(lowest, window[index]) }
            noise[index] = max(lowest * Self.minimumBias, 1e-12)
        }
    }
}

/// A radix-2 real FFT of a fixed size, for power spectra.
struct RealFFT {
    let size: Int
    private let cosines: [Float]
    private let sines: [Float]
    private let reversed: [Int]

    init(size: Int) {
        self.size = size
        cosines = (0..<(size / 2)).map { cos(-2 * Float.pi * Float($0) / Float(size)) }
        sines = (0..<(size / 2)).map { sin(-2 * Float.pi * Float($0) / Float(size)) }
        let bits = size.trailingZeroBitCount
        reversed = (0..<size).map { index in
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
            re = [Float](repeating: 0, count: size)
            im = [Float](repeating: 0, count: size)
        }
    }

    /// |X[k]|² for k in 0...size/2 of the windowed signal.
    func powerSpectrum(of signal: [Float], window: [Float], into power: inout [Float], scratch: inout Scratch) {
        let size = self.size
        scratch.re.withUnsafeMutableBufferPointer { re in
            scratch.im.withUnsafeMutableBufferPointer { im in
                cosines.withUnsafeBufferPointer { cosines in
                    sines.withUnsafeBufferPointer { sines in
                        for index in 0..<size {
                            re[reversed[index]] = signal[index] * window[index]
                            im[index] = 0
                        }
                        var length = 2
                        while length <= size {
                            let half = length / 2, step = size / length
                            var start = 0
                            while start < size {
                                for k in 0..<half {
                                    let c = cosines[k * step], s = sines[k * step]
                                    let a = start + k, b = a + half
                                    let tr = re[b] * c - im[b] * s, ti = re[b] * s + im[b] * c
                                    re[b] = re[a] - tr; im[b] = im[a] - ti
                                    re[a] += tr; im[a] += ti
                                }
                                start += length
                            }
                            length *= 2
                        }
                        for k in 0...(size / 2) { power[k] = re[k] * re[k] + im[k] * im[k] }
                    }
                }
            }
        }
    }
}
