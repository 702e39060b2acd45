import GstKit
import ParleySpeech

extension StreamTranslatorElement {
    public static let produces: [StructureDoc] = [
        TranslationMessage.doc,
        SpeechDocs.latency(stage: "translate", when: "per final translation", figures: [
            .init("time-to-final-ms", .double, "From the request to the whole translation", onlyWhen: "a request was sent (not a cache hit)"),
            .init("ttft-ms", .double, "Time to first token of a streamed answer", onlyWhen: "a streaming provider answered"),
            .init("speech-end-to-translation-ms", .double, "From the VAD's decision to the whole translation", onlyWhen: "a request was sent after a VAD"),
        ]),
        FallbackMessage.doc,
        SpeechDocs.meta,
    ]
}
