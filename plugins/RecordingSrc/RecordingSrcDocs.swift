import GstKit
import ParleySpeech

extension RecordingSrcElement {
    public static let produces: [StructureDoc] = [
        StructureDoc(.message, "parley/recording", when: "with its first buffer and after its last", fields: [
            .init("event", .string, "started or ended"),
            .init("started-at", .uint64, "CLOCK_MONOTONIC instant of the recording's time 0 (ns)", onlyWhen: "started"),
            .init("duration", .uint64, "The recording's length (ns)", onlyWhen: "started"),
            .init("paced", .boolean, "Whether chunks leave in real time (pace)", onlyWhen: "started"),
            .init("position", .uint64, "How far it played (ns)", onlyWhen: "ended"),
        ]),
    ]
}
