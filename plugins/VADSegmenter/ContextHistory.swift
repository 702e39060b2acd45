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

    /// The ring slot of the frame `back` frames before the current one.
    private func slot(back: Int) -> Int {
        let slot = head - back
        return slot < 0 ? slot + depth : slot
    }

    /// Writes the context stage's input for `current` into `inputs`
    /// (`inputCount` floats), then remembers `current` as the newest frame.
    mutating func inputs(for current: UnsafePointer<Float>, into inputs: UnsafeMutablePointer<Float>) {
        if !isKnownUniquelyReferenced(&memory) { memory = memory.copy() }
        let ring = memory.base
        inputs.update(from: current, count: width)
        var out = inputs + width
        for window in windows {
            let available = min(window.upperBound, frames)
            let count = available - window.lowerBound + 1
            let scale: Float = count > 1 ? 1 / Float(count) : 1
            // Eight values at a time in running sums held in registers, the
            // frames added newest first as before; the plain loop over memory
            // was checked at run time for overlap on every frame of a window.
            var first = 0
            while first + 8 <= width {
                var (s0, s1, s2, s3, s4, s5, s6, s7): (Float, Float, Float, Float, Float, Float, Float, Float) = (0, 0, 0, 0, 0, 0, 0, 0)
                var back = window.lowerBound
                while back <= available {
                    let from = ring + slot(back: back) * width + first
                    s0 += from[0]; s1 += from[1]; s2 += from[2]; s3 += from[3]
                    s4 += from[4]; s5 += from[5]; s6 += from[6]; s7 += from[7]
                    back += 1
                }
                let to = out + first
                (to[0], to[1], to[2], to[3]) = (s0, s1, s2, s3)
                (to[4], to[5], to[6], to[7]) = (s4, s5, s6, s7)
                first += 8
            }
            for index in first..<width {
                var sum: Float = 0
                var back = window.lowerBound
                while back <= available {
                    sum += ring[slot(back: back) * width + index]
                    back += 1
                }
                out[index] = sum
            }
            if count > 1 {
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
