import GstKit
import ParleySpeech

extension CloudSTTElement {
    public static let produces: [StructureDoc] = [
        TranscriptMessage.doc,
        SpeechDocs.latency(stage: "stt", when: "per final transcript", figures: [
            .init("processing-ms", .double, "From the request to the final transcript", onlyWhen: "a request was sent"),
            .init("provider-processing-ms", .double, "The provider's own time (openai-processing-ms)", onlyWhen: "the provider reports it"),
            .init("first-byte-ms", .double, "From the request to the answer's first byte", onlyWhen: "a network provider answered"),
            .init("ttfs-ms", .double, "Time to final transcript: from the VAD's decision to the final"),
            .init("speculative-requests", .int64, "Transcriptions started at likely ends of the segment (speculate), withdrawn ones included", onlyWhen: "a likely end started one"),
            .init("speculation-used", .boolean, "Whether the final is the one started at the last likely end (true) or was asked for at the end (false)", onlyWhen: "a likely end started one"),
            .init("speculation-kept-ms", .double, "How much of the segment's start the final took from withdrawn speculations' kept text (keep-speculated-ms) instead of transcribing it again", onlyWhen: "a withdrawn speculation's text was kept"),
        ]),
        FallbackMessage.doc,
        SpeechDocs.meta,
    ]
}
