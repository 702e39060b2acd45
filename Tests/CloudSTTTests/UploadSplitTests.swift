import Testing
@testable import CloudSTT

@Suite struct UploadSplitTests {
    @Test func aSegmentOverTheLimitIsSplitAtTheQuietestPointAndNothingIsLost() {
        // Two loud bursts with a silent gap off-centre: the cut falls in the gap.
        let loud = (0..<40_000).map { Int16(truncatingIfNeeded: ($0 % 50) * 600 - 15_000) }
        let quiet = [Int16](repeating: 0, count: 4_000)
        let samples = loud + quiet + loud + loud
        let pieces = LongSegments.split(samples, bytesPerSample: 2, limit: samples.count * 2 * 3 / 4)
        #expect(pieces.count == 2)
        #expect(pieces.flatMap { $0 } == samples, "nothing lost, order kept")
        #expect(pieces[0].count >= 40_000 && pieces[0].count <= 44_000, "cut in the silence")
        #expect(pieces.allSatisfy { $0.count * 2 <= samples.count * 2 * 3 / 4 })
    }

    @Test func aSegmentUnderTheLimitIsSentWhole() {
        let samples = [Int16](repeating: 1, count: 16_000)
        #expect(LongSegments.split(samples, bytesPerSample: 2, limit: 25 * 1024 * 1024).count == 1)
    }
}
