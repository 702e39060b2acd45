// espeaksrc: a source that speaks its `text` property with espeak-ng, for
// gst-launch one-liners and tests.
//
//     gst-launch-1.0 espeaksrc text="go forward ten meters" voice=en-us \
//         ! audioconvert ! wavenc ! filesink location=go.wav
//
// Audio streams out as espeak-ng makes it, then EOS.
import EspeakEngine
import EspeakProperties
import Foundation
import GstKit
import ParleyCore
import Synchronization

public final class EspeakSrcElement: Source {
    public static let DEFAULT_TEXT = "Hello from Parley."

    public static let metadata = ElementMetadata(
        factoryName: "espeaksrc", typeName: "GstEspeakSrc",
        longName: "espeak-ng speech source", klass: "Source/Audio",
        description: "Speaks its text property with espeak-ng",
        docURI: Release.documentation(for: "espeaksrc"),
        example: "gst-launch-1.0 espeaksrc text=\"go forward ten meters\" ! audioconvert ! wavenc ! filesink location=go.wav")
    public static let pads = PadTemplates(
        src: "audio/x-raw, format=(string)S16LE, layout=(string)interleaved, channels=(int)1, rate=(int)22050")
    public static let properties = [
        PropertySpec("text", nick: "Text", blurb: "What to say (SSML if ssml=true)", .string(default: DEFAULT_TEXT)),
    ] + EspeakSettings.specs


    struct Settings {
        var text = DEFAULT_TEXT
        var speech = EspeakSettings()
    }

    private struct Chunk: Sendable { var samples: [Int16] }

    public let element: ElementHandle
    private let settings = Mutex(Settings())
    private let chunks = Mutex<BlockingQueue<Chunk>?>(nil)
    private let produced = Atomic<UInt64>(0)
    private let stopRequested = Flag()

    public init(element: ElementHandle) { self.element = element }

    public func property(named name: String) -> PropertyValue {
        let current = settings.withLock { $0 }
        return name == "text" ? .string(current.text) : current.speech.property(named: name)
    }

    public func setProperty(named name: String, to value: PropertyValue) {
        settings.withLock { settings in
            if name == "text" { settings.text = value.string ?? "" } else { settings.speech.set(name, value) }
        }
    }

    public func start() throws(ElementMessageText) {
        let current = settings.withLock { $0 }
        do {
            try EspeakSettings.checkEngine(voice: current.speech.parameters.voice)
        } catch {
            throw .settings(error.description, debug: "property voice")
        }
        let queue = BlockingQueue<Chunk>()
        chunks.withLock { $0 = queue }
        produced.store(0, ordering: .relaxed)
        stopRequested.set(false)
        let element = element
        // A thread of its own, not `.global()` (Swift concurrency's pool, as
        // wide as the cores): synthesis runs for as long as the text and
        // waits for espeak-ng's global lock while another element speaks.
        let producer = Thread { [stopRequested] in
            do {
                try EspeakEngine.shared.synthesize(current.text, parameters: current.speech.parameters) { samples, _ in
                    if !samples.isEmpty { queue.put(Chunk(samples: Array(samples))) }
                    return !stopRequested.isSet
                }
            } catch {
                element.postError(.stream("espeak-ng could not speak the text: \(error)"))
            }
            queue.close()
        }
        producer.name = "espeaksrc"
        producer.start()
    }

    public func stop() {
        stopRequested.set()
        chunks.withLock { $0?.close() }
    }

    public func unlock() {
        // Flushing: wake create() without losing the stream position.
        stopRequested.set()
        chunks.withLock { $0?.close() }
    }

    public func create() throws(FlowError) -> Buffer {
        guard let queue = chunks.withLock({ $0 }), let chunk = queue.take() else {
            throw stopRequested.isSet ? .flushing : .eos
        }
        let rate = UInt64(EspeakEngine.shared.sampleRate)
        let before = produced.add(UInt64(chunk.samples.count), ordering: .relaxed).oldValue
        let buffer = Buffer(samples: chunk.samples)
        buffer.pts = before * Gst.second / rate
        buffer.duration = (before + UInt64(chunk.samples.count)) * Gst.second / rate - buffer.pts
        buffer.offset = before
        return buffer
    }
}
