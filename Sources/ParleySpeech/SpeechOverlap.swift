import GstKit

/// What a new result does to speech still in progress (`overlap` of the
/// text-to-speech elements).
public enum SpeechOverlap: Int, Sendable, CaseIterable {
    /// Speak it after the current speech.
    case queue = 0
    /// Cut the current speech and drop what is queued (barge-in).
    case interrupt = 1
    /// Speak it after the current speech, faster while the speech is behind
    /// the speaker (SpeechTimeline.catchUpSpeed): long speech keeps up
    /// instead of drifting further and further behind.
    case compress = 2

    /// The GEnum the property is registered with (gst-inspect shows its nicks).
    public static let typeName = "GstParleyTTSOverlap"
    public static let values = [
        EnumValue(queue.rawValue, "queue", "Speak it after the current speech"),
        EnumValue(interrupt.rawValue, "interrupt", "Cut the current speech and drop what is queued (barge-in)"),
        EnumValue(compress.rawValue, "compress", "Speak it after the current speech, faster while over 0.5 s behind the speaker (cloudtts: up to max-speed-up; espeaktts: up to 1.5x)"),
    ]
}
