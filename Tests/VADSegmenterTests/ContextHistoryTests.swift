import Testing
@testable import VADSegmenter

/// The context stage's view of the past, against means worked out by hand.
@Suite struct ContextHistoryTests {
    /// Frame k carries (k, 10 k): every mean is easy to check.
    func inputs(_ history: inout ContextHistory, frame: Int) -> [Float] {
        let current: [Float] = [Float(frame), Float(10 * frame)]
        var out = [Float](repeating: .nan, count: history.inputCount)
        current.withUnsafeBufferPointer { current in
            out.withUnsafeMutableBufferPointer { history.inputs(for: current.baseAddress!, into: $0.baseAddress!) }
        }
        return out
    }

    @Test func windowsAverageThePastFramesTheyCover() {
        var history = ContextHistory(width: 2, windows: [1...2, 3...5])
        #expect(history.inputCount == 6)
        // Nothing before the first frame: both windows are 0.
        #expect(inputs(&history, frame: 1) == [1, 10, 0, 0, 0, 0])
        // One frame back: the near window has it alone, the far one nothing yet.
        #expect(inputs(&history, frame: 2) == [2, 20, 1, 10, 0, 0])
        #expect(inputs(&history, frame: 3) == [3, 30, 1.5, 15, 0, 0])
        // Frame 4: 3 and 2 near, 1 far (what there is of 3...5).
        #expect(inputs(&history, frame: 4) == [4, 40, 2.5, 25, 1, 10])
        #expect(inputs(&history, frame: 5) == [5, 50, 3.5, 35, 1.5, 15])
        // From frame 6 on every window is full, and the ring wraps.
        for frame in 6...20 {
            let near = Float(2 * frame - 3) / 2, far = Float(frame - 4)
            #expect(inputs(&history, frame: frame) == [Float(frame), Float(10 * frame), near, 10 * near, far, 10 * far])
        }
    }

    @Test func copiesKeepTheirOwnPast() {
        var history = ContextHistory(width: 2, windows: [1...1])
        _ = inputs(&history, frame: 1)
        var copy = history
        _ = inputs(&history, frame: 7)
        // The copy never saw frame 7: its previous frame is still 1.
        #expect(inputs(&copy, frame: 2) == [2, 20, 1, 10])
        #expect(inputs(&history, frame: 8) == [8, 80, 7, 70])
    }
}
