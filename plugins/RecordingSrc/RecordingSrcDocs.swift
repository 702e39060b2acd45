import GstKit
import ParleySpeech

extension RecordingSrcElement {
    public static let produces: [StructureDoc] = [
        RecordingMessage.doc,
    ]
}
