import GstKit
import ParleySpeech

extension CloudTTSElement {
    public static let produces: [StructureDoc] = [
        StructureDoc(.message, "parley/tts", when: "per result, once spoken (or failed)", fields: [
            SpeechDocs.segmentID,
            .init("status", .string, "final, or failed when it was not spoken"),
            .init("provider", .string, "Who spoke it"),
            .init("audio-seconds", .double, "How much audio it made"),
        ]),
        SpeechDocs.ttsLatency,
        SpeechDocs.fallback,
        SpeechDocs.ttsStart,
        SpeechDocs.ttsEnd,
        SpeechDocs.meta,
    ]
}
