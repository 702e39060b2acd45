import Foundation
import ParleyCore
import Testing

@Suite struct StreamingResamplerTests {
    func sine(_ count: Int, rate: Double) -> [Int16] {
        (0..<count).map { Int16(10_000 * sin(2 * Double.pi * 440 * Double($0) / rate)) }
    }

    @Test func chunksGiveTheSameOutputAsOneBlock() {
        let input = sine(22_050, rate: 22_050)
        var whole = StreamingResampler(from: 22_050, to: 24_000)
        let once = input.withUnsafeBufferPointer { whole.process($0) }
        var chunked = StreamingResampler(from: 22_050, to: 24_000)
        var pieces: [Int16] = []
        var start = 0
        for size in [1, 7, 333, 1024, 5000].cycled(until: input.count) {
            let end = min(input.count, start + size)
            pieces += input[start..<end].withUnsafeBufferPointer { chunked.process($0) }
            start = end
            if start == input.count { break }
        }
        // The same samples, up to rounding of the carried position.
        #expect(abs(pieces.count - once.count) <= 1, "\(pieces.count) vs \(once.count)")
        let worst = zip(pieces, once).map { abs(Int($0) - Int($1)) }.max() ?? 0
        #expect(worst <= 2, "largest difference \(worst)")
        #expect(abs(once.count - 24_000) <= 2, "one second stays one second: \(once.count)")
    }

    @Test func aToneKeepsItsPitchAndLevel() {
        var resampler = StreamingResampler(from: 22_050, to: 24_000)
        let output = sine(22_050, rate: 22_050).withUnsafeBufferPointer { resampler.process($0) }
        let expected = sine(output.count, rate: 24_000)
        let worst = zip(output, expected).map { abs(Int($0) - Int($1)) }.max() ?? 0
        #expect(worst < 200, "linear interpolation of a 440 Hz tone: \(worst)")
    }
}

extension Array {
    /// The elements repeated until their sum reaches `total` (chunk sizes for the test).
    func cycled(until total: Int) -> [Element] where Element == Int {
        var result: [Int] = [], sum = 0, index = 0
        while sum < total { result.append(self[index % count]); sum += self[index % count]; index += 1 }
        return result
    }
}
