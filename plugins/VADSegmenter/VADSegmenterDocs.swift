import GstKit
import ParleySpeech

extension VADSegmenterElement {
    public static let produces: [StructureDoc] = [
        StructureDoc(.message, "parley/vad", when: "once per segment, when the VAD ends it", fields: [
            SpeechDocs.segmentID,
            .init("start", .uint64, "Stream time of the segment's first sample, prefix padding included (ns)"),
            .init("end", .uint64, "Stream time where the segment was cut (ns)"),
            .init("speech-end", .uint64, "Stream time where its last speech frame ended (ns)"),
            .init("reason", .string, "Why it ended: silence, max-duration, ptt-release, eos, mode-change"),
            .init("mean-probability", .double, "Mean speech probability of its frames, 0 to 1"),
        ]),
        SpeechDocs.latency(stage: "vad", when: "once per segment", figures: [
            .init("eos-detection-ms", .double, "From the end of speech to the decision that the segment is over, in audio time"),
        ], queued: false),
        SpeechDocs.speechStart,
        SpeechDocs.speechEnd,
        SpeechDocs.meta,
    ]
}
