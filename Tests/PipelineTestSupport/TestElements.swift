// Elements that exist only in the tests: a numbered source, an async stage
// with random service times, and a sink that records what reaches it. They
// are registered in-process and run in real GStreamer pipelines. A target
// of their own, so every element's test target can use them.
import Foundation
import GstKit
import ParleyCore
import ParleySpeech
import Synchronization

/// What the test elements saw, by element name.
public final class TestRecords: Sendable {
    public static let shared = TestRecords()
    public struct Record: Sendable {
        public var produced = 0
        public var received: [UInt64] = []
        public var statuses: [SpeechStatus] = []
        public var maxGap = 0
    }
    private let records = Mutex<[String: Record]>([:])
    public func update(_ name: String, _ body: (inout Record) -> Void) {
        records.withLock { body(&$0[name, default: Record()]) }
    }
    public func reset() { records.withLock { $0.removeAll() } }
    /// Cancellations seen by work, by element name; never reset, so a test
    /// running beside another that resets the records still sees its own.
    private let cancellations = Mutex<[String: Int]>([:])
    public func cancelled(_ name: String) { cancellations.withLock { $0[name, default: 0] += 1 } }
    public func cancellationCount(_ name: String) -> Int { cancellations.withLock { $0[name] ?? 0 } }
    public func record(_ name: String) -> Record { records.withLock { $0[name] ?? Record() } }
    /// How many buffers sources have produced in total, for gap tracking.
    public func produced(_ name: String) -> Int { record(name).produced }
}

public final class NumberSource: Source {
    public static let metadata = ElementMetadata(
        factoryName: "parleytestsrc", typeName: "ParleyTestNumberSource", longName: "Test number source",
        klass: "Source/Text", description: "Pushes count numbered text buffers")
    public static let pads = PadTemplates(src: "text/x-raw, format=(string)utf8")
    public static let properties = [
        PropertySpec("count", nick: "Count", blurb: "Buffers to push", .int(default: 10, range: 0...1_000_000)),
        PropertySpec("prefix", nick: "Prefix", blurb: "Text before each buffer's number", .string(default: "")),
        PropertySpec("spacing-ms", nick: "Spacing", blurb: "PTS step between buffers", .int(default: 10, range: 0...100_000)),
        PropertySpec("texts", nick: "Texts", blurb: "Buffers' texts separated by |, instead of numbers", .string(default: "")),
        PropertySpec("interval-ms", nick: "Interval", blurb: "Real time to wait before each buffer after the first",
                     .int(default: 0, range: 0...100_000)),
        PropertySpec("gate", nick: "Gate", blurb: "Before buffer gate-before, wait until the test opens the gate of this name",
                     .string(default: "")),
        PropertySpec("gate-before", nick: "Gate before", blurb: "The buffer the gate holds back", .int(default: 0, range: 0...1_000_000)),
        PropertySpec("fail-debug", nick: "Fail with details",
                     blurb: "Instead of a first buffer, a stream error (failed) with these details, as decodebin posts one",
                     .string(default: "")),
    ]

    /// Gates the test has opened (`NumberSource.open`).
    public static let openGates = Mutex<Set<String>>([])
    public static func open(gate: String) { _ = openGates.withLock { $0.insert(gate) } }

    public let element: ElementHandle
    private let count = Atomic<Int>(10)
    private let next = Atomic<Int>(0)
    private let spacing = Atomic<Int>(10)
    private let prefix = Mutex("")
    private let texts = Mutex<[String]>([])
    private let interval = Atomic<Int>(0)
    private let gate = Mutex("")
    private let gateBefore = Atomic<Int>(0)
    private let failDebug = Mutex("")
    public init(element: ElementHandle) { self.element = element }

    public func property(named name: String) -> PropertyValue {
        switch name {
        case "prefix": .string(prefix.withLock { $0 })
        case "spacing-ms": .int(spacing.load(ordering: .relaxed))
        case "texts": .string(texts.withLock { $0.joined(separator: "|") })
        case "interval-ms": .int(interval.load(ordering: .relaxed))
        case "gate": .string(gate.withLock { $0 })
        case "gate-before": .int(gateBefore.load(ordering: .relaxed))
        case "fail-debug": .string(failDebug.withLock { $0 })
        default: .int(count.load(ordering: .relaxed))
        }
    }
    public func setProperty(named name: String, to value: PropertyValue) {
        switch name {
        case "prefix": prefix.withLock { $0 = value.string ?? "" }
        case "spacing-ms": spacing.store(value.int, ordering: .relaxed)
        case "texts":
            let list = (value.string ?? "").split(separator: "|").map(String.init)
            texts.withLock { $0 = list }
            count.store(list.count, ordering: .relaxed)
        case "interval-ms": interval.store(value.int, ordering: .relaxed)
        case "gate": gate.withLock { $0 = value.string ?? "" }
        case "gate-before": gateBefore.store(value.int, ordering: .relaxed)
        case "fail-debug": failDebug.withLock { $0 = value.string ?? "" }
        default: count.store(value.int, ordering: .relaxed)
        }
    }
    public func start() throws(ElementMessageText) { next.store(0, ordering: .relaxed) }

    public func create() throws(FlowError) -> Buffer {
        let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
        let failDebug = failDebug.withLock { $0 }
        if !failDebug.isEmpty {
            // GST_STREAM_ERROR_FAILED is 1.
            element.postError(ElementMessageText("GStreamer encountered a general stream error.", debug: failDebug,
                                                 domain: .stream, code: 1))
            throw .error
        }
        guard index < count.load(ordering: .relaxed) else { throw .eos }
        if index > 0 && interval.load(ordering: .relaxed) > 0 { usleep(useconds_t(interval.load(ordering: .relaxed) * 1000)) }
        let gate = gate.withLock { $0 }
        if !gate.isEmpty && index == gateBefore.load(ordering: .relaxed) {
            while !Self.openGates.withLock({ $0.contains(gate) }) { usleep(10_000) }
        }
        let list = texts.withLock { $0 }
        let buffer = Buffer(string: list.isEmpty ? prefix.withLock { $0 } + "\(index)" : list[index])
        let step = UInt64(spacing.load(ordering: .relaxed)) * Gst.millisecond
        buffer.offset = UInt64(index)
        buffer.pts = UInt64(index) * step
        buffer.duration = step
        TestRecords.shared.update(element.name) { $0.produced += 1 }
        return buffer
    }
}

public final class RandomDelayStage: AsyncTransform {
    public static let metadata = ElementMetadata(
        factoryName: "parleytestasync", typeName: "ParleyTestRandomDelayStage", longName: "Test async stage",
        klass: "Filter/Text", description: "Answers each buffer after a random service time, through AsyncStage")
    public static let pads = PadTemplates(sink: "text/x-raw, format=(string)utf8", src: "text/x-raw, format=(string)utf8")
    public static let properties = QueueProperties.specs(defaultMaxInFlight: 2) + [
        PropertySpec("max-service-us", nick: "Max service time", blurb: "Longest random service time",
                     .int(default: 1000, range: 0...10_000_000)),
    ]

    public struct Settings {
        public var configuration = QueueProperties.defaults(maxInFlight: 2)
        public var maxServiceMicros = 1000
    }

    public let element: ElementHandle
    private let settings = Mutex(Settings())
    public let stage: AsyncStage
    public static let log = DebugCategory("parleytestasync", description: "test async stage")

    public init(element: ElementHandle) {
        self.element = element
        stage = AsyncStage(element: element, log: Self.log, defaultLatencyMs: 0)
    }

    public func property(named name: String) -> PropertyValue {
        if let figure = stage.statisticsProperty(name) { return figure }
        let current = settings.withLock { $0 }
        if let queue = QueueProperties.property(name, of: current.configuration) { return queue }
        return name == "max-service-us" ? .int(current.maxServiceMicros) : .int(0)
    }

    public var queueConfiguration: AsyncStage.Queue.Configuration { settings.withLock { $0.configuration } }

    public func setProperty(named name: String, to value: PropertyValue) {
        settings.withLock { settings in
            if QueueProperties.set(name, value, in: &settings.configuration) { return }
            if name == "max-service-us" { settings.maxServiceMicros = value.int }
        }
    }

    public func accept(_ buffer: Buffer) -> [StageWork] {
        let maxService = settings.withLock { $0.maxServiceMicros }
        let id = buffer.offset
        let text = buffer.text
        let pts = buffer.pts
        let source = element.name
        return [StageWork({
            if maxService > 0 {
                do {
                    try await Task.sleep(nanoseconds: UInt64.random(in: 0...UInt64(maxService)) * 1000)
                } catch {
                    TestRecords.shared.cancelled(source)
                }
            }
            let out = Buffer(string: text)
            out.offset = id
            out.pts = pts
            out.setSpeechMeta(SpeechMeta(segmentID: id, status: .final, language: "en"))
            return StageOutput(buffers: [out], messages: [Structure("parley/transcript", [
                ("segment-id", .uint64(id)), ("text", .string(text)), ("status", .string("final")),
            ])])
        }, placeholder: { reason in
            let out = Buffer(string: "")
            out.offset = id
            out.pts = pts
            out.setSpeechMeta(SpeechMeta(segmentID: id, status: .skipped))
            return StageOutput(buffers: [out], warning: ElementMessageText(
                "\(source): segment \(id) skipped, queue full (\(reason.rawValue))"))
        })]
    }
}

public final class RecordingSink: Sink {
    public static let metadata = ElementMetadata(
        factoryName: "parleytestsink", typeName: "ParleyTestRecordingSink", longName: "Test recording sink",
        klass: "Sink/Text", description: "Records the offset and status of every buffer")
    public static let pads = PadTemplates(sink: "text/x-raw, format=(string)utf8")
    public static let properties = [
        PropertySpec("source", nick: "Source", blurb: "The parleytestsrc whose production the gap is measured against",
                     .string(default: "")),
    ]

    public let element: ElementHandle
    private let source = Mutex("")
    public init(element: ElementHandle) { self.element = element }

    public func property(named name: String) -> PropertyValue { .string(source.withLock { $0 }) }
    public func setProperty(named name: String, to value: PropertyValue) { source.withLock { $0 = value.string ?? "" } }

    public func render(_ buffer: Buffer) throws(FlowError) {
        let sourceName = source.withLock { $0 }
        let produced = sourceName.isEmpty ? 0 : TestRecords.shared.produced(sourceName)
        let status = buffer.speechMeta?.status ?? .final
        TestRecords.shared.update(element.name) { record in
            record.received.append(buffer.offset)
            record.statuses.append(status)
            record.maxGap = max(record.maxGap, produced - record.received.count)
        }
    }
}

/// Records the text, status and revision of every text buffer that reaches it.
public final class TextRecordingSink: Sink {
    public static let metadata = ElementMetadata(
        factoryName: "parleytesttextsink", typeName: "ParleyTestTextRecordingSink", longName: "Test text sink",
        klass: "Sink/Text", description: "Records the text, status and revision of every buffer")
    public static let pads = PadTemplates(sink: "text/x-raw, format=(string)utf8")

    public struct Entry: Sendable, Equatable {
        public var text: String
        public var status: SpeechStatus
        public var revision: UInt32
    }
    public static let recorded = Mutex<[String: [Entry]]>([:])

    public let element: ElementHandle
    public init(element: ElementHandle) { self.element = element }

    public func render(_ buffer: Buffer) throws(FlowError) {
        let meta = buffer.speechMeta
        let entry = Entry(text: buffer.text, status: meta?.status ?? .final, revision: meta?.revision ?? 0)
        Self.recorded.withLock { $0[element.name, default: []].append(entry) }
    }

    public static func take(_ name: String) -> [Entry] { recorded.withLock { $0.removeValue(forKey: name) ?? [] } }
}

/// Records the timestamps and samples of the audio that reaches it.
public final class AudioRecordingSink: Sink {
    public static let metadata = ElementMetadata(
        factoryName: "parleytestaudiosink", typeName: "ParleyTestAudioRecordingSink", longName: "Test audio sink",
        klass: "Sink/Audio", description: "Records the span and samples of every audio buffer")
    public static let pads = PadTemplates(sink: "audio/x-raw, format=(string)S16LE, channels=(int)1")

    public struct Span: Sendable, Equatable {
        public var pts: UInt64
        public var duration: UInt64
        public var segment: UInt64?
        /// The rate of the caps in force when the buffer arrived.
        public var rate = 0
        public var end: UInt64 { pts + duration }
    }
    public static let recorded = Mutex<[String: (spans: [Span], samples: [Int16])]>([:])

    public let element: ElementHandle
    public let rate = Mutex(0)
    public init(element: ElementHandle) { self.element = element }

    public func sinkEvent(_ event: Event) {
        if case .caps(let caps) = event.view, let format = AudioFormat(caps: caps) { rate.withLock { $0 = format.rate } }
    }

    public func render(_ buffer: Buffer) throws(FlowError) {
        let span = Span(pts: buffer.pts, duration: buffer.duration, segment: buffer.speechMeta?.segmentID,
                        rate: rate.withLock { $0 })
        let samples = buffer.int16Samples
        Self.recorded.withLock { all in
            var entry = all[element.name] ?? ([], [])
            entry.spans.append(span)
            entry.samples += samples
            all[element.name] = entry
        }
    }

    public static func take(_ name: String) -> (spans: [Span], samples: [Int16]) {
        recorded.withLock { $0.removeValue(forKey: name) ?? ([], []) }
    }
}

/// Request-pad fan-out: every buffer goes to every src_%u pad.
public final class TestFanOut: FanOut {
    public static let metadata = ElementMetadata(
        factoryName: "parleytestfanout", typeName: "ParleyTestFanOut", longName: "Test fan-out",
        klass: "Generic", description: "Copies each buffer to every requested src pad")
    public static let pads = PadTemplates(sink: "text/x-raw, format=(string)utf8", requestSrc: "text/x-raw, format=(string)utf8")

    public let element: ElementHandle
    public init(element: ElementHandle) { self.element = element }
}

public let testElements: [any ElementImpl.Type] = [NumberSource.self, RandomDelayStage.self, RecordingSink.self,
                                                   AudioRecordingSink.self, TestFanOut.self, TextRecordingSink.self]
