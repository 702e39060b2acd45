// espeaktts: speaks text results with espeak-ng.
//
//     gst-launch-1.0 filesrc location=hello.txt ! text/x-raw,format=utf8 \
//         ! espeaktts voice=en-us ! audioconvert ! autoaudiosink
//
// Speaks finals (and buffers with no ParleySpeechMeta); ignores partials,
// failed and skipped results. Audio streams out as espeak-ng makes it, so the
// first audio leaves long before a sentence is done. The output keeps the
// input's time domain: a result is spoken from its text's PTS, or right
// after the previous speech if that is later (`overlap=queue`); with
// `overlap=interrupt` a new result cuts the speech in progress (barge-in).
// With no voice set, the voice follows the language in the meta or the
// stream's language tag. `parley/tts-word` and `parley/tts-sentence`
// messages mark each word and sentence (offset in stream time, position in
// the text), so an application can highlight what is being spoken.
import CGStreamer
import EspeakEngine
import Foundation
import GstKit
import ParleyCore
import Synchronization

public enum OverlapPolicy: Int, Sendable {
    case queue = 0
    case interrupt = 1
}

public final class EspeakTTSElement: Element {
    // Voice, rate, pitch, volume, gap and ssml: see EspeakSettings' DEFAULT_*.
    public static let DEFAULT_OVERLAP = OverlapPolicy.queue

    public static let metadata = ElementMetadata(
        factoryName: "espeaktts", typeName: "GstParleyEspeakTTS",
        longName: "espeak-ng text to speech", klass: "Codec/Decoder/Audio/Converter",
        description: "Speaks text results with espeak-ng, streaming audio as it is synthesized, in the input's time domain",
        example: "gst-launch-1.0 fdsrc ! text/x-raw,format=utf8 ! espeaktts voice=en-us ! audioconvert ! wavenc ! filesink location=speech.wav")
    public static let pads = PadTemplates(
        sink: "text/x-raw, format=(string)utf8",
        src: "audio/x-raw, format=(string)S16LE, layout=(string)interleaved, channels=(int)1, rate=(int)22050")

    public static let properties = EspeakSettings.specs + [
        PropertySpec("overlap", nick: "Overlap", blurb: "What a new result does to speech still in progress",
                     .enumeration(typeName: "GstParleyTTSOverlap", values: [
                        EnumValue(0, "queue", "Speak it after the current speech"),
                        EnumValue(1, "interrupt", "Cut the current speech and speak it now (barge-in)"),
                     ], default: DEFAULT_OVERLAP.rawValue)),
        PropertySpec("utterances", nick: "Utterances", blurb: "Results spoken since the element started",
                     .uint64(default: 0, range: 0...UInt64.max), flags: .readOnly),
    ]

    static let log = DebugCategory("espeaktts", description: "Parley espeak-ng text to speech")

    struct Settings {
        var speech = EspeakSettings()
        var overlap = DEFAULT_OVERLAP
    }

    public let element: ElementHandle
    private let settings = Mutex(Settings())
    private let speaker: Speaker

    public init(element: ElementHandle) {
        self.element = element
        speaker = Speaker(element: element, log: Self.log)
    }

    public func property(named name: String) -> PropertyValue {
        let current = settings.withLock { $0 }
        switch name {
        case "overlap": return .enumeration(current.overlap.rawValue)
        case "utterances": return .uint64(speaker.utterances)
        default: return current.speech.property(named: name)
        }
    }

    public func setProperty(named name: String, to value: PropertyValue) {
        settings.withLock { settings in
            if name == "overlap" { settings.overlap = OverlapPolicy(rawValue: value.int) ?? Self.DEFAULT_OVERLAP }
            else { settings.speech.set(name, value) }
        }
    }

    public func changeState(_ transition: GstStateChange, after: Bool) -> StateChangeResult {
        switch (transition, after) {
        case (GST_STATE_CHANGE_NULL_TO_READY, false):
            let voice = settings.withLock { $0.speech.parameters.voice }
            do {
                try EspeakSettings.checkEngine(voice: voice)
            } catch {
                element.postError(.settings(error.description, debug: "property voice"))
                return .failure
            }
            Self.log.info("espeak-ng at \(EspeakEngine.shared.sampleRate) Hz, voice \(voice.isEmpty ? "by language" : voice)", object: element)
        case (GST_STATE_CHANGE_READY_TO_PAUSED, false):
            speaker.start()
        case (GST_STATE_CHANGE_PAUSED_TO_READY, true):
            speaker.stop()
        default:
            break
        }
        return .success
    }

    public func chain(pad: Pad, buffer: Buffer) -> GstFlowReturn {
        let meta = buffer.speechMeta
        if let status = meta?.status, status != .final { return FlowReturn.ok }
        let current = settings.withLock { $0 }
        let text = buffer.text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { return FlowReturn.ok }
        let job = Speaker.Job(text: text, pts: buffer.pts, meta: meta, parameters: current.speech.parameters,
                              receivedAt: MonotonicClock.nanoseconds())
        return speaker.speak(job, interrupt: current.overlap == .interrupt)
    }

    public func event(pad: Pad, event: Event) -> Bool {
        guard pad.isSink else { return pad.forwardDefault(event, parent: element) }
        switch event.type {
        case GST_EVENT_CAPS:
            return true  // text caps stay here; the speaker pushes audio caps
        case GST_EVENT_TAG:
            if let language = TagReader.languageCode(event) { speaker.streamLanguage = language }
            return speaker.forward(event)
        case GST_EVENT_FLUSH_START:
            speaker.flush()
            return pad.forwardDefault(event, parent: element)
        case GST_EVENT_FLUSH_STOP:
            speaker.resume()
            return pad.forwardDefault(event, parent: element)
        default:
            if event.isSerialized { return speaker.forward(event) }
            return pad.forwardDefault(event, parent: element)
        }
    }
}
