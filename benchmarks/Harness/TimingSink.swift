import GstKit
import ParleyCore
import Synchronization

/// A sink that notes when the first buffer arrived and how much audio came.
final class TimingSink: Sink {
    static let metadata = ElementMetadata(
        factoryName: "parleytimingsink", typeName: "ParleyBenchTimingSink", longName: "Timing sink",
        klass: "Sink/Audio", description: "Records first-buffer time and audio length for benchmarks")
    static let pads = PadTemplates(sink: "audio/x-raw")

    struct Figures: Sendable {
        var firstBufferAt: UInt64 = 0
        var bytes = 0
    }
    static let figures = Mutex<[String: Figures]>([:])

    let element: ElementHandle
    init(element: ElementHandle) { self.element = element }

    func render(_ buffer: Buffer) throws(FlowError) {
        let now = MonotonicClock.nanoseconds()
        let size = buffer.size
        Self.figures.withLock { all in
            var entry = all[element.name] ?? Figures()
            if entry.firstBufferAt == 0 { entry.firstBufferAt = now }
            entry.bytes += size
            all[element.name] = entry
        }
    }

    static func take(_ name: String) -> Figures {
        figures.withLock { $0.removeValue(forKey: name) ?? Figures() }
    }
}
