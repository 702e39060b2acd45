import Testing
@testable import VADSegmenter

@Suite struct DecisionDelayTests {
    @Test func eachOutputDecidesTheFrameLookaheadFramesBeforeIt() {
        var delay = DecisionDelay<Int>(frames: 3)
        var decided: [(Int, Float)] = []
        for frame in 0..<6 {
            if let pair = delay.push(frame, probability: Float(frame) / 10) { decided.append((pair.frame, pair.probability)) }
        }
        // Outputs after frames 3, 4 and 5 are about frames 0, 1 and 2.
        #expect(decided.map(\.0) == [0, 1, 2])
        #expect(decided.map(\.1) == [0.3, 0.4, 0.5])
    }

    @Test func drainingDecidesWhatIsLeftOldestFirstWithOneOutputEach() {
        var delay = DecisionDelay<Int>(frames: 2)
        _ = delay.push(0, probability: 0.9)
        _ = delay.push(1, probability: 0.9)
        var asked = 0
        let rest = delay.drain { asked += 1; return Float(asked) }
        #expect(rest.map(\.frame) == [0, 1])
        #expect(rest.map(\.probability) == [1, 2])
        #expect(asked == 2)
        #expect(delay.isEmpty)
        // After a drain the delay starts again: the next frame waits its turn.
        #expect(delay.push(7, probability: 0.5) == nil)
    }

    @Test func noLookaheadDecidesEachFrameAtOnce() {
        var delay = DecisionDelay<Int>(frames: 0)
        #expect(delay.push(4, probability: 0.7)?.frame == 4)
        #expect(delay.drain { 0 }.isEmpty)
    }

    @Test func aStreamShorterThanTheLookaheadIsDecidedAtTheEnd() {
        var delay = DecisionDelay<Int>(frames: 3)
        #expect(delay.push(0, probability: 0.8) == nil)
        #expect(delay.drain { 0.1 }.map(\.frame) == [0])
    }

    @Test func aFrameThatNeedNotWaitGoesAtOnceAfterThoseStillWaiting() {
        var delay = DecisionDelay<Int>(frames: 3)
        _ = delay.push(0, probability: 0.1)
        _ = delay.push(1, probability: 0.2)
        // Waiting frames are not overtaken; all carry the latest output.
        let released = delay.pushWithoutWaiting(2, probability: 0.6)
        #expect(released.map(\.frame) == [0, 1, 2])
        #expect(released.map(\.probability) == [0.6, 0.6, 0.6])
        #expect(delay.isEmpty)
        #expect(delay.pushWithoutWaiting(3, probability: 0.4).map(\.frame) == [3])
        // Waiting again afterwards: the next frame waits its full lookahead.
        #expect(delay.push(4, probability: 0.5) == nil)
    }
}
