import Foundation

/// The detector's front end: per 10 ms frame, what a small classifier needs
/// to tell speech from stationary noise and from non-speech sounds.
///
/// - 15 bands of 250 Hz (150 Hz to 3.9 kHz, so 8 kHz audio has them all):
///   each band's level over its noise floor (minimum statistics: stationary
///   noise of any colour settles there), and the spectral shape (each band
///   against the frame's mean level).
/// - The same two for 3 wide bands over 4 kHz (4-5, 5-6.25, 6.25-7.75 kHz),
///   last in the row: where fricatives (s, sh, f) have most of their energy,
///   so a word's "s" is not a dip in the speech. Audio sampled at 8 kHz (or
///   resampled from it) has nothing there: those bands then sit at their
///   floor, as in the narrowband half of the training speech. The summaries
///   below stay over the 15 bands, so they mean the same at any rate.
/// - Per-frame summaries (mean and peak band SNR, tonality, spectral flux,
///   level over the floor, spread of the band SNRs, spectral flatness,
///   harmonic spacing, and periodicity at a voice's pitch: `Periodicity`)
///   for the last 310 ms, every 20 ms: speech rises and falls at the
///   syllable rate; tones, hums and noise do not; screams and
///   whistles space their harmonics far wider than a voice does.
///
/// `benchmarks/vad/train` computes these same features (through
/// `parley-bench vad-features`) to train the classifier, so any change here
/// means training again.
///
/// All per-stream memory is one `FrameMemory` allocation walked with raw
/// pointers in plain loops: library targets are built at the consumer's
/// optimisation level, and at -Onone array and SIMD accessors are calls
/// while pointer subscripts are inlined. The struct copies its memory on
/// write, so it keeps value semantics.
public struct SpeechFeatures {
    public static let bandCount = 15
    /// Edges of the bands over 4 kHz, in Hz.
    static let highBandEdges: [Float] = [4000, 5000, 6250, 7750]
    static let highBandCount = highBandEdges.count - 1
    static let allBands = bandCount + highBandCount
    static let summaryCount = 9
    /// The periodicity's place among the summaries (the last).
    static let periodicitySummary = 8
    static let historyTaps = 16, historyStride = 2
    public static let count = 2 * allBands + summaryCount * historyTaps
    /// Where the newest periodicity (`Periodicity`) is in the row: the ninth summary of the first tap.
    static let periodicityValue = 2 * bandCount + periodicitySummary
    /// Where the bands over 4 kHz start in the row: their levels over the floor, then their shapes.
    static let highBandValues = count - 2 * highBandCount
    private static let ringFrames = historyTaps * historyStride

    private let fft: RealFFT
    private var scratch: RealFFT.Scratch
    private let layout: Layout
    private var memory: FrameMemory
    /// First and end bin of each band.
    private let bandBins: [Int]
    private var noise: NoiseFloor
    private var periodicity: Periodicity
    /// The ring slot of the newest summaries.
    private var summaryHead = 0

    /// Where each array lives in `memory`.
    private struct Layout {
        var history = 0, window = 0, spectrum = 0, energies = 0, magnitudes = 0
        var logLevels = 0, previousLogLevels = 0, summaries = 0, values = 0, noise = 0, periodicity = 0
        var total = 0

        init(size: Int, magnitudes magnitudeCount: Int, rate: Int) {
            func take(_ count: Int) -> Int { defer { total += count }; return total }
            history = take(size)
            window = take(size)
            spectrum = take(size / 2 + 1)
            energies = take(SpeechFeatures.allBands)
            magnitudes = take(magnitudeCount)
            logLevels = take(SpeechFeatures.bandCount)
            previousLogLevels = take(SpeechFeatures.bandCount)
            summaries = take(SpeechFeatures.ringFrames * SpeechFeatures.summaryCount)
            values = take(SpeechFeatures.count)
            noise = take(NoiseFloor.floatCount(bands: SpeechFeatures.allBands))
            periodicity = take(Periodicity.floatCount(rate: rate))
        }
    }

    public init(rate: Int) {
        let hop = rate / 100
        var size = 1
        while size < hop * 8 / 5 { size *= 2 }
        fft = RealFFT(size: size)
        scratch = RealFFT.Scratch(size: size)
        let binHz = Float(rate) / Float(size)
        var bandBins: [Int] = []
        for index in 0..<Self.bandCount {
            let low = 150 + Float(index) * 250
            let from = Int((low / binHz).rounded())
            bandBins += [from, max(from + 1, Int(((low + 250) / binHz).rounded()))]
        }
        // Bands at or over the Nyquist frequency (audio at 8 kHz) get no bins: they stay at the floor.
        let lastBin = size / 2
        for index in 0..<Self.highBandCount {
            let from = min(Int((Self.highBandEdges[index] / binHz).rounded()), lastBin)
            bandBins += [from, max(from, min(Int((Self.highBandEdges[index + 1] / binHz).rounded()), lastBin))]
        }
        self.bandBins = bandBins
        layout = Layout(size: size, magnitudes: bandBins[2 * Self.bandCount - 1], rate: rate)
        memory = FrameMemory(count: layout.total)
        for index in 0..<size { memory.base[layout.window + index] = 0.5 - 0.5 * cos(2 * Float.pi * Float(index) / Float(size)) }
        noise = NoiseFloor(bands: Self.allBands, memory: memory.base + layout.noise)
        periodicity = Periodicity(rate: rate, memory: memory.base + layout.periodicity)
    }

    /// The last frame's features (`count` values).
    public var values: [Float] { withValues { Array($0) } }

    /// The last frame's features, without a copy.
    public func withValues<Result>(_ body: (UnsafeBufferPointer<Float>) -> Result) -> Result {
        body(UnsafeBufferPointer(start: memory.base + layout.values, count: Self.count))
    }

    /// Computes the features of one frame (normally 10 ms).
    public mutating func update(with frame: UnsafeBufferPointer<Int16>) {
        if !isKnownUniquelyReferenced(&memory) { memory = memory.copy() }
        let base = memory.base, layout = self.layout, count = Self.bandCount
        slide(frame, into: base + layout.history)
        let spectrum = base + layout.spectrum, energies = base + layout.energies
        fft.powerSpectrum(of: base + layout.history, window: base + layout.window, into: spectrum, scratch: &scratch)
        var strongestBin: Float = 0, total: Float = 1e-12
        bandBins.withUnsafeBufferPointer { bins in
            let bins = bins.baseAddress!
            for index in 0..<count {
                var sum: Float = 0
                var bin = bins[2 * index]
                let end = min(bins[2 * index + 1], fft.size / 2 + 1)
                while bin < end {
                    sum += spectrum[bin]
                    strongestBin = max(strongestBin, spectrum[bin])
                    bin += 1
                }
                energies[index] = sum / Float(bins[2 * index + 1] - bins[2 * index]) + 1e-11
                total += sum
            }
            for index in count..<Self.allBands {
                var sum: Float = 0
                for bin in bins[2 * index]..<bins[2 * index + 1] { sum += spectrum[bin] }
                energies[index] = sum / Float(max(bins[2 * index + 1] - bins[2 * index], 1)) + 1e-11
            }
        }
        noise.track(energies, memory: base + layout.noise)
        let floor = base + layout.noise  // the noise floor's power comes first in its memory

        let logLevels = base + layout.logLevels, previous = base + layout.previousLogLevels
        let values = base + layout.values
        let summary = base + layout.summaries + summaryHead * Self.summaryCount
        var meanLog: Float = 0, meanSNR: Float = 0, peakSNR: Float = -10, flux: Float = 0, level: Float = 0, floorSum: Float = 0
        for index in 0..<count {
            logLevels[index] = log10(energies[index])
            meanLog += logLevels[index]
            let snr = min(max(10 * log10(energies[index] / floor[index]), -10), 40)
            values[index] = snr / 10
            meanSNR += snr
            peakSNR = max(peakSNR, snr)
            flux += abs(logLevels[index] - previous[index])
            level += energies[index]
            floorSum += floor[index]
            previous[index] = logLevels[index]
        }
        meanLog /= Float(count)
        for index in 0..<count {
            values[count + index] = min(max(logLevels[index] - meanLog, -4), 4) / 2
        }
        summary[0] = meanSNR / Float(count) / 10
        summary[1] = peakSNR / 10
        summary[2] = strongestBin / total
        summary[3] = min(flux / Float(count), 3)
        summary[4] = min(max(10 * log10(level / floorSum), -10), 40) / 10
        var spread: Float = 0
        for index in 0..<count {
            let deviation = values[index] - summary[0]
            spread += deviation * deviation
        }
        summary[5] = (spread / Float(count)).squareRoot()
        summary[6] = flatness(energies, meanLog10: meanLog)
        summary[7] = harmonicity(spectrum, magnitudes: base + layout.magnitudes)
        summary[Self.periodicitySummary] = periodicity.update(with: frame, memory: base + layout.periodicity)

        // The taps, newest first, every `historyStride` frames back.
        var out = values + 2 * count
        for tap in 0..<Self.historyTaps {
            var slot = summaryHead - tap * Self.historyStride
            if slot < 0 { slot += Self.ringFrames }
            let from = base + layout.summaries + slot * Self.summaryCount
            for feature in 0..<Self.summaryCount { out[feature] = from[feature] }
            out += Self.summaryCount
        }
        summaryHead = (summaryHead + 1) % Self.ringFrames

        // The bands over 4 kHz, after the taps: level over their floor, and against the 15 bands' mean level.
        for index in 0..<Self.highBandCount {
            let band = count + index
            let snr = min(max(10 * log10(energies[band] / floor[band]), -10), 40)
            out[index] = snr / 10
            out[Self.highBandCount + index] = min(max(log10(energies[band]) - meanLog, -4), 4) / 2
        }
    }

    /// Spectral flatness: geometric over arithmetic mean of the band levels
    /// (1 for noise, low for speech and tones).
    private func flatness(_ energies: UnsafeMutablePointer<Float>, meanLog10: Float) -> Float {
        var mean: Float = 0
        for index in 0..<Self.bandCount { mean += energies[index] }
        return pow(10, meanLog10) / (mean / Float(Self.bandCount))
    }

    /// How strongly the magnitude spectrum repeats at a spacing of 250 to
    /// 1500 Hz: harmonics of a scream, whistle or alarm; a voice's lie closer.
    private func harmonicity(_ spectrum: UnsafeMutablePointer<Float>, magnitudes: UnsafeMutablePointer<Float>) -> Float {
        let first = bandBins[0], end = bandBins[2 * Self.bandCount - 1]
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
        let binsPerBand = bandBins[1] - bandBins[0]
        let binHz = 250 / Float(binsPerBand)
        let shortest = max(2, Int((250 / binHz).rounded())), longest = Int((1500 / binHz).rounded())
        var best: Float = 0
        var lag = shortest
        while lag <= longest && first + lag < end {
            let sum = dotProduct(magnitudes + first, magnitudes + first + lag, count: end - lag - first)
            best = max(best, sum / energy)
            lag += 1
        }
        return best
    }

    /// Slides the analysis window by one hop, DC removed.
    private func slide(_ frame: UnsafeBufferPointer<Int16>, into history: UnsafeMutablePointer<Float>) {
        let size = fft.size
        let count = min(frame.count, size)
        guard count > 0, let samples = frame.baseAddress else { return }
        // Whole numbers summed and offsets taken once, so both loops run
        // without overflow checks and vectorise; the sum is exact either way.
        let source = samples + (frame.count - count)
        var total = 0
        for index in 0..<count { total &+= Int(source[index]) }
        let mean = Float(total) / Float(count)
        let keep = size - count
        if keep > 0 { history.update(from: history + count, count: keep) }
        let destination = history + keep
        for index in 0..<count { destination[index] = (Float(source[index]) - mean) * (1 / 32768) }
    }
}

/// One zeroed block of floats, owned by one `SpeechFeatures` (copied when a
/// copy of the struct writes).
final class FrameMemory {
    let base: UnsafeMutablePointer<Float>
    let count: Int

    init(count: Int) {
        self.count = count
        base = .allocate(capacity: count)
        base.initialize(repeating: 0, count: count)
    }

    func copy() -> FrameMemory {
        let copy = FrameMemory(count: count)
        copy.base.update(from: base, count: count)
        return copy
    }

    deinit { base.deallocate() }
}

/// Noise power per band: the minimum of the smoothed power over the last
/// ~1.5 s (after Martin, 2001), scaled for the minimum's bias. Speech seldom
/// fills a band that long, so the estimate follows the noise, whatever its
/// colour, and never the speech. Its floats live in the caller's memory:
/// power, smoothed power, the current sub-window's minimum, the lowest of the
/// stored minima (taken again only when a sub-window ends, not every frame),
/// then the ring of the last `subWindows` minima.
///
/// Digital silence (every band below `digitalSilence`, far under one LSB of
/// 16-bit noise) teaches it nothing: a muted microphone, a noise gate or
/// files joined with zeros would otherwise pull the floor to nothing, and for
/// the next 1.5 s every sound, the recording's own hiss included, would sit
/// 40 dB over it, where speech and noise look alike. Over such a gap the
/// floor keeps what it had learnt before.
///
/// Nor does the floor fall more than `range` under the loudest band of the
/// last second or so: a studio recording fades to almost nothing after a
/// word (alsa-utils' "Front" falls to -100 dBFS before its digital zeros),
/// and over a floor that low the "s" that starts the next word sits 40 dB
/// over it in every band, low ones included, as a noise burst does. The
/// detector took it for one and let the vowel after it go unheard for
/// 150 ms. 50 dB was chosen on the training streams (40 dB cost F1 in the
/// quiet conditions there); a quiet recording keeps its weak frames, as the
/// limit moves with its own level.
struct NoiseFloor {
    private let bands: Int
    private var frames = 0
    private var storedMinima = 0
    private var newestMinimum = -1
    private static let subWindowFrames = 25, subWindows = 6
    private static let bias: Float = 2.0
    /// The loudest band power of recent frames, falling 20 dB over 1.5 s
    /// (`loudestFall` a frame) unless a louder one comes.
    private var loudest: Float = 0
    private static let loudestFall: Float = 0.9698
    /// How far under `loudest` the floor may go: 50 dB.
    private static let range: Float = 1e-5
    /// A band's power (of samples scaled to ±1) under which a frame is
    /// digital silence: one LSB of 16-bit noise gives about 1e-7.
    static let digitalSilence: Float = 1e-9

    static func floatCount(bands: Int) -> Int { (4 + subWindows) * bands }

    init(bands: Int, memory: UnsafeMutablePointer<Float>) {
        self.bands = bands
        for index in 0..<bands {
            memory[index] = 1e-11
            memory[bands + index] = 1e-11
            memory[2 * bands + index] = .greatestFiniteMagnitude
            memory[3 * bands + index] = .greatestFiniteMagnitude
        }
    }

    mutating func track(_ energies: UnsafeMutablePointer<Float>, memory: UnsafeMutablePointer<Float>) {
        let power = memory, smoothed = memory + bands, current = memory + 2 * bands
        let storedLowest = memory + 3 * bands, minima = memory + 4 * bands
        var strongest: Float = 0
        for index in 0..<bands { strongest = max(strongest, energies[index]) }
        // Digital silence: every band under the threshold.
        if strongest < Self.digitalSilence { return }
        frames += 1
        loudest = max(loudest * Self.loudestFall, strongest)
        for index in 0..<bands {
            smoothed[index] = frames == 1 ? energies[index] : 0.8 * smoothed[index] + 0.2 * energies[index]
            current[index] = min(current[index], smoothed[index])
        }
        if frames % Self.subWindowFrames == 0 {
            newestMinimum = (newestMinimum + 1) % Self.subWindows
            (minima + newestMinimum * bands).update(from: current, count: bands)
            storedMinima = min(storedMinima + 1, Self.subWindows)
            for index in 0..<bands {
                current[index] = .greatestFiniteMagnitude
                var lowest = Float.greatestFiniteMagnitude
                for window in 0..<storedMinima { lowest = min(lowest, minima[window * bands + index]) }
                storedLowest[index] = lowest
            }
        }
        for index in 0..<bands {
            power[index] = max(min(current[index], storedLowest[index]) * Self.bias, 1e-11, loudest * Self.range)
        }
    }
}
