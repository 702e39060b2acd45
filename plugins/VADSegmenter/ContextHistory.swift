/// What the detector's context stage sees of the past: the frame network's
/// last hidden layer and logit for the last `depth` frames, and their means
/// over spans of past frames (`windows`, in frames back from the current
/// one: `1...2` is the two frames before it).
///
/// A span reaching before the stream's first frame averages the frames there
/// are, and is 0 while there are none, as benchmarks/vad/train computes it.
/// Training includes hundreds of short streams that open on a sound (a tone,
/// an alarm) or on speech, so the stage has learnt what empty windows mean:
/// a stream that starts mid-tone opens no segment.
/// The sums are taken afresh each frame (about 500 additions), not kept
/// running, so nothing drifts over a long stream. Memory is one
/// `FrameMemory` allocation, copied on write: the struct has value semantics.
struct ContextHistory {
    let width: Int
    private let windows: [ClosedRange<Int>]
    private let depth: Int
    private var memory: FrameMemory
    /// The ring slot the next frame goes to.
    private var head = 0
    private var frames = 0

    /// The inputs per frame: the current values, then one mean per window.
    var inputCount: Int { width * (1 + windows.count) }

    init(width: Int, windows: [ClosedRange<Int>]) {
        precondition(windows.allSatisfy { $0.lowerBound >= 1 }, "a context window reaches back from the previous frame")
        self.width = width
        self.windows = windows
        depth = windows.map(\.upperBound).max() ?? 0
        memory = FrameMemory(count: max(depth, 1) * width)
    }

    /// Writes the context stage's input for `current` into `inputs`
    /// (`inputCount` floats), then remembers `current` as the newest frame.
    mutating func inputs(for current: UnsafePointer<Float>, into inputs: UnsafeMutablePointer<Float>) {
        if !isKnownUniquelyReferenced(&memory) { memory = memory.copy() }
        let ring = memory.base
        inputs.update(from: current, count: width)
        var out = inputs + width
        for window in windows {
            for index in 0..<width { out[index] = 0 }
            let available = min(window.upperBound, frames)
            var back = window.lowerBound
            while back <= available {
                var slot = head - back
                if slot < 0 { slot += depth }
                let from = ring + slot * width
                for index in 0..<width { out[index] += from[index] }
                back += 1
            }
            let count = available - window.lowerBound + 1
            if count > 1 {
                let scale = 1 / Float(count)
                for index in 0..<width { out[index] *= scale }
            }
            out += width
        }
        guard depth > 0 else { return }
        (ring + head * width).update(from: current, count: width)
        head = (head + 1) % depth
        frames = min(frames + 1, depth)
    }
}
