// recordingsrc: a recording played as a live microphone would deliver it.
//
//     gst-launch-1.0 recordingsrc location=talk.wav ! vadsegmenter ! fakesink
//
// It reads a 16-bit PCM WAV as it plays, a chunk at a time (any rate;
// channels are mixed to mono), so a recording of any length takes the same
// memory, converts it to 16 kHz mono and pushes it in `chunk-ms` buffers. With
// pace=true (the default) each chunk leaves when a microphone would have
// finished capturing it: the chunk [t, t + 20 ms) at start + t + 20 ms. So
// everything downstream meets the speech at a talker's pace, and a pipeline's
// latency can be measured from the instant the talker stopped. Paced, it is a
// live source (no preroll); buffers carry their place in the recording, from 0.
// pace=false pushes as fast as downstream takes the audio (same timestamps)
// and is not live, as a file is not: elements that treat a live stream
// differently (cloudstt speculates only on one) see a file.
// `parley bench` feeds corpora through it.
//
// Messages (`gst-launch-1.0 -m` prints them):
// - `parley/recording` event=started: `started-at`, the CLOCK_MONOTONIC ns at
//   which the recording's time 0 was "spoken" (paced: one chunk before the
//   first buffer left); `duration` (ns); `paced`.
// - `parley/recording` event=ended: `position` (ns) when the last buffer left.
import Foundation
import GstKit
import ParleyCore
import ParleySpeech
import Synchronization

public final class RecordingSrcElement: Source {
    public static let DEFAULT_LOCATION = ""
    public static let DEFAULT_PACE = true
    public static let DEFAULT_CHUNK_MS = 20
    /// The rate every buffer has: what the speech elements work at.
    public static let outputRate = 16_000

    public static let metadata = ElementMetadata(
        factoryName: "recordingsrc", typeName: "GstRecordingSrc",
        longName: "Recording played as a live microphone", klass: "Source/Audio",
        description: "Plays a WAV recording as a live source, paced in real time in small chunks",
        docURI: Release.documentation(for: "recordingsrc"),
        example: "gst-launch-1.0 recordingsrc location=talk.wav ! vadsegmenter ! fakesink")
    public static let pads = PadTemplates(
        src: "audio/x-raw, format=(string)S16LE, layout=(string)interleaved, channels=(int)1, rate=(int)16000")
    public static let properties = [
        PropertySpec("location", nick: "Location", blurb: "The recording: a 16-bit PCM WAV file (any rate, mono or more channels)",
                     .string(default: DEFAULT_LOCATION)),
        PropertySpec("pace", nick: "Pace", blurb: "Push each chunk when a microphone would have captured it, as a live source (false: as fast as possible, not live)",
                     .bool(default: DEFAULT_PACE)),
        PropertySpec("chunk-ms", nick: "Chunk", blurb: "Audio per buffer, in ms (microphones deliver 10-20 ms)",
                     .int(default: DEFAULT_CHUNK_MS, range: 1...1000)),
        PropertySpec("position-ms", nick: "Position", blurb: "How far into the recording it has played, in ms",
                     .int(default: 0, range: 0...Int(Int32.max)), flags: .readOnly),
    ]


    struct Settings {
        var location = DEFAULT_LOCATION
        var pace = DEFAULT_PACE
        var chunkMs = DEFAULT_CHUNK_MS
    }

    /// What one run reads and where it is; replaced whole by `start`.
    struct State {
        /// The open recording; nil once it is all read (or before `start`).
        var reader: WAVFileReader?
        var resampler = Resampler(from: outputRate, to: outputRate)
        /// Samples at 16 kHz read, from `pendingStart` on not yet pushed: the
        /// next chunk stays here until it leaves, so one cut short by a flush
        /// is played again. What was pushed goes at the next read, not per chunk.
        var pending: [Int16] = []
        var pendingStart = 0
        /// Samples pushed.
        var next = 0
        /// The recording's length at 16 kHz, for the started message.
        var total = 0
        var chunkSamples = 320
        var pace = true
        /// CLOCK_MONOTONIC ns of the recording's time 0, set by the first `create`.
        var startedAt: UInt64?

        /// The chunk that leaves next (empty at the end).
        var chunk: ArraySlice<Int16> { pending[pendingStart..<min(pending.count, pendingStart + chunkSamples)] }

        /// Reads until a chunk is pending or the recording has ended.
        mutating func fill() throws(ElementMessageText) {
            guard pending.count - pendingStart < chunkSamples, reader != nil else { return }
            pending.removeFirst(pendingStart)
            pendingStart = 0
            while pending.count < chunkSamples, let source = reader {
                // A quarter of a second a read: few system calls, little memory.
                let rate = source.layout.rate
                let wanted = max(rate / 4, chunkSamples * rate / outputRate + 1)
                let frames: [Int16]
                do { frames = try source.read(frames: wanted) } catch {
                    throw .openRead("the recording could not be read on: \(error)")
                }
                if frames.isEmpty {
                    pending += resampler.finish()
                    reader = nil
                } else {
                    pending += frames.withUnsafeBufferPointer { resampler.process($0) }
                }
            }
        }
    }

    public let element: ElementHandle
    private let settings = Mutex(Settings())
    private let state = Mutex(State())
    private let interrupted = Flag()

    /// Live while `pace` is true, its default (`setProperty`).
    public static let isLive = DEFAULT_PACE

    public init(element: ElementHandle) { self.element = element }

    public func property(named name: String) -> PropertyValue {
        let current = settings.withLock { $0 }
        switch name {
        case "location": return .string(current.location)
        case "pace": return .bool(current.pace)
        case "chunk-ms": return .int(current.chunkMs)
        case "position-ms": return .int(state.withLock { $0.next } * 1000 / Self.outputRate)
        default: Self.unhandledProperty(name)
        }
    }

    public func setProperty(named name: String, to value: PropertyValue) {
        if name == "pace" { setLive(value.bool) }
        settings.withLock { settings in
            switch name {
            case "location": settings.location = value.string ?? ""
            case "pace": settings.pace = value.bool
            case "chunk-ms": settings.chunkMs = value.int
            default: Self.unhandledProperty(name)
            }
        }
    }

    public func start() throws(ElementMessageText) {
        let current = settings.withLock { $0 }
        guard !current.location.isEmpty else {
            throw .settings("no recording to play: set location to a WAV file", debug: "property location")
        }
        // The reader is made and kept under the lock: it belongs to the streaming thread from here on.
        let opened: Result<WAVLayout, ElementMessageText> = state.withLock { state in
            let reader: WAVFileReader
            do throws(WAVFileReader.Failure) {
                reader = try WAVFileReader(path: current.location)
            } catch {
                switch error {
                case .notReadable(let problem): return .failure(.settings("\(current.location): \(problem)", debug: "property location"))
                default: return .failure(.openRead("cannot read the recording \(current.location): \(error)", debug: "property location"))
                }
            }
            let layout = reader.layout
            let total = Int(Double(layout.frames) * Double(Self.outputRate) / Double(max(1, layout.rate)))
            state = State(reader: reader, resampler: Resampler(from: layout.rate, to: Self.outputRate), total: total,
                          chunkSamples: Self.outputRate * current.chunkMs / 1000, pace: current.pace)
            return .success(layout)
        }
        let layout = try opened.get()
        interrupted.set(false)
        Self.log.info("\(current.location): \(layout.frames) frames at \(layout.rate) Hz, \(layout.channels) channel(s), played at \(Self.outputRate) Hz, pace \(current.pace)", object: element)
    }

    public func stop() {
        interrupted.set()
        // The audio is let go; how far it played stays readable (`position-ms`) until the next start.
        state.withLock { $0 = State(next: $0.next) }
    }

    public func unlock() { interrupted.set() }
    public func unlockStop() { interrupted.set(false) }

    public func create() throws(FlowError) -> Buffer {
        let now = MonotonicClock.nanoseconds()
        struct Next {
            var chunk: ArraySlice<Int16>
            var first: Bool
            var pace: Bool
            var startedAt: UInt64
            /// Samples pushed before this chunk.
            var offset: Int
            /// The recording's length at 16 kHz.
            var total: Int
        }
        let read: Result<Next, ElementMessageText> = state.withLock { state in
            let first = state.startedAt == nil
            if first { state.startedAt = now }
            do throws(ElementMessageText) { try state.fill() } catch { return .failure(error) }
            return .success(Next(chunk: state.chunk, first: first, pace: state.pace,
                                 startedAt: state.startedAt!, offset: state.next, total: state.total))
        }
        let next: Next
        switch read {
        case .success(let value): next = value
        case .failure(let problem):
            element.postError(problem)
            throw .error
        }
        let (chunk, pace, startedAt, offset) = (next.chunk, next.pace, next.startedAt, next.offset)
        if next.first {
            element.postElementMessage(RecordingMessage.started(startedAt: startedAt, duration: Self.nanoseconds(next.total), paced: pace).structure)
        }
        guard !chunk.isEmpty else {
            element.postElementMessage(RecordingMessage.ended(position: Self.nanoseconds(offset)).structure)
            throw .eos
        }
        let end = offset + chunk.count
        if pace {
            // The chunk exists once its last sample has been "spoken".
            try wait(until: startedAt + Self.nanoseconds(end))
        }
        // Only a chunk that leaves counts as played (`position-ms`); one
        // cut short by a flush is played again.
        state.withLock { state in
            state.pendingStart += chunk.count
            state.next = end
        }
        let buffer = Buffer(samples: Array(chunk))
        buffer.pts = Self.nanoseconds(offset)
        buffer.duration = Self.nanoseconds(end) - buffer.pts
        buffer.offset = UInt64(offset)
        buffer.offsetEnd = UInt64(end)
        return buffer
    }

    /// Sleeps until `deadline` (CLOCK_MONOTONIC ns); `unlock` cuts it short.
    private func wait(until deadline: UInt64) throws(FlowError) {
        while true {
            if interrupted.isSet { throw .flushing }
            let now = MonotonicClock.nanoseconds()
            guard now < deadline else { return }
            // Short slices, so a flush or stop is not held up by a long chunk.
            usleep(useconds_t(min(deadline - now, 5_000_000) / 1000))
        }
    }

    static func nanoseconds(_ samples: Int) -> UInt64 { UInt64(samples) * Gst.second / UInt64(outputRate) }
}
