// vadsegmenter: cuts speech at pauses, the first stage of every speech
// pipeline.
//
//     gst-launch-1.0 -m filesrc location=speech.wav ! wavparse ! audioconvert \
//         ! audioresample ! audio/x-raw,format=S16LE,channels=1,rate=16000 \
//         ! vadsegmenter silence-duration-ms=500 ! fakesink
//
// Each utterance, prefix padding included, is bracketed by the serialized
// custom events `parley/speech-start` and `parley/speech-end`, and every
// buffer in it carries a ParleySpeechMeta with its segment id. A `parley/vad`
// element message per segment gives id, start, end, reason and the mean
// speech probability. Audio outside segments is dropped unless
// `drop-silence=false`; then everything passes and the events mark the
// decisions (their start/end fields still give the segment's span).
// With `level-interval-ms` above 0, a `parley/vad-level` message every that
// many ms gives the highest speech probability and the RMS and peak level,
// for a "listening" indicator or a waveform.
// Output timestamps are the input's running time, under one segment from 0.
//
// The speech probability per 10 ms frame comes from SpeechClassifier: band
// levels over an adaptive noise floor and their recent history into a small
// network, and what it made of the last 300 ms into a second one, trained
// (benchmarks/vad/train) to keep stationary noise, tones, bursts, clicks and
// other non-speech sounds out. It judges each frame with the 40 ms after
// it in hand (`SpeechClassifier.lookahead`): a weak first consonant is told
// from a click by the vowel after it. So each frame is decided 40 ms after it
// arrives, and that wait is part of the latency the element reports and of
// its end-of-speech figures. The 40 ms it waits for are heard audio, so they
// count towards silence-duration-ms: a segment closes silence-duration-ms
// after its speech, not 40 ms later (its audio ends where the frames judged
// silent do, 460 ms after the speech at the default). Frames the detector
// doubts, just over `threshold` (within `Segmenter.doubtBand`, 0.1), count
// towards that silence in part, so a segment whose speech trails off in
// doubt closes sooner after its last sure word. At EOS the frames
// still waiting are decided as if silence followed. In ptt and always modes
// no frame waits: the button or the stream cuts there, and a release is
// acted on at once. A press or release (`ptt-active`) or a `mode` switch
// while PLAYING takes effect at the running time it was made, by the
// pipeline clock: the frames captured before a release are still in the
// segment however late they reach the element (a microphone's buffering),
// those captured before a press are not, and a switch ends the segment
// being spoken where the switch was made (see ClockedSetting).
//
// A segment opens on speech heard with confidence: min-speech-ms of frames
// at or over `threshold`, at least half of them at or over
// `onset-threshold` (0.75). A voiced animal call or an instrument's note
// that the detector only half believes (0.5-0.7) opens nothing; once open,
// `threshold` alone keeps the segment going and ends it. Figures against
// WebRTC VAD and Silero: benchmarks/vad/results.md.
//
// A segment may end in two steps. After likely-end-ms (100) of that same
// silence, a serialized `parley/speech-likely-end` event (segment-id, the
// position up to which its audio has been sent, speech-end) says the end is
// likely, so downstream can start early (cloudstt transcribes then); if sure
// speech comes before silence-duration-ms, `parley/speech-resumed` withdraws
// it, and a later pause may be likely again; otherwise `parley/speech-end`
// confirms it as before. Elements that do not know these events pass them
// on in order. likely-end-ms=0 (or at or over silence-duration-ms) turns
// them off.
//
// Continuous speech (long-speech-ms, off by default): once a segment holds
// long-speech-ms of audio, a pause of long-speech-silence-ms (150) ends it,
// with reason silence. A lecturer who never pauses for 500 ms is then cut
// at the breaths between sentences and translated while still talking,
// instead of at max-segment-ms in the middle of one; streamtranslator's
// max-hold-ms joins a sentence cut at a breath inside it.
import GstKit
import ParleyCore
import ParleySpeech
import Synchronization

public final class VADSegmenterElement: Filter {
    public static let DEFAULT_THRESHOLD = 0.5
    /// Chosen on the training streams, judged on the held-out set and vadbench: benchmarks/vad/train/train.py, "Confident onsets".
    public static let DEFAULT_ONSET_THRESHOLD = 0.75
    public static let DEFAULT_PREFIX_PADDING_MS = 300
    public static let DEFAULT_SILENCE_DURATION_MS = 500
    /// The end is likely after 100 ms of silence: downstream (cloudstt) may
    /// start transcribing then, 400 ms before the 500 ms silence confirms it.
    /// Measured through live-translate on the conversation corpus (#64,
    /// benchmarks/README.md): 100 ms answers about 80 ms sooner at the median
    /// than 200 ms for 12% more Whisper CPU (transcriptions begun at pauses the
    /// speaker then talks through); 50 ms another 80 ms sooner for 25% more.
    public static let DEFAULT_LIKELY_END_MS = 100
    public static let DEFAULT_MIN_SPEECH_MS = 200
    /// Off: the apps' rule (500 ms of silence) alone. pipelines/interpret turns it on.
    public static let DEFAULT_LONG_SPEECH_MS = 0
    /// A breath between sentences of continuous speech: Asterisk's prompts
    /// read one after another with 150-280 ms between them are cut at each.
    public static let DEFAULT_LONG_SPEECH_SILENCE_MS = 150
    public static let DEFAULT_MAX_SEGMENT_MS = 30_000
    public static let DEFAULT_MODE = SegmentationMode.vad
    public static let DEFAULT_PTT_ACTIVE = false
    public static let DEFAULT_DROP_SILENCE = true
    public static let DEFAULT_LEVEL_INTERVAL_MS = 0
    public static let DEFAULT_POST_MESSAGES = true

    static let audioCaps = "audio/x-raw, format=(string)S16LE, layout=(string)interleaved, channels=(int)1, rate=(int)[ 8000, 48000 ]"

    public static let metadata = ElementMetadata(
        factoryName: "vadsegmenter", typeName: "GstVADSegmenter",
        longName: "Voice activity segmenter", klass: "Filter/Analyzer/Audio",
        description: "Cuts speech into utterances at pauses (or push-to-talk) and brackets each with parley/speech-start and parley/speech-end events",
        docURI: Release.documentation(for: "vadsegmenter"),
        example: "gst-launch-1.0 -m filesrc location=/usr/share/sounds/alsa/Front_Center.wav ! wavparse ! audioconvert ! audioresample ! audio/x-raw,format=S16LE,channels=1,rate=16000 ! vadsegmenter ! fakesink")
    public static let pads = PadTemplates(sink: audioCaps, src: audioCaps)

    static let modeValues = [
        EnumValue(0, "vad", "Voice activity decides"),
        EnumValue(1, "ptt", "Push-to-talk: a segment lasts exactly while ptt-active is true"),
        EnumValue(2, "always", "One segment from the first sample to EOS (cut at max-segment-ms)"),
    ]

    public static let properties = [
        PropertySpec("threshold", nick: "Threshold", blurb: "Speech probability at or above which a 10 ms frame counts as speech",
                     .double(default: DEFAULT_THRESHOLD, range: 0...1), flags: [.readWrite, .mutablePlaying]),
        PropertySpec("onset-threshold", nick: "Onset threshold",
                     blurb: "Speech probability at least half of min-speech-ms must reach before a segment opens (voiced sounds the detector only half believes open none); at or under threshold, threshold alone decides",
                     .double(default: DEFAULT_ONSET_THRESHOLD, range: 0...1), flags: [.readWrite, .mutablePlaying]),
        PropertySpec("prefix-padding-ms", nick: "Prefix padding", blurb: "Audio kept before the detected start of speech, in ms",
                     .int(default: DEFAULT_PREFIX_PADDING_MS, range: 0...5000)),
        PropertySpec("silence-duration-ms", nick: "Silence duration", blurb: "Silence that ends a segment, in ms from the end of speech to the decision (the detector's \(lookaheadMs) ms lookahead counts towards it; frames under threshold + \(Segmenter.doubtBand), which it doubts, count in part)",
                     .int(default: DEFAULT_SILENCE_DURATION_MS, range: 10...10_000), flags: [.readWrite, .mutablePlaying]),
        PropertySpec("likely-end-ms", nick: "Likely end",
                     blurb: "After this much silence (counted as silence-duration-ms is) a segment's end is likely: a parley/speech-likely-end event lets downstream start early (cloudstt transcribes then), withdrawn by parley/speech-resumed if speech goes on; 0 = never, or at or over silence-duration-ms",
                     .int(default: DEFAULT_LIKELY_END_MS, range: 0...10_000), flags: [.readWrite, .mutablePlaying]),
        PropertySpec("long-speech-ms", nick: "Long speech",
                     blurb: "Once a segment holds this much audio, a pause of long-speech-silence-ms ends it: a speaker who never pauses for silence-duration-ms is cut at breaths, not at max-segment-ms (continuous interpretation); 0 = off",
                     .int(default: DEFAULT_LONG_SPEECH_MS, range: 0...600_000), flags: [.readWrite, .mutablePlaying]),
        PropertySpec("long-speech-silence-ms", nick: "Long speech silence",
                     blurb: "The pause that ends a segment past long-speech-ms, in ms (counted as silence-duration-ms is, never longer than it)",
                     .int(default: DEFAULT_LONG_SPEECH_SILENCE_MS, range: 10...10_000), flags: [.readWrite, .mutablePlaying]),
        PropertySpec("min-speech-ms", nick: "Minimum speech", blurb: "Speech shorter than this never becomes a segment, in ms (counted over the last min-speech-ms + silence-duration-ms; pauses shorter than silence-duration-ms inside it do not start the count again)",
                     .int(default: DEFAULT_MIN_SPEECH_MS, range: 0...5000)),
        PropertySpec("max-segment-ms", nick: "Maximum segment", blurb: "Longer segments are cut at the quietest frame of their last 500 ms, in ms",
                     .int(default: DEFAULT_MAX_SEGMENT_MS, range: 1000...600_000)),
        PropertySpec("mode", nick: "Mode",
                     blurb: "What decides where segments are; may change while PLAYING, from the audio captured when it was changed (running time by the pipeline clock; a segment then open ends with reason mode-change)",
                     .enumeration(typeName: "GstParleyVADMode", values: modeValues, default: DEFAULT_MODE.rawValue),
                     flags: [.readWrite, .mutablePlaying]),
        PropertySpec("ptt-active", nick: "Push-to-talk active", blurb: "In ptt mode, a segment lasts while this is true; set it while PLAYING: a change applies to the audio captured from the moment it was made (running time by the pipeline clock), in PAUSED or READY from the next buffer",
                     .bool(default: DEFAULT_PTT_ACTIVE), flags: [.readWrite, .mutablePlaying]),
        PropertySpec("drop-silence", nick: "Drop silence", blurb: "Drop audio outside segments; false passes all audio, with the events",
                     .bool(default: DEFAULT_DROP_SILENCE)),
        PropertySpec("level-interval-ms", nick: "Level interval",
                     blurb: "Post a parley/vad-level message (speech probability and input level, for a UI) every this many ms, rounded to 10 ms frames; 0 = never",
                     .int(default: DEFAULT_LEVEL_INTERVAL_MS, range: 0...60_000), flags: [.readWrite, .mutablePlaying]),
        PropertySpec("post-messages", nick: "Post messages",
                     blurb: "Post parley/vad and parley/vad-level messages on the bus (as level's post-messages); the events, the meta and parley/latency are not affected",
                     .bool(default: DEFAULT_POST_MESSAGES), flags: [.readWrite, .mutablePlaying]),
        PropertySpec("segments", nick: "Segments", blurb: "Segments closed since the element started",
                     .uint64(default: 0, range: 0...UInt64.max), flags: .readOnly),
    ]


    /// The segmenter as the element configures it by default (what the VAD benchmark scores).
    public static let defaultConfiguration = SegmenterConfiguration(
        threshold: Float(DEFAULT_THRESHOLD), onsetThreshold: Float(DEFAULT_ONSET_THRESHOLD), prefixPaddingMs: DEFAULT_PREFIX_PADDING_MS,
        silenceDurationMs: DEFAULT_SILENCE_DURATION_MS, minSpeechMs: DEFAULT_MIN_SPEECH_MS,
        maxSegmentMs: DEFAULT_MAX_SEGMENT_MS, mode: DEFAULT_MODE, dropSilence: DEFAULT_DROP_SILENCE,
        likelyEndMs: DEFAULT_LIKELY_END_MS, longSpeechMs: DEFAULT_LONG_SPEECH_MS, longSpeechSilenceMs: DEFAULT_LONG_SPEECH_SILENCE_MS)

    struct Settings {
        var segmenter = defaultConfiguration
        var pttActive = DEFAULT_PTT_ACTIVE
        var levelIntervalMs = DEFAULT_LEVEL_INTERVAL_MS
        var postMessages = DEFAULT_POST_MESSAGES
    }

    /// Touched only from the streaming thread; replaced whole on start and flush.
    struct State {
        var rate: Int
        var detector: SpeechClassifier
        /// Frames whose probability the detector gives only after `lookahead`
        /// more (with push-to-talk's state as it was when each arrived).
        var waiting = DecisionDelay<(frame: Frame, pttActive: Bool)>(frames: SpeechClassifier.lookahead)
        var segmenter: Segmenter
        /// ptt-active and mode as the frames meet them: each change at the
        /// running time it was made.
        var button: ClockedSetting<Bool>
        var mode: ClockedSetting<SegmentationMode>
        /// Samples of a frame not yet complete (fewer than one frame).
        var carry: [Int16] = []
        /// PTS of carry[0].
        var carryPTS: UInt64 = 0
        var nextPTS: UInt64 = 0
        /// Upstream's segment, to turn PTS into running time.
        var segment = TimeSegment()
        var sentSegment = false
        /// Present while level-interval-ms is above 0.
        var levels: LevelMeter?
        /// Readings made by the frames just decided, posted outside the lock (`decided`).
        var readings: [LevelReading] = []

        init(rate: Int = 16_000, configuration: SegmenterConfiguration, buttonDown: Bool) {
            self.rate = rate
            detector = SpeechClassifier(rate: rate)
            segmenter = VADSegmenterElement.segmenter(configuration)
            button = ClockedSetting(buttonDown)
            mode = ClockedSetting(configuration.mode)
        }
    }

    public let element: ElementHandle
    private let settings = Mutex(Settings())
    private let state = Mutex(State(configuration: Settings().segmenter, buttonDown: Settings().pttActive))
    /// ptt-active and mode changes made since the streaming thread last
    /// looked, with the running time of each (set from the application's thread).
    private let changes = Mutex(ClockedChanges())

    struct ClockedChanges {
        var button: [ClockedSetting<Bool>.Change] = []
        var mode: [ClockedSetting<SegmentationMode>.Change] = []
    }
    private let segmentsClosed = Atomic<UInt64>(0)

    public init(element: ElementHandle) { self.element = element }

    public func property(named name: String) -> PropertyValue {
        let current = settings.withLock { $0 }
        switch name {
        case "threshold": return .double(Double(current.segmenter.threshold))
        case "onset-threshold": return .double(Double(current.segmenter.onsetThreshold))
        case "prefix-padding-ms": return .int(current.segmenter.prefixPaddingMs)
        case "silence-duration-ms": return .int(current.segmenter.silenceDurationMs)
        case "likely-end-ms": return .int(current.segmenter.likelyEndMs)
        case "long-speech-ms": return .int(current.segmenter.longSpeechMs)
        case "long-speech-silence-ms": return .int(current.segmenter.longSpeechSilenceMs)
        case "min-speech-ms": return .int(current.segmenter.minSpeechMs)
        case "max-segment-ms": return .int(current.segmenter.maxSegmentMs)
        case "mode": return .enumeration(current.segmenter.mode.rawValue)
        case "ptt-active": return .bool(current.pttActive)
        case "drop-silence": return .bool(current.segmenter.dropSilence)
        case "level-interval-ms": return .int(current.levelIntervalMs)
        case "post-messages": return .bool(current.postMessages)
        case "segments": return .uint64(segmentsClosed.load(ordering: .relaxed))
        default: Self.unhandledProperty(name)
        }
    }

    public func setProperty(named name: String, to value: PropertyValue) {
        settings.withLock { settings in
            switch name {
            case "threshold": settings.segmenter.threshold = Float(value.double)
            case "onset-threshold": settings.segmenter.onsetThreshold = Float(value.double)
            case "prefix-padding-ms": settings.segmenter.prefixPaddingMs = value.int
            case "silence-duration-ms": settings.segmenter.silenceDurationMs = value.int
            case "likely-end-ms": settings.segmenter.likelyEndMs = value.int
            case "long-speech-ms": settings.segmenter.longSpeechMs = value.int
            case "long-speech-silence-ms": settings.segmenter.longSpeechSilenceMs = value.int
            case "min-speech-ms": settings.segmenter.minSpeechMs = value.int
            case "max-segment-ms": settings.segmenter.maxSegmentMs = value.int
            case "mode":
                settings.segmenter.mode = SegmentationMode(rawValue: value.int) ?? Self.DEFAULT_MODE
                let change = ClockedSetting.Change(settings.segmenter.mode, at: element.runningTimeNow)
                changes.withLock { $0.mode.append(change) }
            case "ptt-active":
                settings.pttActive = value.bool
                let change = ClockedSetting.Change(value.bool, at: element.runningTimeNow)
                changes.withLock { $0.button.append(change) }
            case "drop-silence": settings.segmenter.dropSilence = value.bool
            case "level-interval-ms": settings.levelIntervalMs = value.int
            case "post-messages": settings.postMessages = value.bool
            default: Self.unhandledProperty(name)
            }
        }
    }

    public func start() throws(ElementMessageText) {
        let (configuration, down) = settings.withLock { ($0.segmenter, $0.pttActive) }
        segmentsClosed.store(0, ordering: .relaxed)
        changes.withLock { $0 = ClockedChanges() }
        state.withLock { $0 = State(configuration: configuration, buttonDown: down) }
    }

    public func transform(_ buffer: Buffer) -> [Output] {
        let current = settings.withLock { $0 }
        let samples = buffer.int16Samples
        let made = changes.withLock { changes in
            defer { changes = ClockedChanges() }
            return changes
        }
        return decided { state in
            for change in made.button { state.button.record(change) }
            for change in made.mode { state.mode.record(change) }
            // Settings that may change while PLAYING apply from the next frame
            // (ptt-active and mode from the frame at their running time).
            state.segmenter.configuration.threshold = current.segmenter.threshold
            state.segmenter.configuration.onsetThreshold = current.segmenter.onsetThreshold
            state.segmenter.configuration.silenceDurationMs = current.segmenter.silenceDurationMs
            if current.levelIntervalMs <= 0 {
                state.levels = nil
            } else if state.levels?.intervalMs != current.levelIntervalMs {
                state.levels = LevelMeter(intervalMs: current.levelIntervalMs)
            }
            let runningTime = state.segment.runningTime(of: buffer.pts)
            if runningTime != Gst.clockTimeNone && state.carry.isEmpty { state.carryPTS = runningTime }
            else if state.carry.isEmpty { state.carryPTS = state.nextPTS }
            return Self.frames(&state, adding: samples)
        }
    }

    /// Runs `body` on the state under its lock, then posts the level readings
    /// its frames made (outside the lock) and turns what the segmenter decided
    /// into outputs.
    private func decided(_ body: (inout State) -> [SegmenterAction]) -> [Output] {
        let (actions, readings) = state.withLock { state in
            let actions = body(&state)
            defer { state.readings.removeAll() }
            return (actions, state.readings)
        }
        if settings.withLock({ $0.postMessages }) {
            for reading in readings { postLevel(reading) }
        }
        return outputs(for: actions)
    }

    private func postLevel(_ reading: LevelReading) {
        element.postElementMessage(VADLevelMessage(start: reading.start, duration: reading.duration,
                                                   probability: Double(reading.probability), levelDB: reading.levelDB,
                                                   peakDB: reading.peakDB, speaking: reading.speaking).structure)
    }

    /// One frame with its probability, into the segmenter and the level meter.
    private static func decide(_ state: inout State, _ frame: Frame, probability: Float, pttActive: Bool) -> [SegmenterAction] {
        var frame = frame
        frame.probability = probability
        let actions = state.segmenter.push(frame, pttActive: pttActive)
        if state.levels != nil, let reading = frame.samples.withUnsafeBufferPointer({
            state.levels!.add($0, sumOfSquares: frame.energy, probability: probability, pts: frame.pts, duration: frame.duration,
                              speaking: state.segmenter.isInSegment)
        }) {
            state.readings.append(reading)
        }
        return actions
    }

    /// The frames still waiting for the detector's lookahead, decided as if
    /// the stream went quiet after them (at EOS, and before a new rate).
    private static func drain(_ state: inout State) -> [SegmenterAction] {
        let decided = state.detector.decideWaiting(in: &state.waiting, frameSamples: state.rate / 100)
        return decided.flatMap { decide(&state, $0.frame.frame, probability: $0.probability, pttActive: $0.frame.pttActive) }
    }

    /// Cuts the samples into 10 ms frames and runs them through the detector
    /// and, once the detector has judged them (`SpeechClassifier.lookahead`
    /// frames later), the segmenter. Frames are views into `samples`; only a frame that
    /// straddles two buffers is assembled from the carried remainder.
    private static func frames(_ state: inout State, adding samples: [Int16]) -> [SegmenterAction] {
        let size = state.rate / 100
        let duration = UInt64(size) * Gst.second / UInt64(state.rate)
        var actions: [SegmenterAction] = []
        var pts = state.carryPTS
        func run(_ frameSamples: ArraySlice<Int16>) {
            let probability = frameSamples.withUnsafeBufferPointer { state.detector.probability(of: $0) }
            let energy = frameSamples.reduce(0.0) { $0 + Double($1) * Double($1) }
            let frame = Frame(samples: frameSamples, pts: pts, duration: duration, probability: 0, energy: energy)
            let mode = state.mode.value(at: pts)
            if mode != state.segmenter.configuration.mode {
                // The frames still waiting for the lookahead came before the
                // switch: the mode they were heard in decides them (with the
                // detector's latest judgment), so the segment it ends keeps
                // them and the next one starts right after.
                for pair in state.waiting.drain({ probability }) {
                    actions += decide(&state, pair.frame.frame, probability: pair.probability, pttActive: pair.frame.pttActive)
                }
                actions += state.segmenter.switchMode(to: mode)
            }
            let pttActive = state.button.value(at: pts)
            // Push-to-talk and always cut where the button or the stream says,
            // not the detector: no frame waits for its lookahead (a release is
            // acted on at once). Level readings and mean-probability then get
            // the latest judgment, a lookahead older than the frame.
            let decided = state.segmenter.configuration.mode == .vad
                ? state.waiting.push((frame, pttActive), probability: probability).map { [$0] } ?? []
                : state.waiting.pushWithoutWaiting((frame, pttActive), probability: probability)
            for pair in decided {
                actions += decide(&state, pair.frame.frame, probability: pair.probability, pttActive: pair.frame.pttActive)
            }
            pts += duration
        }
        var offset = 0
        if !state.carry.isEmpty {
            let needed = min(size - state.carry.count, samples.count)
            state.carry.append(contentsOf: samples[0..<needed])
            offset = needed
            guard state.carry.count == size else {
                state.nextPTS = pts + UInt64(state.carry.count) * Gst.second / UInt64(state.rate)
                return actions
            }
            run(state.carry[...])
            state.carry = []
        }
        while samples.count - offset >= size {
            run(samples[offset..<(offset + size)])
            offset += size
        }
        state.carry = Array(samples[offset...])
        state.carryPTS = pts
        state.nextPTS = pts + UInt64(state.carry.count) * Gst.second / UInt64(state.rate)
        return actions
    }

    /// What the segmenter decided, as outputs: consecutive audio frames of
    /// one segment go out as one buffer, assembled once from the frames' views.
    private func outputs(for actions: [SegmenterAction]) -> [Output] {
        let posts = settings.withLock { $0.postMessages }
        var outputs: [Output] = []
        var run: [Frame] = []
        var runSegment: UInt64?

        func flushRun() {
            guard let first = run.first else { return }
            let buffer = Buffer(concatenating: run.map(\.samples))
            buffer.pts = first.pts
            buffer.duration = run.last!.end - first.pts
            if let segment = runSegment { buffer.setSpeechMeta(SpeechMeta(segmentID: segment)) }
            outputs.append(.buffer(buffer))
            run.removeAll()
        }

        for action in actions {
            switch action {
            case .audio(let frame, let segment):
                if segment != runSegment { flushRun() }
                runSegment = segment
                run.append(frame)
            case .start(let id, let pts):
                flushRun()
                Self.log.debug("segment \(id) starts at \(formatClockTime(pts))", object: element)
                outputs.append(.event(SpeechBoundary.start(segmentID: id, pts: pts).event))
            case .likelyEnd(let id, let position, let speechEnd):
                flushRun()
                Self.log.debug("segment \(id): end likely at \(formatClockTime(position))", object: element)
                outputs.append(.event(SpeechBoundary.likelyEnd(segmentID: id, position: position, speechEnd: speechEnd,
                                                               decidedAt: MonotonicClock.nanoseconds()).event))
            case .resumed(let id, let at):
                flushRun()
                Self.log.debug("segment \(id): speech resumed at \(formatClockTime(at))", object: element)
                outputs.append(.event(SpeechBoundary.resumed(segmentID: id, at: at).event))
            case .end(let id, let start, let end, let speechEnd, let reason, let mean, let mode):
                flushRun()
                let decidedAt = MonotonicClock.nanoseconds()
                outputs.append(.event(SpeechBoundary.end(segmentID: id, start: start, end: end, speechEnd: speechEnd,
                                                         reason: reason, decidedAt: decidedAt).event))
                segmentsClosed.add(1, ordering: .relaxed)
                Self.log.info("segment \(id) \(formatClockTime(start))-\(formatClockTime(end)) ends: \(reason.rawValue)", object: element)
                if posts { element.postElementMessage(VADSegmentMessage(segmentID: id, start: start, end: end, speechEnd: speechEnd,
                                                             reason: reason, meanProbability: Double(mean)).structure) }
                // End-of-speech detection delay, in the audio's own time.
                element.postElementMessage(LatencyMessage(segmentID: id, stage: "vad", figures: [
                    .init("eos-detection-ms", Double(end > speechEnd ? end - speechEnd : 0) / 1e6
                          + (Self.waitedForLookahead(mode: mode, reason: reason) ? Double(Self.lookaheadMs) : 0)),
                ]).structure)
            }
        }
        flushRun()
        return outputs
    }

    /// Whether a segment's end was decided only once the detector's lookahead
    /// after it had arrived: in vad mode, but for EOS (the frames still
    /// waiting are then decided at once); ptt and always do not wait.
    public static func waitedForLookahead(mode: SegmentationMode, reason: SegmentEndReason) -> Bool {
        mode == .vad && reason != .eos
    }

    /// A VAD feeding only the bus (its messages) is fine.
    public static let outputIsOptional = true

    /// The audio of a segment's start leaves only once min-speech-ms of
    /// speech confirmed it, prefix padding included, and each frame is
    /// judged only once the detector's lookahead has arrived: that much latency
    /// (in vad mode; the most a `mode` switch while PLAYING may need).
    public var addedLatency: UInt64 {
        let configuration = settings.withLock { $0.segmenter }
        return UInt64(configuration.prefixPaddingMs + configuration.minSpeechMs + Self.lookaheadMs) * Gst.millisecond
    }

    /// How long each frame's decision waits for the frames after it (the detector's lookahead).
    public static let lookaheadMs = SpeechClassifier.lookahead * 10

    /// The segmenter fed by the detector: every frame reaches it with the
    /// lookahead's frames already heard after it, and those count towards
    /// silence-duration-ms, so a pause ends a segment silence-duration-ms
    /// after the speech, the wait included (see `Segmenter.init`).
    public static func segmenter(_ configuration: SegmenterConfiguration) -> Segmenter {
        Segmenter(configuration, heardAhead: SpeechClassifier.lookahead)
    }

    public func sinkEvent(_ event: Event) -> [Output] {
        switch event.view {
        case .caps(let caps):
            guard let format = AudioFormat(caps: caps) else { return [.event(event)] }
            let rate = format.rate
            let pending = decided { state in
                guard state.rate != rate else { return [] }
                // A new rate: what is carried is at the old rate (dropped, less
                // than 10 ms); the frames the detector was still judging are
                // decided at the old rate; a fresh detector learns the new stream's floor.
                let waited = Self.drain(&state)
                state.carry.removeAll()
                state.rate = rate
                state.detector = SpeechClassifier(rate: rate)
                return waited
            }
            return pending + [.event(event)]
        case .segment(let segment):
            // Output time is upstream's running time, so segments that restart
            // their timestamps (concat, playlists) stay one timeline: forward
            // one segment from 0 and swallow the rest.
            let first = state.withLock { state -> Bool in
                if let segment { state.segment = segment }
                defer { state.sentSegment = true }
                return !state.sentSegment
            }
            return first ? [.event(Event.timeSegment(start: 0))] : []
        case .eos:
            return decided { state in Self.drain(&state) + state.segmenter.finish() } + [.event(event)]
        case .flushStop:
            let (configuration, down) = settings.withLock { ($0.segmenter, $0.pttActive) }
            // A flushing seek starts running time again: changes stamped on
            // the old timeline would land at the wrong frames, so the button
            // and the mode start from where they are now.
            changes.withLock { $0 = ClockedChanges() }
            state.withLock { state in
                // sentSegment is false again: the next segment is forwarded.
                state = State(rate: state.rate, configuration: configuration, buttonDown: down)
            }
            return [.event(event)]
        default:
            return [.event(event)]
        }
    }
}
