import GstKit
import ParleySpeech

extension EspeakTTSElement {
    public static let produces: [StructureDoc] = [
        StructureDoc(.message, "parley/tts-sentence", when: "as espeak-ng starts each sentence", fields: [
            SpeechDocs.segmentID,
            .init("offset", .uint64, "Stream time where the sentence starts (ns)"),
            .init("text-position", .int64, "Its first character's index in the text"),
        ]),
        StructureDoc(.message, "parley/tts-word", when: "as espeak-ng starts each word", fields: [
            SpeechDocs.segmentID,
            .init("offset", .uint64, "Stream time where the word starts (ns)"),
            .init("text-position", .int64, "Its first character's index in the text"),
            .init("length", .int64, "Its length in characters"),
            .init("word", .string, "The word"),
        ]),
        SpeechDocs.ttsLatency,
        SpeechDocs.meta,
    ]
}
