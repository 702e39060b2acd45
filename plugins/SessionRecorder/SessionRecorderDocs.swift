import GstKit
import ParleySpeech

extension SessionRecorderElement {
    public static let produces: [StructureDoc] = [
        StructureDoc(.message, "parley/session", when: "when the session starts and when it ends", fields: [
            .init("event", .string, "started or ended"),
            .init("id", .string, "The session's id"),
            .init("location", .string, "Its folder"),
            .init("segments", .int64, "Segments written (0 at the start)"),
            .init("failures", .int64, "Of those, segments with a failed stage"),
        ]),
    ]
}
