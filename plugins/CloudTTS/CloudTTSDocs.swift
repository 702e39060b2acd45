import GstKit
import ParleySpeech

extension CloudTTSElement {
    public static let produces: [StructureDoc] = [
        SpokenMessage.doc,
        SpeechDocs.ttsLatency,
        FallbackMessage.doc,
        SpeechOutputStart.doc,
        SpeechOutputEnd.doc,
        SpeechDocs.meta,
    ]
}
