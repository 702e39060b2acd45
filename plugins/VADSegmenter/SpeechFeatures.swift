import Foundation

/// The detector's front end: per 10 ms frame, what a small classifier needs
/// to tell speech from stationary noise and from non-speech sounds.
///
/// - 15 bands of 250 Hz (150 Hz to 3.9 kHz, so 8 kHz audio has them all):
///   each band's level over its noise floor (minimum statistics: stationary
///   noise of any colour settles there), and the spectral shape (each band
///   against the frame's mean level).
/// - Per-frame summaries (mean and peak band SNR, tonality, spectral flux,
///   level over the floor, spread of the band SNRs, spectral flatness, and
///   harmonic spacing) for the last 310 ms, every 20 ms: speech rises and
///   falls at the syllable rate; tones, hums and noise do not; screams and
///   whistles space their harmonics far wider than a voice does.
///
/// `benchmarks/vad/train` computes these same features (through
/// `parley-bench vad-features`) to train the classifier, so any change here
/// means training again.
public struct SpeechFeatures {
    public static let bandCount = 15
    static let summaryCount = 8
    static let historyTaps = 16, historyStride = 2
    public static let count = 2 * bandCount + summaryCount * historyTaps

    private let hop: Int
    private let fft: RealFFT
    private let window: [Float]
    private var history: [Float]
    private let bands: [Range<Int>]
    private var spectrum: [Float]
    private var scratch: RealFFT.Scratch
    private var energies: [Float]
    private var magnitudes: [Float]
    private var logLevels: [Float]
    private var previousLogLevels: [Float]
    private var noise: NoiseFloor
    /// Summaries of past frames, newest at `summaryHead`.
    private var summaries: [Float]
    private var summaryHead = 0
    private static let ringFrames = historyTaps * historyStride

    /// The last frame's features.
    public private(set) var values: [Float]

    public init(rate: Int) {
        hop = rate / 100
        var size = 1
        while size < hop * 8 / 5 { size *= 2 }
        fft = RealFFT(size: size)
        window = (0..<size).map { 0.5 - 0.5 * cos(2 * Float.pi * Float($0) / Float(size)) }
        history = [Float](repeating: 0, count: size)
        spectrum = [Float](repeating: 0, count: size / 2 + 1)
        scratch = RealFFT.Scratch(size: size)
        let binHz = Float(rate) / Float(size)
        bands = (0..<Self.bandCount).map { index in
            let low = 150 + Float(index) * 250
            let from = Int((low / binHz).rounded())
            return from..<max(from + 1, Int(((low + 250) / binHz).rounded()))
        }
        energies = [Float](repeating: 0, count: Self.bandCount)
        magnitudes = [Float](repeating: 0, count: bands.last!.upperBound)
        logLevels = [Float](repeating: 0, count: Self.bandCount)
        previousLogLevels = logLevels
        noise = NoiseFloor(bands: Self.bandCount)
        summaries = [Float](repeating: 0, count: Self.ringFrames * Self.summaryCount)
        values = [Float](repeating: 0, count: Self.count)
    }

    /// Computes the features of one frame (normally 10 ms) into `values`.
    public mutating func update(with frame: UnsafeBufferPointer<Int16>) {
        slide(frame)
        fft.powerSpectrum(of: history, window: window, into: &spectrum, scratch: &scratch)
        var strongestBin: Float = 0, total: Float = 1e-12
        spectrum.withUnsafeBufferPointer { spectrum in
            for (index, band) in bands.enumerated() {
                var sum: Float = 0
                for bin in band where bin < spectrum.count {
                    sum += spectrum[bin]
                    strongestBin = max(strongestBin, spectrum[bin])
                }
                energies[index] = sum / Float(band.count) + 1e-11
                total += sum
            }
        }
        noise.track(energies)

        // One pass of raw pointers over this frame's arrays: the front end runs
        // 100 times a second per stream, and checked array writes cost a third of it.
        let count = Self.bandCount
        var meanLog: Float = 0, meanSNR: Float = 0, peakSNR: Float = -10, flux: Float = 0, level: Float = 0, floor: Float = 0
        let base = summaryHead * Self.summaryCount
        withPointers { energies, noise, logLevels, previousLogLevels, values, summaries in
            for index in 0..<count {
                logLevels[index] = log10(energies[index])
                meanLog += logLevels[index]
                let snr = min(max(10 * log10(energies[index] / noise[index]), -10), 40)
                values[index] = snr / 10
                meanSNR += snr
                peakSNR = max(peakSNR, snr)
                flux += abs(logLevels[index] - previousLogLevels[index])
                level += energies[index]
                floor += noise[index]
            }
            meanLog /= Float(count)
            for index in 0..<count {
                values[count + index] = min(max(logLevels[index] - meanLog, -4), 4) / 2
            }
            // Summaries into the ring; the taps are read out of it below, newest first.
            summaries[base] = meanSNR / Float(count) / 10
            summaries[base + 1] = peakSNR / 10
            summaries[base + 2] = strongestBin / total
            summaries[base + 3] = min(flux / Float(count), 3)
            summaries[base + 4] = min(max(10 * log10(level / floor), -10), 40) / 10
            var spread: Float = 0
            for index in 0..<count {
                let deviation = values[index] - summaries[base]
                spread += deviation * deviation
            }
            summaries[base + 5] = (spread / Float(count)).squareRoot()
        }
        swap(&logLevels, &previousLogLevels)
        let (flatness, harmonicity) = spectralShape(meanLog10: meanLog)
        let head = summaryHead
        values.withUnsafeMutableBufferPointer { values in
            summaries.withUnsafeMutableBufferPointer { summaries in
                summaries[base + 6] = flatness
                summaries[base + 7] = harmonicity
                var out = 2 * count
                for tap in 0..<Self.historyTaps {
                    var slot = head - tap * Self.historyStride
                    if slot < 0 { slot += Self.ringFrames }
                    let from = slot * Self.summaryCount
                    for feature in 0..<Self.summaryCount { values[out + feature] = summaries[from + feature] }
                    out += Self.summaryCount
                }
            }
        }
        summaryHead = (summaryHead + 1) % Self.ringFrames
    }

    private mutating func withPointers(_ body: (UnsafeBufferPointer<Float>, UnsafeBufferPointer<Float>,
                                                UnsafeMutableBufferPointer<Float>, UnsafeBufferPointer<Float>,
                                                UnsafeMutableBufferPointer<Float>, UnsafeMutableBufferPointer<Float>) -> Void) {
        energies.withUnsafeBufferPointer { energies in
            noise.power.withUnsafeBufferPointer { noise in
                previousLogLevels.withUnsafeBufferPointer { previous in
                    logLevels.withUnsafeMutableBufferPointer { logLevels in
                        values.withUnsafeMutableBufferPointer { values in
                            summaries.withUnsafeMutableBufferPointer { summaries in
                                body(energies, noise, logLevels, previous, values, summaries)
                            }
                        }
                    }
                }
            }
        }
    }

    /// Spectral flatness (geometric over arithmetic mean of the band levels:
    /// 1 for noise, low for speech and tones), and how strongly the magnitude
    /// spectrum repeats at a spacing of 250 to 1500 Hz (harmonics of a
    /// scream, whistle or alarm; a voice's lie closer).
    private mutating func spectralShape(meanLog10: Float) -> (Float, Float) {
        var mean: Float = 0
        for index in 0..<Self.bandCount { mean += energies[index] }
        let flatness = pow(10, meanLog10) / (mean / Float(Self.bandCount))
        let first = bands[0].lowerBound, end = bands[Self.bandCount - 1].upperBound
        var average: Float = 0
        for bin in first..<end {
            magnitudes[bin] = spectrum[bin].squareRoot()
            average += magnitudes[bin]
        }
        average /= Float(end - first)
        var energy: Float = 1e-12
        for bin in first..<end {
            magnitudes[bin] -= average
            energy += magnitudes[bin] * magnitudes[bin]
        }
        let binHz = 250 / Float(bands[0].count)
        let shortest = max(2, Int((250 / binHz).rounded())), longest = Int((1500 / binHz).rounded())
        var best: Float = 0
        magnitudes.withUnsafeBufferPointer { x in
            var lag = shortest
            while lag <= longest && first + lag < end {
                // Eight bins at a time: this loop is the front end's costliest after the FFT.
                var sums = SIMD8<Float>.zero
                var bin = first
                while bin + 8 <= end - lag {
                    let a = UnsafeRawPointer(x.baseAddress! + bin).loadUnaligned(as: SIMD8<Float>.self)
                    let b = UnsafeRawPointer(x.baseAddress! + bin + lag).loadUnaligned(as: SIMD8<Float>.self)
                    sums += a * b
                    bin += 8
                }
                var sum = sums.sum()
                while bin < end - lag {
                    sum += x[bin] * x[bin + lag]
                    bin += 1
                }
                best = max(best, sum / energy)
                lag += 1
            }
        }
        return (flatness, best)
    }

    /// Slides the analysis window by one hop, DC removed.
    private mutating func slide(_ frame: UnsafeBufferPointer<Int16>) {
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
    }
}

/// Noise power per band: the minimum of the smoothed power over the last
/// ~1.5 s (after Martin, 2001), scaled for the minimum's bias. Speech seldom
/// fills a band that long, so the estimate follows the noise, whatever its
/// colour, and never the speech.
struct NoiseFloor {
    private(set) var power: [Float]
    private var smoothed: [Float]
    private var currentMinimum: [Float]
    private var minima: [[Float]] = []
    private var frames = 0
    private static let subWindowFrames = 25, subWindows = 6
    private static let bias: Float = 2.0

    init(bands: Int) {
        power = [Float](repeating: 1e-11, count: bands)
        smoothed = power
        currentMinimum = [Float](repeating: .greatestFiniteMagnitude, count: bands)
    }

    mutating func track(_ energies: [Float]) {
        frames += 1
        for index in energies.indices {
            smoothed[index] = frames == 1 ? energies[index] : 0.8 * smoothed[index] + 0.2 * energies[index]
            currentMinimum[index] = min(currentMinimum[index], smoothed[index])
        }
        if frames % Self.subWindowFrames == 0 {
            minima.append(currentMinimum)
            if minima.count > Self.subWindows { minima.removeFirst() }
            currentMinimum = [Float](repeating: .greatestFiniteMagnitude, count: energies.count)
        }
        for index in power.indices {
            var lowest = currentMinimum[index]
            for window in minima { lowest = min(lowest, window[index]) }
            power[index] = max(lowest * Self.bias, 1e-11)
        }
    }
}
