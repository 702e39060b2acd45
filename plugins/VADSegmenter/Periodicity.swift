import Foundation

/// How periodic the last 16 ms are at a voice's pitch (60-400 Hz): the
/// highest normalised autocorrelation over those periods, 0 for noise, near
/// 1 for a vowel. Voicing survives what the band levels lose: a vowel in
/// white noise at 10 dB, or clipped at full scale (clipping flattens the
/// spectrum as a noise burst's is flat, but keeps the period).
///
/// The audio is low-passed to 1 kHz and decimated to about 4 kHz (a
/// windowed-sinc FIR evaluated only at the kept samples; any input rate, the
/// factor rounded), high-passed to shed DC and rumble, and correlated over
/// 16 ms against itself 2.5-16.7 ms earlier: every third lag, then the two
/// next to the best (the correlation's peaks at 1 kHz are wider than three
/// lags). About 2 k multiply-adds a frame at 16 kHz.
///
/// Down to 60 Hz, not 80: a low male voice reads at 70-80 Hz and creaks
/// lower at a phrase's weak words (LibriVox 0880's "not an" sits at 70-78
/// Hz). Under the range it read as aperiodic, and a network taught that
/// loud aperiodic sounds are animals and machines let the words go.
///
/// Its floats live in the caller's memory (see `floatCount`), walked with
/// raw pointers as `SpeechFeatures` does: the input's tail for the filter,
/// the filter's taps, the decimated signal, then its running energy.
struct Periodicity {
    /// Sizes that follow from the input rate alone.
    private struct Shape {
        /// Input samples per kept sample.
        let factor: Int
        let taps: Int
        /// Decimated samples correlated: 16 ms.
        let window: Int
        let shortestLag: Int, longestLag: Int
        /// Decimated samples kept: the window and the longest lag before it.
        let kept: Int
        let hop: Int

        init(rate: Int) {
            hop = rate / 100
            factor = max(1, Int((Float(rate) / 4000).rounded()))
            let decimatedRate = Float(rate) / Float(factor)
            taps = 4 * factor + 1
            window = Int((0.016 * decimatedRate).rounded())
            shortestLag = Int((decimatedRate / 400).rounded(.down))
            longestLag = Int((decimatedRate / 60).rounded(.up))
            kept = window + longestLag
        }

        /// Where each array starts in the caller's memory, and their total.
        var coefficients: Int { taps - 1 + hop }
        var decimated: Int { coefficients + taps }
        var floatCount: Int { decimated + kept + kept + 1 }
    }

    private let shape: Shape
    /// Input samples since the last kept one, modulo `factor`.
    private var phase = 0
    private var lastInput: Float = 0, lastOutput: Float = 0

    static let cutoffHz: Float = 1000

    init(rate: Int, memory: UnsafeMutablePointer<Float>) {
        shape = Shape(rate: rate)
        let taps = shape.taps
        // Hann-windowed sinc, unit gain at DC.
        let coefficients = memory + shape.coefficients
        var sum: Float = 0
        for index in 0..<taps {
            let offset = Float(index - taps / 2)
            let x = 2 * Self.cutoffHz / Float(rate) * offset
            let sinc: Float = offset == 0 ? 1 : sin(Float.pi * x) / (Float.pi * x)
            let hann = 0.5 - 0.5 * cos(2 * Float.pi * Float(index + 1) / Float(taps + 1))
            coefficients[index] = sinc * hann
            sum += coefficients[index]
        }
        for index in 0..<taps { coefficients[index] /= sum }
    }

    /// Floats of memory a stream at `rate` needs.
    static func floatCount(rate: Int) -> Int { Shape(rate: rate).floatCount }

    /// Takes one frame of samples and returns the periodicity of the last 16 ms.
    mutating func update(with frame: UnsafeBufferPointer<Int16>, memory: UnsafeMutablePointer<Float>) -> Float {
        let (factor, taps, kept) = (shape.factor, shape.taps, shape.kept)
        guard let samples = frame.baseAddress, frame.count <= shape.hop else { return 0 }
        let input = memory, coefficients = memory + shape.coefficients, decimated = memory + shape.decimated
        let tail = taps - 1
        // Its own copy of the samples, not the FFT window's: that one has each
        // frame's mean taken off, a step every 10 ms that would read as a 100 Hz period.
        let newest = input + tail
        for index in 0..<frame.count { newest[index] = Float(samples[index]) * (1 / 32768) }
        // The kept samples of this frame, filtered, appended to the decimated signal.
        let first = (factor - phase) % factor
        let count = first < frame.count ? (frame.count - first + factor - 1) / factor : 0
        decimated.update(from: decimated + count, count: kept - count)
        var position = first
        for slot in (kept - count)..<kept {
            let sum = dotProduct(input + position + 1, coefficients, count: taps)  // the `taps` samples ending at `position`
            // One-pole high-pass (about 60 Hz at 4 kHz): DC and rumble are periodic too.
            let output = sum - lastInput + 0.91 * lastOutput
            lastInput = sum
            lastOutput = output
            decimated[slot] = output
            position += factor
        }
        phase = (phase + frame.count) % factor
        input.update(from: input + frame.count, count: tail)
        return correlation(decimated)
    }

    /// The highest normalised correlation of the last `window` samples with
    /// the same length `shortestLag...longestLag` samples earlier.
    private func correlation(_ signal: UnsafeMutablePointer<Float>) -> Float {
        let (window, kept, shortestLag, longestLag) = (shape.window, shape.kept, shape.shortestLag, shape.longestLag)
        // energies[i]: the energy of the samples before i.
        let energies = signal + kept
        energies[0] = 0
        for index in 0..<kept { energies[index + 1] = energies[index] + signal[index] * signal[index] }
        let recent = signal + (kept - window)
        let recentEnergy = energies[kept] - energies[kept - window]
        guard recentEnergy > 1e-9 else { return 0 }
        func score(_ lag: Int) -> Float {
            let earlier = recent - lag
            let energy = energies[kept - lag] - energies[kept - window - lag]
            return dotProduct(recent, earlier, count: window) / (recentEnergy * energy + 1e-18).squareRoot()
        }
        var best: Float = 0, bestLag = shortestLag
        var lag = shortestLag
        while lag <= longestLag {
            let value = score(lag)
            if value > best { best = value; bestLag = lag }
            lag += 3
        }
        // Two calls, not a loop over an array literal: no allocation per frame in debug builds.
        if bestLag > shortestLag { best = max(best, score(bestLag - 1)) }
        if bestLag < longestLag { best = max(best, score(bestLag + 1)) }
        return best
    }
}
