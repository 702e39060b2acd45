import GstKit

/// The structures the speech layer defines for every element that uses it:
/// latency figures, fallback moves, the speech and TTS boundary events and
/// the speech meta. Elements list them in their `produces`.
public enum SpeechDocs {
    public typealias Field = StructureDoc.Field

    public static let segmentID = Field("segment-id", .uint64, "The utterance's number (from 0, in the order vadsegmenter cut them)")

    /// `parley/latency` of one stage with its figures (all in ms); async
    /// stages add `queue-wait-ms`.
    public static func latency(stage: String, when: String, figures: [Field], queued: Bool = true) -> StructureDoc {
        StructureDoc(.message, "parley/latency", when: when, fields: [
            segmentID,
            Field("stage", .string, "Which stage measured: \(stage)"),
        ] + figures + (queued ? [Field("queue-wait-ms", .double, "How long the segment waited for a request slot (max-in-flight)")] : []))
    }

    /// `parley/latency` of a speaking stage (cloudtts, espeaktts), built by `SpeechMeta.ttsLatencyMessage`.
    public static let ttsLatency = latency(stage: "tts", when: "per result, when its first audio leaves", figures: [
        Field("time-to-first-audio-ms", .double, "From the text's arrival to its first audio"),
        Field("voice-to-voice-ms", .double, "From the VAD's decision to the first audio", onlyWhen: "a VAD cut the speech upstream"),
    ])

    /// The speech boundary events, documented beside their type (SpeechBoundary).
    public static let speechStart = SpeechBoundary.startDoc
    public static let speechLikelyEnd = SpeechBoundary.likelyEndDoc
    public static let speechResumed = SpeechBoundary.resumedDoc
    public static let speechEnd = SpeechBoundary.endDoc

    /// ParleySpeechMeta: a custom meta (gst_buffer_get_custom_meta(buffer, "ParleySpeechMeta")), whose structure holds these fields.
    public static let meta = StructureDoc(.meta, "ParleySpeechMeta", when: "on every buffer after the VAD", fields: [
        segmentID,
        Field("status", .string, "partial, final, failed or skipped: a consumer that wants finals ignores the rest"),
        Field("revision", .uint64, "0 for a result's first attempt; a retried stream's empty partial with a higher revision withdraws what was shown"),
        Field("language", .string, "BCP-47 tag of the text or speech"),
        Field("provider", .string, "Who served the stage that made the buffer"),
        Field("detail", .string, "Why a failed or skipped result is not final"),
        Field("speech-end", .uint64, "Where the utterance's speech ended, in the audio's own time (ns)", onlyWhen: "known"),
        Field("first-segment-id", .uint64, "The first of the segments a joined translation stands for (streamtranslator max-hold-ms): it covers first-segment-id to segment-id",
              onlyWhen: "texts of several segments were joined into one sentence"),
        Field("speculative-requests", .uint64, "Transcriptions cloudstt started at the segment's likely ends (speculate), withdrawn ones included",
              onlyWhen: "a transcript was speculated"),
        Field("speculation-used", .boolean, "Whether the transcript is the last of them, begun before the silence confirmed the end",
              onlyWhen: "a transcript was speculated"),
        Field("speculation-kept-ms", .uint64, "How much of the segment's start (ms) the transcript took from withdrawn speculations' kept text (cloudstt keep-speculated-ms) instead of transcribing it again",
              onlyWhen: "a withdrawn speculation's text was kept"),
        Field("stamp-speech-end, stamp-segment-emitted, stamp-request-sent, stamp-first-byte, stamp-result-complete, stamp-first-audio-out", .uint64,
              "CLOCK_MONOTONIC instants (ns) the stages set: speech end, segment emitted, request sent, first byte, result complete, first audio out", onlyWhen: "the stage has stamped"),
    ])
}
