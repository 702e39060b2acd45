/// Push-to-talk's button as the frames see it: each press and release takes
/// effect at the running time it happened, not at the next buffer the
/// element happens to process.
///
/// Why: a live source's buffers reach the element after their audio was
/// captured (a microphone's buffer-time, a queue, a loaded machine). Applied
/// to the next buffer, a release cut off the last words said before it (that
/// audio was still on its way) and a press took in audio from before it.
/// Here a frame is in the segment when the button was down at the frame's
/// running time. A change whose time is unknown (no clock yet: the pipeline
/// is not PLAYING) applies from the next frame, as does one whose time the
/// frames have already passed (a file read faster than real time).
public struct PushToTalkButton: Sendable, Equatable {
    /// A press (`down`) or release at a running time in ns; nil: unknown.
    public struct Change: Sendable, Equatable {
        public var down: Bool
        public var at: UInt64?
        public init(down: Bool, at: UInt64?) {
            self.down = down
            self.at = at
        }
    }

    /// At most this many changes wait for their frames: a button flapped
    /// faster than audio arrives keeps the newest, so the latest state
    /// always wins and memory stays bounded.
    public static let maxPending = 64

    public private(set) var isDown: Bool
    private var pending: [Change] = []

    public init(down: Bool = false) { isDown = down }

    /// Changes not yet reached by the frames.
    public var pendingCount: Int { pending.count }

    public mutating func record(_ change: Change) {
        if pending.count == Self.maxPending { pending.removeFirst() }
        pending.append(change)
    }

    /// Whether the button was down at running time `pts` (the frames ask in
    /// order): every change at or before `pts`, or of unknown time, is
    /// applied first, in the order they were made.
    public mutating func isDown(at pts: UInt64) -> Bool {
        while let first = pending.first, (first.at ?? 0) <= pts {
            isDown = first.down
            pending.removeFirst()
        }
        return isDown
    }
}
