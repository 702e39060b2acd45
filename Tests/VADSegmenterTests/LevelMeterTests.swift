import Testing
@testable import VADSegmenter

@Suite struct LevelMeterTests {
    let frameNs: UInt64 = 10_000_000

    func feed(_ meter: inout LevelMeter, amplitude: Int16, probability: Float, frames: Int, from pts: UInt64 = 0,
              speaking: Bool = false) -> [LevelReading] {
        var readings: [LevelReading] = []
        let samples = [Int16](repeating: amplitude, count: 160)
        let squares = Double(amplitude) * Double(amplitude) * 160
        for index in 0..<frames {
            samples.withUnsafeBufferPointer { frame in
                if let reading = meter.add(frame, sumOfSquares: squares, probability: probability,
                                           pts: pts + UInt64(index) * frameNs, duration: frameNs, speaking: speaking) {
                    readings.append(reading)
                }
            }
        }
        return readings
    }

    @Test func oneReadingPerIntervalWithItsSpan() {
        var meter = LevelMeter(intervalMs: 100)
        let readings = feed(&meter, amplitude: 1000, probability: 0.2, frames: 35)
        #expect(readings.map(\.start) == [0, 100_000_000, 200_000_000])
        #expect(readings.allSatisfy { $0.duration == 100_000_000 })
    }

    @Test func levelsAreDecibelsOfFullScale() throws {
        var meter = LevelMeter(intervalMs: 50)
        let reading = try #require(feed(&meter, amplitude: 16384, probability: 0, frames: 5).first)
        #expect(abs(reading.levelDB - -6.02) < 0.01)
        #expect(abs(reading.peakDB - -6.02) < 0.01)
        var silent = LevelMeter(intervalMs: 50)
        #expect(feed(&silent, amplitude: 0, probability: 0, frames: 5).first?.levelDB == -100)
    }

    @Test func theHighestProbabilityOfTheIntervalIsReported() throws {
        var meter = LevelMeter(intervalMs: 30)
        _ = feed(&meter, amplitude: 10, probability: 0.1, frames: 1)
        _ = feed(&meter, amplitude: 10, probability: 0.9, frames: 1, from: frameNs)
        let reading = try #require(feed(&meter, amplitude: 10, probability: 0.3, frames: 1, from: 2 * frameNs, speaking: true).first)
        #expect(reading.probability == 0.9)
        #expect(reading.speaking)
    }

    @Test func intervalsBelowAFrameAreOneFrame() {
        var meter = LevelMeter(intervalMs: 1)
        #expect(feed(&meter, amplitude: 10, probability: 0, frames: 4).count == 4)
    }
}
