import GstKit
import ParleySpeech

extension SessionRecorderElement {
    public static let produces: [StructureDoc] = [
        SessionMessage.doc,
    ]
}
