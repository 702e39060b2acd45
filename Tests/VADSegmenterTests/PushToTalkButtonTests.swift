import Testing
@testable import VADSegmenter

@Suite struct PushToTalkButtonTests {
    private let ms: UInt64 = 1_000_000

    /// Frames 10 ms apart from `from`, asked in order.
    private func downFrames(_ button: inout PushToTalkButton, from: UInt64, count: Int) -> [Bool] {
        (0..<count).map { button.isDown(at: from + UInt64($0) * 10 * ms) }
    }

    @Test func framesReachingTheElementLateStillMeetTheButtonAsItWasWhenTheyWereCaptured() {
        // Pressed at 100 ms and released at 150 ms, both before any of
        // these frames arrived (a lagging microphone): frames 90..170 ms.
        var button = PushToTalkButton()
        button.record(.init(down: true, at: 100 * ms))
        button.record(.init(down: false, at: 150 * ms))
        #expect(downFrames(&button, from: 90 * ms, count: 9) == [false, true, true, true, true, true, false, false, false])
        #expect(button.pendingCount == 0)
    }

    @Test func aChangeAheadOfTheFramesWaitsForThem() {
        var button = PushToTalkButton(down: true)
        button.record(.init(down: false, at: 500 * ms))
        #expect(downFrames(&button, from: 470 * ms, count: 3) == [true, true, true])
        #expect(button.pendingCount == 1)
        #expect(button.isDown(at: 500 * ms) == false)
    }

    @Test func aChangeOfUnknownTimeOrOneTheFramesHavePassedAppliesFromTheNextFrame() {
        var button = PushToTalkButton()
        #expect(button.isDown(at: 2_000 * ms) == false)
        button.record(.init(down: true, at: nil))
        #expect(button.isDown(at: 2_010 * ms) == true)
        // A file read faster than real time: its frames are long past the clock.
        button.record(.init(down: false, at: 40 * ms))
        #expect(button.isDown(at: 2_020 * ms) == false)
    }

    @Test func changesApplyInTheOrderTheyWereMade() {
        // Pressed and released between two frames: the release wins.
        var button = PushToTalkButton()
        button.record(.init(down: true, at: 12 * ms))
        button.record(.init(down: false, at: 15 * ms))
        #expect(downFrames(&button, from: 10 * ms, count: 2) == [false, false])
    }

    @Test func aFlappingButtonKeepsTheNewestChangesAndEndsInItsLastState() {
        var button = PushToTalkButton()
        for index in 0..<(PushToTalkButton.maxPending * 3) {
            button.record(.init(down: index % 2 == 0, at: UInt64(index) * ms))
        }
        #expect(button.pendingCount == PushToTalkButton.maxPending)
        // The last change (index 191, odd) is a release.
        #expect(button.isDown(at: 10_000 * ms) == false)
        #expect(button.pendingCount == 0)
    }
}
