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
// `overlap=interrupt` a result of a new segment cuts the speech in progress and
// drops what is queued (barge-in; the sentences of one segment do not cut
// each other: SpeechTimeline, the rules cloudtts follows too); with
// `overlap=compress` a result whose speech would start more than 0.5 s
// after its speaker stopped is spoken faster (espeak-ng's rate, up to 1.5×)
// until the speech has caught up.
// With no voice set, the voice follows the language in the meta or the
// stream's language tag. `parley/tts-word` and `parley/tts-sentence`
// messages mark each word and sentence (offset in stream time, position in
// the text), so an application can highlight what is being spoken.
//
// It is an async transform: each result is one piece of work on the
// framework's ordered stage (one at a time: espeak-ng is process-global),
// whose audio chunks leave as partial outputs while it is synthesized.
import EspeakEngine
import EspeakProperties
import Foundation
import GstKit
import ParleyCore
import ParleySpeech
import Synchronization

public final class EspeakTTSElement: AsyncTransform {
    // Voice, rate, pitch, volume, gap and ssml: see EspeakSettings' DEFAULT_*.
    public static let DEFAULT_OVERLAP = SpeechOverlap.queue
    /// Results waiting to be spoken before the streaming thread waits.
    static let maxWaitingResults = 32

    public static let metadata = ElementMetadata(
        factoryName: "espeaktts", typeName: "GstEspeakTTS",
        longName: "espeak-ng text to speech", klass: "Audio/Text/Filter",
        description: "Speaks text results with espeak-ng, streaming audio as it is synthesized, in the input's time domain",
        docURI: Release.documentation(for: "espeaktts"),
        example: "gst-launch-1.0 fdsrc ! text/x-raw,format=utf8 ! espeaktts voice=en-us ! audioconvert ! wavenc ! filesink location=speech.wav")
    public static let pads = PadTemplates(
        sink: "text/x-raw, format=(string)utf8",
        src: "audio/x-raw, format=(string)S16LE, layout=(string)interleaved, channels=(int)1, rate=(int)22050")

    public static let properties = EspeakSettings.specs + [
        PropertySpec("overlap", nick: "Overlap", blurb: "What a new result does to speech still in progress",
                     .enumeration(typeName: SpeechOverlap.typeName, values: SpeechOverlap.values, default: DEFAULT_OVERLAP.rawValue)),
        PropertySpec("utterances", nick: "Utterances", blurb: "Results spoken since the element started",
                     .uint64(default: 0, range: 0...UInt64.max), flags: .readOnly),
        QueueProperties.latencySpec(defaultMs: DEFAULT_LATENCY_MS),
    ]
    /// espeak-ng's first audio of a sentence.
    public static let DEFAULT_LATENCY_MS = 200


    struct Settings {
        var speech = EspeakSettings()
        var overlap = DEFAULT_OVERLAP
    }

    public let element: ElementHandle
    public let stage: AsyncStage
    private let settings = Mutex(Settings())
    /// Placement, barge-in and the stream's language (SpeechTimeline), replaced whole on start.
    private let timeline = SpeechTimeline.Shared()
    private let spoken = Atomic<UInt64>(0)

    public init(element: ElementHandle) {
        self.element = element
        stage = AsyncStage(element: element, log: Self.log, defaultLatencyMs: Self.DEFAULT_LATENCY_MS)
    }

    public var queueConfiguration: AsyncStage.Queue.Configuration {
        AsyncStage.Queue.Configuration(maxInFlight: 1, maxPending: Self.maxWaitingResults, policy: .block,
                                       keepsEveryPartial: true)
    }

    public func property(named name: String) -> PropertyValue {
        let current = settings.withLock { $0 }
        switch name {
        case "overlap": return .enumeration(current.overlap.rawValue)
        case "utterances": return .uint64(spoken.load(ordering: .relaxed))
        case "latency": return stage.latencyProperty
        default: return current.speech.property(named: name)
        }
    }

    public func setProperty(named name: String, to value: PropertyValue) {
        if stage.setCommonProperty(name, value) { return }
        settings.withLock { settings in
            if name == "overlap" { settings.overlap = SpeechOverlap(rawValue: value.int) ?? Self.DEFAULT_OVERLAP }
            else { settings.speech.set(name, value) }
        }
    }

    public func open() throws(ElementMessageText) {
        let voice = settings.withLock { $0.speech.parameters.voice }
        do {
            try EspeakSettings.checkEngine(voice: voice)
        } catch {
            throw .settings(error.description, debug: "property voice")
        }
        Self.log.info("espeak-ng at \(EspeakEngine.shared.sampleRate) Hz, voice \(voice.isEmpty ? "by language" : voice)", object: element)
    }

    public func start() throws(ElementMessageText) {
        spoken.store(0, ordering: .relaxed)
        timeline.reset(SpeechTimeline())
    }

    public func accept(_ buffer: Buffer) -> [StageWork] {
        let number = timeline.withLock { $0.receive() }
        // A result with no meta (plain text) is numbered in arrival order.
        let meta = buffer.speechMeta ?? SpeechMeta(segmentID: number)
        if meta.status == .partial { return [] }
        let current = settings.withLock { $0 }
        // espeak-ng reads a C string: a NUL would end the text there, silently.
        let text = buffer.text.replacingOccurrences(of: "\0", with: " ").trimmingCharacters(in: .whitespacesAndNewlines)
        guard meta.status == .final, !text.isEmpty else { return [timeline.unspoken(at: buffer.pts)] }
        let generation = timeline.withLock { $0.accept(segment: meta.segmentID, overlap: current.overlap) }
        return [work(Utterance(text: text, pts: buffer.pts, meta: meta, parameters: current.speech.parameters,
                               overlap: current.overlap,
                               receivedAt: MonotonicClock.nanoseconds(), generation: generation))]
    }

    public func sinkEvent(_ event: Event) -> [StageWork] {
        switch event.view {
        case .tag(let language?):
            timeline.withLock { $0.streamLanguage = language }
        case .flushStart:
            timeline.withLock { $0.flushStarted() }
        case .flushStop:
            timeline.withLock { $0.flushStopped() }
        default:
            break
        }
        return []
    }

    /// Keeps the input's time domain when it has one; text read from a file
    /// comes in bytes, and is spoken from 0.
    public func outputEvent(for event: Event) -> Event {
        guard case .segment(let segment) = event.view, segment == nil else { return event }
        return Event.timeSegment(start: 0)
    }

    struct Utterance: Sendable {
        var text: String
        var pts: UInt64
        var meta: SpeechMeta
        var parameters: SpeechParameters
        /// Under compress, spoken faster while behind its speaker.
        var overlap: SpeechOverlap
        var receivedAt: UInt64
        var generation: UInt64
    }

    /// Speaking one result: synthesis runs off Swift's pool (espeak-ng
    /// blocks under its global lock); each chunk leaves as a partial output.
    private func work(_ utterance: Utterance) -> StageWork {
        StageWork(progressive: { [self] emit in
            let current: @Sendable () -> Bool = { [timeline] in timeline.isCurrent(utterance.generation) }
            guard current() else {
                Self.log.debug("skipping \"\(utterance.text.prefix(40))\": a newer result interrupted it", object: element)
                return StageOutput()
            }
            return await OffPool.run { [self] in speak(utterance, emit: emit, stillCurrent: current) }
        }, placeholder: { _ in StageOutput() })
    }

    private func speak(_ utterance: Utterance, emit: StageWork.Emit, stillCurrent: @escaping @Sendable () -> Bool) -> StageOutput {
        let rate = UInt64(EspeakEngine.shared.sampleRate)
        let (start, streamLanguage, speedUp) = timeline.withLock { timeline in
            (timeline.start(for: utterance.pts), timeline.streamLanguage,
             timeline.speedUp(for: utterance.meta, pts: utterance.pts, overlap: utterance.overlap, maxSpeedUp: SpeechTimeline.defaultMaxSpeedUp))
        }
        var parameters = utterance.parameters
        parameters.rate = min(EspeakEngine.rates.upperBound, Int((Double(parameters.rate) * speedUp).rounded()))
        var warning: ElementMessageText?
        if parameters.voice.isEmpty {
            let wanted = utterance.meta.language.isEmpty ? streamLanguage : utterance.meta.language
            if !wanted.isEmpty {
                if EspeakEngine.shared.voice(forLanguage: wanted) == nil {
                    warning = ElementMessageText("No espeak-ng voice for language \"\(wanted)\"; speaking with the English voice")
                } else {
                    parameters.language = wanted
                }
            }
        }
        var meta = utterance.meta
        var pushedSamples: UInt64 = 0
        do throws(EspeakError) {
            try EspeakEngine.shared.synthesize(utterance.text, parameters: parameters) { samples, marks in
                guard stillCurrent() else { return false }
                var messages = marks.compactMap { Self.markMessage($0, text: utterance.text, start: start, segment: meta.segmentID) }
                if !samples.isEmpty {
                    let first = pushedSamples == 0
                    timeline.withLock { $0.schedule(samples: samples.count, rate: Int(rate), firstAt: first ? utterance.pts : nil) }
                    let buffer = Buffer(bytes: UnsafeRawBufferPointer(samples))
                    buffer.pts = start + pushedSamples * Gst.second / rate
                    pushedSamples += UInt64(samples.count)
                    buffer.duration = start + pushedSamples * Gst.second / rate - buffer.pts
                    if pushedSamples == UInt64(samples.count) {
                        meta.stamp(.firstAudioOut)
                        messages.append(meta.ttsLatencyMessage(textArrivedAt: utterance.receivedAt))
                    }
                    buffer.setSpeechMeta(meta)
                    emit(StageOutput(buffers: [buffer], messages: messages, stillWanted: stillCurrent))
                } else if !messages.isEmpty {
                    emit(StageOutput(messages: messages, stillWanted: stillCurrent))
                }
                return true
            }
        } catch {
            warning = ElementMessageText("Could not speak segment \(meta.segmentID): \(error)")
        }
        let end = start + pushedSamples * Gst.second / rate
        timeline.withLock { $0.spoke(until: end) }
        spoken.add(1, ordering: .relaxed)
        // Nothing spoken (espeak-ng failed, or a barge-in came first): sinks still preroll.
        return StageOutput(warning: warning, eventsBefore: pushedSamples == 0 ? [Event.gap(timestamp: start, duration: 0)] : [])
    }

    private static func markMessage(_ mark: SpeechMark, text: String, start: UInt64, segment: UInt64) -> Structure? {
        switch mark {
        case .sentence(let offsetMs, let position):
            return SpokenSentenceMessage(segmentID: segment, offset: start + UInt64(offsetMs) * Gst.millisecond,
                                         textPosition: max(0, position - 1)).structure
        case .word(let offsetMs, let position, let length):
            let characters = Array(text)
            let from = max(0, min(characters.count, position - 1))
            let word = String(characters[from..<min(characters.count, from + max(0, length))])
            // A mark outside this text names no word of it (seen once under the
            // whole suite, likely left by a synthesis cut short): not posted.
            guard !word.isEmpty else { return nil }
            return SpokenWordMessage(segmentID: segment, offset: start + UInt64(offsetMs) * Gst.millisecond,
                                     textPosition: position - 1, length: length, word: word).structure
        }
    }

}
