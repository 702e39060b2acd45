import CGStreamer
import EspeakEngine
import Foundation
import GstKit
import ParleyCore
import Synchronization

/// espeaktts' push side: one dedicated thread takes results (and the
/// serialized events between them) in order, has them synthesized, and pushes
/// the audio as it comes. Synthesis runs on a worker under espeak-ng's global
/// lock and hands chunks over, so no lock is held while pushing and a second
/// espeaktts in the same process is never stuck behind this one's sink.
final class Speaker: @unchecked Sendable {
    // @unchecked: `thread` is touched only on state changes; push-side state
    // only on the push thread; the rest is atomic or behind locks.
    struct Job: Sendable {
        var text: String
        var pts: UInt64
        var meta: SpeechMeta?
        var parameters: SpeechParameters
        var receivedAt: UInt64
        var generation: UInt64 = 0
    }

    private enum Item: Sendable {
        case job(Job)
        case event(Event)
    }

    private struct Chunk: Sendable {
        var samples: [Int16]
        var marks: [SpeechMark]
    }

    private let element: ElementHandle
    private let log: DebugCategory
    private let items = BlockingQueue<Item>(capacity: 32)
    private let generation = Atomic<UInt64>(0)
    private let spoken = Atomic<UInt64>(0)
    private let lastFlow = Mutex<GstFlowReturn>(FlowReturn.ok)
    private let language = Mutex<String>("")
    private let finished = DispatchSemaphore(value: 0)
    private var running = false

    // Push thread only.
    private var nextFree: UInt64 = 0
    private var sentCaps = false

    init(element: ElementHandle, log: DebugCategory) {
        self.element = element
        self.log = log
    }

    var utterances: UInt64 { spoken.load(ordering: .relaxed) }

    /// The stream's language from its tags, used when neither the voice
    /// property nor the meta says.
    var streamLanguage: String {
        get { language.withLock { $0 } }
        set { language.withLock { $0 = newValue } }
    }

    func start() {
        items.reopen()
        lastFlow.withLock { $0 = FlowReturn.ok }
        spoken.store(0, ordering: .relaxed)
        nextFree = 0
        sentCaps = false
        running = true
        let thread = Thread { [self] in
            defer { finished.signal() }
            while let item = items.take() { handle(item) }
        }
        thread.name = "\(element.name):speak"
        thread.start()
    }

    func stop() {
        guard running else { return }
        running = false
        generation.add(1, ordering: .relaxed)
        items.close()
        finished.wait()
    }

    /// Queues a result. With `interrupt`, speech in progress (and results
    /// queued but not started) give way to this one.
    func speak(_ job: Job, interrupt: Bool) -> GstFlowReturn {
        var job = job
        job.generation = interrupt ? generation.add(1, ordering: .relaxed).newValue : generation.load(ordering: .relaxed)
        let flow = lastFlow.withLock { $0 }
        if flow != FlowReturn.ok && flow != FlowReturn.notLinked { return flow }
        return items.put(.job(job)) ? FlowReturn.ok : FlowReturn.flushing
    }

    func forward(_ event: Event) -> Bool { items.put(.event(event)) }

    func flush() {
        generation.add(1, ordering: .relaxed)
        items.removeAll()
    }

    func resume() {
        lastFlow.withLock { $0 = FlowReturn.ok }
        nextFree = 0
    }

    private var audioCaps: Caps {
        Caps("audio/x-raw, format=S16LE, layout=interleaved, channels=1, rate=\(EspeakEngine.shared.sampleRate)")!
    }

    private func handle(_ item: Item) {
        guard let src = element.srcPad else { return }
        switch item {
        case .event(let event):
            switch event.type {
            case GST_EVENT_STREAM_START:
                src.push(event)
                src.push(Event.caps(audioCaps))
                sentCaps = true
            case GST_EVENT_SEGMENT:
                if !sentCaps { src.push(Event.caps(audioCaps)); sentCaps = true }
                // Keep the input's time domain when it has one; text read
                // from a file comes in bytes, and is spoken from 0.
                src.push(TimeSegment(event) != nil ? event : Event.timeSegment(start: 0))
            default:
                src.push(event)
            }
        case .job(let job):
            speak(job, on: src)
        }
    }

    private func speak(_ job: Job, on src: Pad) {
        let current = generation.load(ordering: .relaxed)
        if job.generation < current {
            log.debug("skipping \"\(job.text.prefix(40))\": a newer result interrupted it", object: element)
            return
        }
        if !sentCaps { src.push(Event.caps(audioCaps)); sentCaps = true }
        let rate = UInt64(EspeakEngine.shared.sampleRate)
        let start = job.pts == Gst.clockTimeNone ? nextFree : max(job.pts, nextFree)
        var parameters = job.parameters
        if parameters.voice.isEmpty {
            let wanted = job.meta.map(\.language).flatMap { $0.isEmpty ? nil : $0 } ?? streamLanguage
            if !wanted.isEmpty {
                if EspeakEngine.shared.voice(forLanguage: wanted) == nil {
                    element.postWarning(ElementMessageText("No espeak-ng voice for language \"\(wanted)\"; speaking with the English voice"))
                } else {
                    parameters.language = wanted
                }
            }
        }

        let chunks = BlockingQueue<Chunk>()
        let interrupted: @Sendable () -> Bool = { [self] in
            generation.load(ordering: .relaxed) > job.generation
        }
        let synthesisError = Mutex<EspeakError?>(nil)
        let chosen = parameters
        DispatchQueue.global().async {
            do throws(EspeakError) {
                try EspeakEngine.shared.synthesize(job.text, parameters: chosen) { samples, marks in
                    chunks.put(Chunk(samples: Array(samples), marks: marks))
                    return !interrupted()
                }
            } catch {
                synthesisError.withLock { $0 = error }
            }
            chunks.close()
        }

        var pushedSamples: UInt64 = 0
        var meta = job.meta ?? SpeechMeta(segmentID: spoken.load(ordering: .relaxed))
        while let chunk = chunks.take() {
            if interrupted() { continue }  // drain what the worker already made
            for mark in chunk.marks { postMark(mark, job: job, start: start, segment: meta.segmentID) }
            guard !chunk.samples.isEmpty else { continue }
            let buffer = Buffer(samples: chunk.samples)
            buffer.pts = start + pushedSamples * Gst.second / rate
            pushedSamples += UInt64(chunk.samples.count)
            buffer.duration = start + pushedSamples * Gst.second / rate - buffer.pts
            if pushedSamples == UInt64(chunk.samples.count) {
                meta.stamp(.firstAudioOut)
                postLatency(job: job, meta: meta)
            }
            buffer.setSpeechMeta(meta)
            let flow = src.push(buffer)
            if flow != FlowReturn.ok {
                lastFlow.withLock { $0 = flow }
                if flow != FlowReturn.notLinked { generation.add(1, ordering: .relaxed) }
            }
        }
        if let error = synthesisError.withLock({ $0 }) {
            element.postWarning(ElementMessageText("Could not speak segment \(meta.segmentID): \(error)"))
        }
        nextFree = start + pushedSamples * Gst.second / rate
        spoken.add(1, ordering: .relaxed)
    }

    private func postMark(_ mark: SpeechMark, job: Job, start: UInt64, segment: UInt64) {
        guard case .word(let offsetMs, let position, let length) = mark else {
            if case .sentence(let offsetMs, let position) = mark {
                element.postElementMessage(Structure("parley/tts-sentence", [
                    ("segment-id", .uint64(segment)), ("offset", .uint64(start + UInt64(offsetMs) * Gst.millisecond)),
                    ("text-position", .int(max(0, position - 1))),
                ]))
            }
            return
        }
        let characters = Array(job.text)
        let from = max(0, min(characters.count, position - 1))
        let word = String(characters[from..<min(characters.count, from + max(0, length))])
        element.postElementMessage(Structure("parley/tts-word", [
            ("segment-id", .uint64(segment)), ("offset", .uint64(start + UInt64(offsetMs) * Gst.millisecond)),
            ("text-position", .int(position - 1)), ("length", .int(length)), ("word", .string(word)),
        ]))
    }

    private func postLatency(job: Job, meta: SpeechMeta) {
        let firstAudio = meta.stamps[.firstAudioOut] ?? MonotonicClock.nanoseconds()
        var fields: [(String, PropertyValue)] = [
            ("segment-id", .uint64(meta.segmentID)), ("stage", .string("tts")),
            ("time-to-first-audio-ms", .double(Double(firstAudio - job.receivedAt) / 1e6)),
        ]
        if let speechEnd = meta.stamps[.speechEnd], firstAudio > speechEnd {
            fields.append(("voice-to-voice-ms", .double(Double(firstAudio - speechEnd) / 1e6)))
        }
        element.postElementMessage(Structure("parley/latency", fields))
    }
}
