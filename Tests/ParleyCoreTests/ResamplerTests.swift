import Foundation
import ParleyCore
import Testing

@Suite struct ResamplerTests {
    func sine(_ count: Int, rate: Double, frequency: Double = 440) -> [Int16] {
        (0..<count).map { Int16(10_000 * sin(2 * Double.pi * frequency * Double($0) / rate)) }
    }

    func rms(_ samples: [Int16]) -> Double {
        (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(1, samples.count))).squareRoot()
    }

    /// `input` through a streaming resampler in pieces of the given sizes, then `finish`.
    func streamed(_ input: [Int16], from source: Int, to target: Int, sizes: [Int]) -> [Int16] {
        var resampler = Resampler(from: source, to: target)
        var output: [Int16] = []
        var start = 0, index = 0
        while start < input.count {
            let end = min(input.count, start + sizes[index % sizes.count])
            output += input[start..<end].withUnsafeBufferPointer { resampler.process($0) }
            start = end
            index += 1
        }
        return output + resampler.finish()
    }

    @Test(arguments: [(44_100, 16_000), (48_000, 16_000), (8_000, 16_000), (22_050, 24_000), (24_000, 16_000), (16_000, 16_000)])
    func chunksGiveTheSameSamplesAsTheWhole(rates: (Int, Int)) {
        let (source, target) = rates
        var generator = SystemRandomNumberGenerator()
        let input = (0..<(source + 123)).map { _ in Int16.random(in: -20_000...20_000, using: &generator) }
        let whole = Resampler.resample(input, from: source, to: target)
        #expect(whole.count == Int(Double(input.count) * Double(target) / Double(source)))
        for sizes in [[1], [7, 333, 1024, 5000], [input.count]] {
            let pieces = streamed(input, from: source, to: target, sizes: sizes)
            // The stream may end with the outputs up to the input's very end, which the whole leaves off.
            #expect(Array(pieces.prefix(whole.count)) == whole, "\(source)→\(target) in pieces of \(sizes)")
            #expect(pieces.count - whole.count <= 1 + target / source, "\(pieces.count) vs \(whole.count)")
        }
    }

    @Test func aToneKeepsItsPitchAndLevel() {
        let output = Resampler.resample(sine(22_050, rate: 22_050), from: 22_050, to: 24_000)
        #expect(output.count == 24_000, "one second stays one second")
        let expected = sine(output.count, rate: 24_000)
        let worst = zip(output, expected).map { abs(Int($0) - Int($1)) }.max() ?? 0
        #expect(worst < 200, "linear interpolation of a 440 Hz tone: \(worst)")
    }

    @Test func goingDownWeakensWhatWouldFoldBack() {
        // From 48 kHz to 16 kHz a 15 kHz tone would fold back to 1 kHz, into speech's band: the moving
        // average (three samples wide) takes most of it out, while a 300 Hz tone passes. (It is a weak
        // filter between the two: 7 kHz keeps three quarters.)
        let high = Resampler.resample(sine(48_000, rate: 48_000, frequency: 15_000), from: 48_000, to: 16_000)
        let low = Resampler.resample(sine(48_000, rate: 48_000, frequency: 300), from: 48_000, to: 16_000)
        #expect(rms(high) < 0.15 * rms(sine(48_000, rate: 48_000, frequency: 15_000)), "\(rms(high))")
        #expect(rms(low) > 0.95 * rms(sine(16_000, rate: 16_000, frequency: 300)), "\(rms(low))")
    }
}
