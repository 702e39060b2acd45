import GstKit
import ParleySpeech

extension EspeakTTSElement {
    public static let produces: [StructureDoc] = [
        SpokenSentenceMessage.doc,
        SpokenWordMessage.doc,
        SpeechDocs.ttsLatency,
        SpeechDocs.meta,
    ]
}
