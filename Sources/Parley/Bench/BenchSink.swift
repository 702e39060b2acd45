import GstKit
import ParleyCore
import ParleySpeech
import Synchronization

/// What `parley bench` puts where a pipeline's `SINK` fragment was: it
/// notes when each segment's first output reaches the end of the pipeline
/// (the first audio buffer of a spoken answer; the final text of a text
/// result) and posts it as `parley/output` (`segment-id`, `at`:
/// CLOCK_MONOTONIC ns, `kind`: audio or text). It does not sync to the
/// clock (bench sets sync=false): the time is when an audio sink would
/// start playing it. Registered in-process by the bench only.
final class BenchSinkElement: Sink {
    static let metadata = ElementMetadata(
        factoryName: "parleybenchsink", typeName: "GstParleyBenchSink", longName: "Parley bench output probe",
        klass: "Sink", description: "Notes when each segment's first output leaves the pipeline (parley bench)")
    static let pads = PadTemplates(sink: "ANY")
    static let properties: [PropertySpec] = []
    static let waitsForPreroll = false

    /// What one run has seen; replaced whole by `start`.
    struct State {
        var isAudio = true
        var seen: Set<UInt64> = []
    }

    let element: ElementHandle
    private let state = Mutex(State())

    init(element: ElementHandle) { self.element = element }
    func property(named name: String) -> PropertyValue { .int(0) }
    func setProperty(named name: String, to value: PropertyValue) {}
    func start() throws(ElementMessageText) { state.withLock { $0 = State() } }

    func sinkEvent(_ event: Event) {
        if case .caps(let caps) = event.view {
            let isAudio = caps.description.hasPrefix("audio/")
            state.withLock { $0.isAudio = isAudio }
        }
    }

    func render(_ buffer: Buffer) throws(FlowError) {
        let at = MonotonicClock.nanoseconds()
        guard let meta = buffer.speechMeta else { return }
        let (first, isAudio) = state.withLock { state -> (Bool, Bool) in
            // Text counts once final; audio from its first buffer.
            guard state.isAudio || meta.status == .final else { return (false, state.isAudio) }
            return (state.seen.insert(meta.segmentID).inserted, state.isAudio)
        }
        guard first else { return }
        element.postElementMessage(BenchOutputMessage(segmentID: meta.segmentID, at: at, kind: isAudio ? .audio : .text).structure)
    }
}

/// `parley/output` (the bench's sink): a segment's first output left the pipeline.
struct BenchOutputMessage: StructureContract, Equatable {
    enum Kind: String, Sendable {
        case audio, text
    }

    var segmentID: UInt64
    /// CLOCK_MONOTONIC ns.
    var at: UInt64
    var kind: Kind

    static let doc = StructureDoc(.message, "parley/output", when: "per segment, when its first output reaches the sink", fields: [
        SpeechDocs.segmentID,
        .init("at", .uint64, "CLOCK_MONOTONIC instant it arrived (ns)"),
        .init("kind", .string, "audio (a spoken answer's first buffer) or text (a final text result)"),
    ])

    var structure: Structure {
        Structure(Self.name, [("segment-id", .uint64(segmentID)), ("at", .uint64(at)), ("kind", .string(kind.rawValue))])
    }

    init(segmentID: UInt64, at: UInt64, kind: Kind) {
        self.segmentID = segmentID
        self.at = at
        self.kind = kind
    }

    init?(_ structure: Structure) {
        guard structure.name == Self.name, case .uint64(let id)? = structure["segment-id"],
              case .uint64(let at)? = structure["at"] else { return nil }
        self.init(segmentID: id, at: at, kind: structure["kind"]?.string.flatMap(Kind.init(rawValue:)) ?? .audio)
    }
}
