/// A property changed while PLAYING, as the frames meet it: each change
/// takes effect at the running time it was made (`ptt-active`, `mode`), not
/// at the next buffer the element happens to process.
///
/// Why: a live source's buffers reach the element after their audio was
/// captured (a microphone's buffer-time, a queue, a loaded machine). Applied
/// to the next buffer, a push-to-talk release cut off the last words said
/// before it (that audio was still on its way), a press took in audio from
/// before it, and a switch from vad to ptt ended the segment being spoken
/// before the switch was made. Here a frame meets the value the setting had
/// at the frame's running time. A change whose time is unknown (no clock
/// yet: the pipeline is not PLAYING) applies from the next frame, as does
/// one whose time the frames have already passed (a file read faster than
/// real time).
public struct ClockedSetting<Value: Sendable & Equatable>: Sendable, Equatable {
    /// A new value from a running time in ns; nil: unknown.
    public struct Change: Sendable, Equatable {
        public var value: Value
        public var at: UInt64?
        public init(_ value: Value, at: UInt64?) {
            self.value = value
            self.at = at
        }
    }

    /// At most this many changes wait for their frames: a setting flapped
    /// faster than audio arrives keeps the newest, so the latest value
    /// always wins and memory stays bounded.
    public static var maxPending: Int { 64 }

    /// The value the last frame met.
    public private(set) var value: Value
    private var pending: [Change] = []

    public init(_ value: Value) { self.value = value }

    /// Changes not yet reached by the frames.
    public var pendingCount: Int { pending.count }

    public mutating func record(_ change: Change) {
        if pending.count == Self.maxPending { pending.removeFirst() }
        pending.append(change)
    }

    /// The value at running time `pts` (the frames ask in order): every
    /// change at or before `pts`, or of unknown time, is applied first, in
    /// the order they were made.
    public mutating func value(at pts: UInt64) -> Value {
        while let first = pending.first, (first.at ?? 0) <= pts {
            value = first.value
            pending.removeFirst()
        }
        return value
    }
}
