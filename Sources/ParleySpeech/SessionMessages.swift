import GstKit

// sessionrecorder's and recordingsrc's bus messages, one type each (see
// SpeechMessages.swift): read by `parley run` (where the session went) and
// `parley bench` (when the recording's time 0 was).

/// `parley/session` (sessionrecorder): when the session starts and when it ends.
public struct SessionMessage: StructureContract, Equatable {
    public enum Phase: String, Sendable, CaseIterable {
        case started, ended
    }

    public var phase: Phase
    /// The session's id and its folder.
    public var id: String
    public var location: String
    /// Segments written (0 at the start), and of those the ones with a failed stage.
    public var segments: Int
    public var failures: Int

    public init(phase: Phase, id: String, location: String, segments: Int = 0, failures: Int = 0) {
        self.phase = phase
        self.id = id
        self.location = location
        self.segments = segments
        self.failures = failures
    }

    public static let doc = StructureDoc(.message, "parley/session", when: "when the session starts and when it ends", fields: [
        .init("event", .string, "started or ended"),
        .init("id", .string, "The session's id"),
        .init("location", .string, "Its folder"),
        .init("segments", .int64, "Segments written (0 at the start)"),
        .init("failures", .int64, "Of those, segments with a failed stage"),
    ])

    public var structure: Structure {
        Structure(Self.name, [
            ("event", .string(phase.rawValue)), ("id", .string(id)), ("location", .string(location)),
            ("segments", .int(segments)), ("failures", .int(failures)),
        ])
    }

    public init?(_ structure: Structure) {
        guard structure.name == Self.name, let phase = structure["event"]?.string.flatMap(Phase.init(rawValue:)),
              let location = structure["location"]?.string else { return nil }
        self.init(phase: phase, id: structure["id"]?.string ?? "", location: location,
                  segments: structure["segments"]?.int ?? 0, failures: structure["failures"]?.int ?? 0)
    }
}

/// `parley/recording` (recordingsrc): with its first buffer and after its last.
public enum RecordingMessage: StructureContract, Equatable {
    /// `startedAt`: the CLOCK_MONOTONIC instant of the recording's time 0;
    /// `duration`: its length (ns); `paced`: whether chunks leave in real time.
    case started(startedAt: UInt64, duration: UInt64, paced: Bool)
    /// `position`: how far it played (ns).
    case ended(position: UInt64)

    public static let doc = StructureDoc(.message, "parley/recording", when: "with its first buffer and after its last", fields: [
        .init("event", .string, "started or ended"),
        .init("started-at", .uint64, "CLOCK_MONOTONIC instant of the recording's time 0 (ns)", onlyWhen: "started"),
        .init("duration", .uint64, "The recording's length (ns)", onlyWhen: "started"),
        .init("paced", .boolean, "Whether chunks leave in real time (pace)", onlyWhen: "started"),
        .init("position", .uint64, "How far it played (ns)", onlyWhen: "ended"),
    ])

    public var structure: Structure {
        switch self {
        case .started(let startedAt, let duration, let paced):
            Structure(Self.name, [("event", .string("started")), ("started-at", .uint64(startedAt)),
                                  ("duration", .uint64(duration)), ("paced", .bool(paced))])
        case .ended(let position):
            Structure(Self.name, [("event", .string("ended")), ("position", .uint64(position))])
        }
    }

    public init?(_ structure: Structure) {
        guard structure.name == Self.name else { return nil }
        switch structure["event"]?.string {
        case "started":
            guard case .uint64(let startedAt)? = structure["started-at"] else { return nil }
            self = .started(startedAt: startedAt, duration: structure["duration"]?.uint64 ?? 0, paced: structure["paced"]?.bool ?? true)
        case "ended":
            self = .ended(position: structure["position"]?.uint64 ?? 0)
        default:
            return nil
        }
    }
}
