import GstKit
import ParleySpeech

extension CloudSTTElement {
    public static let produces: [StructureDoc] = [
        StructureDoc(.message, "parley/transcript", when: "per result: each partial, then the final (or failed, skipped)", fields: [
            SpeechDocs.segmentID,
            .init("text", .string, "The transcript (empty for a failed or skipped result)"),
            .init("status", .string, "partial, final, failed or skipped"),
            .init("language", .string, "BCP-47 tag of the speech: the language property, or what Whisper detected"),
            .init("start", .uint64, "Stream time of the segment's first sample (ns)"),
            .init("duration", .uint64, "The segment's length (ns)"),
            .init("provider", .string, "Who served it; empty for partials and unserved results"),
        ]),
        SpeechDocs.latency(stage: "stt", when: "per final transcript", figures: [
            .init("processing-ms", .double, "From the request to the final transcript", onlyWhen: "a request was sent"),
            .init("provider-processing-ms", .double, "The provider's own time (openai-processing-ms)", onlyWhen: "the provider reports it"),
            .init("first-byte-ms", .double, "From the request to the answer's first byte", onlyWhen: "a network provider answered"),
            .init("ttfs-ms", .double, "Time to final transcript: from the VAD's decision to the final"),
        ]),
        SpeechDocs.fallback,
        SpeechDocs.meta,
    ]
}
