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
    ]

    let element: ElementHandle
    private let texts = Mutex<[String]>([])
    private let next = Atomic<Int>(0)
    init(element: ElementHandle) { self.element = element }

    func property(named name: String) -> PropertyValue { .string(texts.withLock { $0.joined(separator: "|") }) }
    func setProperty(named name: String, to value: PropertyValue) {
        texts.withLock { $0 = (value.string ?? "").split(separator: "|").map(String.init) }
    }
    func start() throws(ElementMessageText) { next.store(0, ordering: .relaxed) }

    func create() throws(FlowError) -> Buffer {
        let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
        let all = texts.withLock { $0 }
        guard index < all.count else { throw .eos }
        let buffer = Buffer(string: all[index])
        buffer.pts = UInt64(index) * Gst.second
        buffer.duration = Gst.second
        return buffer
    }
}
