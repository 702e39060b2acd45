import Foundation
import Testing
@testable import VADSegmenter

/// The front end's voicing measure on signals whose answer is known: a
/// voice-like harmonic series is periodic at any rate, clipped or in noise;
/// noise and silence are not.
@Suite struct PeriodicityTests {
    /// A vowel-like sound: the first 12 harmonics of `pitch`, falling 6 dB an octave.
    func voice(pitch: Double, rate: Int, amplitude: Double = 8000) -> (Int) -> Double {
        { n in
            let t = Double(n) / Double(rate)
            return amplitude * (1...12).reduce(0) { sum, k in sum + sin(2 * Double.pi * pitch * Double(k) * t) / Double(k) }
        }
    }

    /// The periodicity after each of `frames` 10 ms frames of `sample`.
    func periodicity(rate: Int, frames: Int, _ sample: (Int) -> Double) -> [Float] {
        let count = Periodicity.floatCount(rate: rate)
        let memory = UnsafeMutablePointer<Float>.allocate(capacity: count)
        memory.initialize(repeating: 0, count: count)
        defer { memory.deallocate() }
        var periodicity = Periodicity(rate: rate, memory: memory)
        let hop = rate / 100
        return (0..<frames).map { frame in
            let samples = (0..<hop).map { Int16(clamping: Int(sample(frame * hop + $0).rounded())) }
            return samples.withUnsafeBufferPointer { periodicity.update(with: $0, memory: memory) }
        }
    }

    func mean(_ values: ArraySlice<Float>) -> Float { values.reduce(0, +) / Float(values.count) }

    @Test(arguments: [8_000, 16_000, 44_100, 48_000])
    func aVoiceIsPeriodicAtAnyRateAndPitch(rate: Int) {
        for pitch in [65.0, 85, 120, 210, 380] {
            let values = periodicity(rate: rate, frames: 20, voice(pitch: pitch, rate: rate))
            #expect(values.suffix(10).allSatisfy { $0 > 0.9 }, "\(pitch) Hz at \(rate) Hz: \(values.suffix(10))")
        }
    }

    @Test(arguments: [8_000, 16_000, 48_000])
    func noiseIsNot(rate: Int) {
        var generator = SystemRandomNumberGenerator()
        let white = periodicity(rate: rate, frames: 100) { _ in Double.random(in: -8000...8000, using: &generator) }
        #expect(mean(white.suffix(90)) < 0.5, "white noise at \(rate) Hz: \(mean(white.suffix(90)))")
    }

    @Test func silenceIsZero() {
        let values = periodicity(rate: 16_000, frames: 10) { _ in 0 }
        #expect(values.allSatisfy { $0 == 0 })
    }

    /// pocketsphinx's "five five" is clipped at full scale: its spectrum goes
    /// flat like a noise burst's, its period stays.
    @Test func clippingKeepsThePeriod() {
        let clipped = periodicity(rate: 16_000, frames: 20, voice(pitch: 120, rate: 16_000, amplitude: 80_000))
        #expect(clipped.suffix(10).allSatisfy { $0 > 0.85 }, "\(clipped.suffix(10))")
        var generator = SystemRandomNumberGenerator()
        let burst = periodicity(rate: 16_000, frames: 50) { _ in Double.random(in: -80_000...80_000, using: &generator) }
        #expect(mean(burst.suffix(40)) < 0.5, "a clipped noise burst: \(mean(burst.suffix(40)))")
    }

    /// In SpeechFeatures' row: a voice in white noise at 10 dB SNR stands
    /// well clear of the noise alone.
    @Test func aVoiceInWhiteNoiseStaysPeriodic() {
        var features = SpeechFeatures(rate: 16_000)
        var generator = SystemRandomNumberGenerator()
        let speech = voice(pitch: 140, rate: 16_000, amplitude: 3000)
        // The voice's power is about 1.3 × 3000²/2; noise uniform in ±a has a²/3.
        let noiseAmplitude = (3 * 1.3 * 3000 * 3000 / 2 / 10).squareRoot()
        func row(_ frame: Int, voiced: Bool) -> Float {
            let samples = (0..<160).map { n in
                Int16(clamping: Int((Double.random(in: -noiseAmplitude...noiseAmplitude, using: &generator)
                                     + (voiced ? speech(frame * 160 + n) : 0)).rounded()))
            }
            samples.withUnsafeBufferPointer { features.update(with: $0) }
            return features.values[SpeechFeatures.periodicityValue]
        }
        let noise = (0..<100).map { row($0, voiced: false) }
        let voiced = (100..<130).map { row($0, voiced: true) }
        #expect(mean(voiced.suffix(20)) > mean(noise.suffix(50)) + 0.3,
                "voiced \(mean(voiced.suffix(20))), noise \(mean(noise.suffix(50)))")
    }
}
