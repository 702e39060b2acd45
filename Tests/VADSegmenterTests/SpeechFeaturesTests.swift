import Foundation
import Testing
@testable import VADSegmenter

/// The detector's front end on synthetic signals whose answers are known.
@Suite struct SpeechFeaturesTests {
    func frames(_ count: Int, rate: Int = 16_000, _ sample: (Int) -> Double) -> [[Int16]] {
        let hop = rate / 100
        return (0..<count).map { frame in
            (0..<hop).map { Int16(clamping: Int(sample(frame * hop + $0).rounded())) }
        }
    }

    func run(_ features: inout SpeechFeatures, _ frames: [[Int16]]) -> [[Float]] {
        frames.map { frame in
            frame.withUnsafeBufferPointer { features.update(with: $0) }
            return features.values
        }
    }

    /// 3 s of white noise at 16 kHz (the floor settles on it), then 200 ms
    /// of a tone at `hertz`, ten times the noise, over it: the features of
    /// each part.
    func noiseThenTone(hertz: Double) -> (noise: [[Float]], tone: [[Float]]) {
        var features = SpeechFeatures(rate: 16_000)
        var generator = SystemRandomNumberGenerator()
        let noise = run(&features, frames(300) { _ in Double.random(in: -1000...1000, using: &generator) })
        let tone = run(&features, frames(20) { n in
            Double.random(in: -1000...1000, using: &generator) + 10_000 * sin(2 * Double.pi * hertz * Double(n) / 16_000)
        })
        return (noise, tone)
    }

    /// The mean of one feature over the last `count` rows.
    func mean(of index: Int, inLast count: Int, of rows: [[Float]]) -> Float {
        rows.suffix(count).map { $0[index] }.reduce(0, +) / Float(count)
    }

    @Test(arguments: [8_000, 16_000, 48_000])
    func everyFeatureIsFiniteForSilenceNoiseAndFullScale(rate: Int) {
        var features = SpeechFeatures(rate: rate)
        var generator = SystemRandomNumberGenerator()
        let signals: [[[Int16]]] = [
            frames(50, rate: rate) { _ in 0 },
            frames(50, rate: rate) { _ in Double.random(in: -3000...3000, using: &generator) },
            frames(50, rate: rate) { $0 % 2 == 0 ? 32767 : -32768 },
        ]
        for signal in signals {
            for values in run(&features, signal) {
                #expect(values.count == SpeechFeatures.count)
                let finite = values.allSatisfy { $0.isFinite }
                #expect(finite)
            }
        }
    }

    @Test func aToneOverStationaryNoiseRaisesItsOwnBandOverTheFloor() {
        // 1 kHz is in band 3 (900-1150 Hz).
        let (noise, tone) = noiseThenTone(hertz: 1000)
        let band = 3
        let noiseLevel = mean(of: band, inLast: 50, of: noise)
        let toneLevel = mean(of: band, inLast: 10, of: tone)
        let otherBand = mean(of: 12, inLast: 10, of: tone)
        #expect(toneLevel > noiseLevel + 1, "band \(band): \(toneLevel) with the tone, \(noiseLevel) in noise")
        #expect(toneLevel > otherBand + 1, "a band far from 1 kHz stays low: \(otherBand)")
    }

    /// A fricative's band: a 5.5 kHz tone over white noise shows in the
    /// 5-6.25 kHz band and not in the speech bands under 4 kHz.
    @Test func aSoundOver4kHzRaisesItsHighBandOnly() {
        let (noise, tone) = noiseThenTone(hertz: 5500)
        let band = SpeechFeatures.highBandValues + 1
        let inNoise = mean(of: band, inLast: 50, of: noise), withTone = mean(of: band, inLast: 10, of: tone)
        #expect(withTone > inNoise + 1, "5-6.25 kHz: \(withTone) with the tone, \(inNoise) in noise")
        let speechBands = (0..<SpeechFeatures.bandCount).map { mean(of: $0, inLast: 10, of: tone) }
        #expect(speechBands.allSatisfy { $0 < inNoise + 0.5 }, "the bands under 4 kHz stay at the floor: \(speechBands)")
        let otherHigh = mean(of: SpeechFeatures.highBandValues, inLast: 10, of: tone)
        #expect(otherHigh < withTone - 1, "4-5 kHz stays lower: \(otherHigh)")
    }

    /// At 8 kHz there is nothing over 4 kHz: the high bands never rise over
    /// their floor, for silence, noise or a full-scale square wave, as for
    /// audio resampled from a phone line.
    @Test func audioAt8kHzLeavesTheHighBandsAtTheirFloor() {
        var features = SpeechFeatures(rate: 8_000)
        var generator = SystemRandomNumberGenerator()
        let rows = run(&features, frames(50, rate: 8_000) { _ in 0 })
            + run(&features, frames(100, rate: 8_000) { _ in Double.random(in: -3000...3000, using: &generator) })
            + run(&features, frames(50, rate: 8_000) { $0 % 2 == 0 ? 32767 : -32768 })
        let high = SpeechFeatures.highBandValues..<(SpeechFeatures.highBandValues + SpeechFeatures.highBandCount)
        #expect(rows.allSatisfy { $0[high].allSatisfy { $0 <= 0 } }, "high bands at 8 kHz: \(Set(rows.map { Array($0[high]) }))")
    }

    /// A recording's own hiss after a stretch of zeros (files joined with
    /// digital silence, a muted microphone) stays at the floor it had before,
    /// instead of 40 dB over a floor of nothing; one LSB of noise is not
    /// digital silence.
    @Test func digitalSilenceTeachesTheFloorNothing() {
        var features = SpeechFeatures(rate: 16_000)
        var generator = SystemRandomNumberGenerator()
        let hiss = { (_: Int) in Double.random(in: -100...100, using: &generator) }
        _ = run(&features, frames(200, hiss))
        _ = run(&features, frames(100) { _ in 0 })
        let after = run(&features, frames(30, hiss))
        let meanSNR = after.map { $0[0..<SpeechFeatures.bandCount].reduce(0, +) / Float(SpeechFeatures.bandCount) }
        // Values are dB / 10; the hiss over its own floor is a few dB at most.
        #expect(meanSNR.allSatisfy { $0 < 1 }, "band SNR / 10 after the gap: \(meanSNR)")

        var fresh = SpeechFeatures(rate: 16_000)
        _ = run(&fresh, frames(100) { _ in 0 })
        let lsb = run(&fresh, frames(300) { _ in Double(Int.random(in: -1...1, using: &generator)) })
        let lsbSNR = lsb.suffix(50).map { $0[0..<SpeechFeatures.bandCount].reduce(0, +) / Float(SpeechFeatures.bandCount) }
        #expect(lsbSNR.allSatisfy { $0 < 1 }, "one LSB of noise becomes the floor: \(lsbSNR)")
    }
}
