import Testing
@testable import VADSegmenter

@Suite struct ClockedSettingTests {
    private let ms: UInt64 = 1_000_000

    /// Frames 10 ms apart from `from`, asked in order.
    private func downFrames(_ button: inout ClockedSetting<Bool>, from: UInt64, count: Int) -> [Bool] {
        (0..<count).map { button.value(at: from + UInt64($0) * 10 * ms) }
    }

    @Test func framesReachingTheElementLateStillMeetTheButtonAsItWasWhenTheyWereCaptured() {
        // Pressed at 100 ms and released at 150 ms, both before any of
        // these frames arrived (a lagging microphone): frames 90..170 ms.
        var button = ClockedSetting(false)
        button.record(.init(true, at: 100 * ms))
        button.record(.init(false, at: 150 * ms))
        #expect(downFrames(&button, from: 90 * ms, count: 9) == [false, true, true, true, true, true, false, false, false])
        #expect(button.pendingCount == 0)
    }

    @Test func aChangeAheadOfTheFramesWaitsForThem() {
        var button = ClockedSetting(true)
        button.record(.init(false, at: 500 * ms))
        #expect(downFrames(&button, from: 470 * ms, count: 3) == [true, true, true])
        #expect(button.pendingCount == 1)
        #expect(button.value(at: 500 * ms) == false)
    }

    @Test func aChangeOfUnknownTimeOrOneTheFramesHavePassedAppliesFromTheNextFrame() {
        var button = ClockedSetting(false)
        #expect(button.value(at: 2_000 * ms) == false)
        button.record(.init(true, at: nil))
        #expect(button.value(at: 2_010 * ms) == true)
        // A file read faster than real time: its frames are long past the clock.
        button.record(.init(false, at: 40 * ms))
        #expect(button.value(at: 2_020 * ms) == false)
    }

    @Test func changesApplyInTheOrderTheyWereMade() {
        // Pressed and released between two frames: the release wins.
        var button = ClockedSetting(false)
        button.record(.init(true, at: 12 * ms))
        button.record(.init(false, at: 15 * ms))
        #expect(downFrames(&button, from: 10 * ms, count: 2) == [false, false])
    }

    @Test func aFlappingButtonKeepsTheNewestChangesAndEndsInItsLastState() {
        var button = ClockedSetting(false)
        for index in 0..<(ClockedSetting<Bool>.maxPending * 3) {
            button.record(.init(index % 2 == 0, at: UInt64(index) * ms))
        }
        #expect(button.pendingCount == ClockedSetting<Bool>.maxPending)
        // The last change (index 191, odd) is a release.
        #expect(button.value(at: 10_000 * ms) == false)
        #expect(button.pendingCount == 0)
    }

    @Test func aModeSwitchReachesTheFramesAtItsTime() {
        var mode = ClockedSetting(SegmentationMode.vad)
        mode.record(.init(.ptt, at: 1_000 * ms))
        mode.record(.init(.always, at: 1_020 * ms))
        #expect((0..<4).map { mode.value(at: (990 + UInt64($0) * 10) * ms) } == [.vad, .ptt, .ptt, .always])
    }
}
