import Foundation
import GstKit
import Synchronization

/// Pushes its `texts` (separated by |), one buffer each: sentences for the
/// translation benchmark.
final class TextSource: Source {
    static let metadata = ElementMetadata(
        factoryName: "parleybenchtext", typeName: "ParleyBenchTextSource", longName: "Benchmark text source",
        klass: "Source/Text", description: "Pushes one text buffer per |-separated text")
    static let pads = PadTemplates(src: "text/x-raw, format=(string)utf8")
    static let properties = [
        PropertySpec("texts", nick: "Texts", blurb: "Texts separated by |", .string(default: "")),
        PropertySpec("interval-ms", nick: "Interval", blurb: "Real time to wait before each text after the first",
                     .int(default: 0, range: 0...60_000)),
    ]

    let element: ElementHandle
    private let texts = Mutex<[String]>([])
    private let next = Atomic<Int>(0)
    init(element: ElementHandle) { self.element = element }

    private let interval = Atomic<Int>(0)

    func property(named name: String) -> PropertyValue {
        name == "interval-ms" ? .int(interval.load(ordering: .relaxed)) : .string(texts.withLock { $0.joined(separator: "|") })
    }
    func setProperty(named name: String, to value: PropertyValue) {
        if name == "interval-ms" { interval.store(value.int, ordering: .relaxed); return }
        texts.withLock { $0 = (value.string ?? "").split(separator: "|").map(String.init) }
    }
    func start() throws(ElementMessageText) { next.store(0, ordering: .relaxed) }

    func create() throws(FlowError) -> Buffer {
        let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
        let all = texts.withLock { $0 }
        guard index < all.count else { throw .eos }
        if index > 0 && interval.load(ordering: .relaxed) > 0 { usleep(useconds_t(interval.load(ordering: .relaxed) * 1000)) }
        let buffer = Buffer(string: all[index])
        buffer.pts = UInt64(index) * Gst.second
        buffer.duration = Gst.second
        return buffer
    }
}
