import GstKit
import ParleySpeech

extension LineSplitterElement {
    public static let produces: [StructureDoc] = [SpeechDocs.meta]
}
