import GstKit
import ParleySpeech

extension StreamTranslatorElement {
    public static let produces: [StructureDoc] = [
        StructureDoc(.message, "parley/translation", when: "per final translation, and per failed or skipped result", fields: [
            SpeechDocs.segmentID,
            .init("text", .string, "The translation (or the answer, in assistant mode)"),
            .init("status", .string, "final, failed or skipped"),
            .init("language", .string, "BCP-47 tag of the translation (target-language)"),
            .init("source-language", .string, "BCP-47 tag of the text translated"),
            .init("source-text", .string, "The text translated"),
            .init("provider", .string, "Who served it; cache for a cache hit; none (same language) for text already in the target language, passed on as it is"),
            .init("start", .uint64, "Stream time of the segment (ns)"),
            .init("duration", .uint64, "The segment's length (ns)"),
        ]),
        SpeechDocs.latency(stage: "translate", when: "per final translation", figures: [
            .init("time-to-final-ms", .double, "From the request to the whole translation", onlyWhen: "a request was sent (not a cache hit)"),
            .init("ttft-ms", .double, "Time to first token of a streamed answer", onlyWhen: "a streaming provider answered"),
            .init("speech-end-to-translation-ms", .double, "From the VAD's decision to the whole translation", onlyWhen: "a request was sent after a VAD"),
        ]),
        SpeechDocs.fallback,
        SpeechDocs.meta,
    ]
}
