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

    /// As wide as the detector's (17): values taken eight at a time and the
    /// rest one by one, every one of them the mean of its own feature.
    @Test func everyFeatureOfAWideFrameIsAveragedOnItsOwn() {
        let width = 19
        var history = ContextHistory(width: width, windows: [1...2, 3...6])
        func frame(_ k: Int) -> [Float] { (0..<width).map { Float(k + 100 * $0) } }
        for k in 1...12 {
            let current = frame(k)
            var out = [Float](repeating: .nan, count: history.inputCount)
            current.withUnsafeBufferPointer { current in
                out.withUnsafeMutableBufferPointer { history.inputs(for: current.baseAddress!, into: $0.baseAddress!) }
            }
            for (number, window) in [1...2, 3...6].enumerated() {
                let backs = window.filter { k - $0 >= 1 }
                for feature in 0..<width {
                    let expected = backs.isEmpty ? 0 : backs.map { Float(k - $0 + 100 * feature) }.reduce(0, +) / Float(backs.count)
                    // Within rounding: the history scales by 1 / count, the check divides.
                    #expect(abs(out[width * (1 + number) + feature] - expected) <= 1e-5 * max(1, expected),
                            "frame \(k), window \(window), feature \(feature)")
                }
            }
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
