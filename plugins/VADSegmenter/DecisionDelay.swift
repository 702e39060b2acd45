/// Frames waiting for their speech probability. The detector is trained to
/// judge a frame with the next `frames` frames in hand (`SpeechClassifier.lookahead`):
/// what it says after frame t is about frame t − `frames`. This pairs each
/// output with the frame it is about, oldest first.
///
/// Pure and generic over what a frame is, so the element (audio frames with
/// their timestamps) and the benchmark (frame indices) share it.
public struct DecisionDelay<Pending> {
    /// How many frames a decision waits for.
    public let frames: Int
    /// Oldest first; never more than `frames`.
    private var waiting: [Pending] = []

    public init(frames: Int) {
        precondition(frames >= 0, "a decision cannot be made before its frame")
        self.frames = frames
        waiting.reserveCapacity(frames + 1)
    }

    public var isEmpty: Bool { waiting.isEmpty }

    /// Adds the newest frame with what the detector said after it: the frame
    /// that output decides, once `frames` newer ones have arrived.
    public mutating func push(_ frame: Pending, probability: Float) -> (frame: Pending, probability: Float)? {
        waiting.append(frame)
        guard waiting.count > frames else { return nil }
        return (waiting.removeFirst(), probability)
    }

    /// Adds a frame that is not to wait (its own judgment is not needed, as
    /// in push-to-talk): it goes at once, after any frames still waiting, so
    /// order is kept. All get `probability`, the latest output: a judgment
    /// about the oldest of them, `frames` older than the newest.
    public mutating func pushWithoutWaiting(_ frame: Pending, probability: Float) -> [(frame: Pending, probability: Float)] {
        waiting.append(frame)
        return drain { probability }
    }

    /// The frames still waiting, each with the next of `probabilities` (at
    /// the end of a stream: what the detector says over silence after it).
    /// `next` is called once per frame still waiting, oldest first.
    public mutating func drain(_ next: () -> Float) -> [(frame: Pending, probability: Float)] {
        defer { waiting.removeAll(keepingCapacity: true) }
        return waiting.map { ($0, next()) }
    }
}
