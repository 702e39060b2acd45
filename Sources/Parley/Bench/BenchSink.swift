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
        element.postElementMessage(Structure("parley/output", [
            ("segment-id", .uint64(meta.segmentID)), ("at", .uint64(at)), ("kind", .string(isAudio ? "audio" : "text")),
        ]))
    }
}
