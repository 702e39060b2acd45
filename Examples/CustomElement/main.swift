// A complete element written on GstKit's Filter kind, registered in
// this process and run in a real pipeline: `swift run parley-custom-element-example`.
//
// `gain` scales S16LE audio by its `gain` property and posts a
// `example/peak` element message with each buffer's peak. Like
// gst-plugins-rs' BaseTransformImpl, it returns what to push; GstKit pushes.
import Foundation
import GstKit
import Parley
import Synchronization

final class Gain: Filter {
    static let DEFAULT_GAIN = 1.0

    static let metadata = ElementMetadata(
        factoryName: "gain", typeName: "ExampleGain", longName: "Gain", klass: "Filter/Effect/Audio",
        description: "Scales 16-bit audio by a factor",
        example: "gst-launch-1.0 audiotestsrc num-buffers=10 ! audio/x-raw,format=S16LE,channels=1 ! gain gain=0.5 ! fakesink")
    static let pads = PadTemplates(sink: "audio/x-raw, format=(string)S16LE, layout=(string)interleaved",
                                   src: "audio/x-raw, format=(string)S16LE, layout=(string)interleaved")
    static let properties = [
        PropertySpec("gain", nick: "Gain", blurb: "Factor every sample is multiplied by",
                     .double(default: DEFAULT_GAIN, range: 0...16), flags: [.readWrite, .mutablePlaying]),
    ]

    struct Settings { var gain = DEFAULT_GAIN }

    let element: ElementHandle
    private let settings = Mutex(Settings())
    init(element: ElementHandle) { self.element = element }

    func property(named name: String) -> PropertyValue { .double(settings.withLock { $0.gain }) }
    func setProperty(named name: String, to value: PropertyValue) { settings.withLock { $0.gain = value.double } }

    func transform(_ buffer: Buffer) -> [Output] {
        let gain = settings.withLock { $0.gain }
        let scaled = buffer.int16Samples.map { Int16(clamping: Int((Double($0) * gain).rounded())) }
        let output = Buffer(samples: scaled)
        output.pts = buffer.pts
        output.duration = buffer.duration
        let peak = scaled.lazy.map { abs(Int($0)) }.max() ?? 0
        element.postElementMessage(Structure("example/peak", [("peak", .int(peak))]))
        return [.buffer(output)]
    }
}

Parley.register([Gain.self])
let gain = CommandLine.arguments.dropFirst().first ?? "0.5"
do {
    let pipeline = try Pipeline(launch: """
        audiotestsrc num-buffers=20 volume=0.5 wave=square ! audio/x-raw,format=S16LE,channels=1,rate=16000
        ! gain name=gain gain=\(gain) ! fakesink
        """)
    var peaks: [Int] = []
    try await pipeline.run { event in
        if case .elementMessage(_, let structure) = event, structure.name == "example/peak", let peak = structure["peak"]?.int {
            peaks.append(peak)
        }
    }
    print("buffers \(peaks.count), peak \(peaks.max() ?? 0) of 32767 at gain \(gain)")
} catch {
    print("error: \(error)")
    exit(1)
}
