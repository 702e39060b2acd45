import Foundation
import ParleyCore

/// The corpus laid end to end as one live recording: the warm-up
/// recordings, then every measured one, each followed by a pause long
/// enough for the VAD to close its last segment. One pipeline plays it all
/// (as one long session would), so models load once, in the warm-up, and
/// segments are told apart by where they fall on the timeline.
public struct BenchStream: Sendable {
    /// Where one corpus entry lies in the stream.
    public struct Placement: Sendable, Equatable {
        public var entry: Int
        /// Seconds from the stream's start.
        public var offset: Double
        public var duration: Double
        /// false for warm-up plays, whose segments are not reported.
        public var measured: Bool
        public var end: Double { offset + duration }
    }

    public static let rate = 16_000
    public var samples: [Int16]
    public var placements: [Placement]
    public var duration: Double { Double(samples.count) / Double(Self.rate) }
    public var measuredAudioSeconds: Double { placements.filter(\.measured).reduce(0) { $0 + $1.duration } }

    /// Decodes every entry (a WAV directly; other formats through
    /// GStreamer's decodebin) and lays them out: `warmup` entries from the
    /// start of the corpus first, unmeasured, then all of them.
    public init(corpus: Corpus, warmup: Int, gap: Double) throws(CorpusError) {
        var decoded: [Int: [Int16]] = [:]
        func audio(_ index: Int) throws(CorpusError) -> [Int16] {
            if let samples = decoded[index] { return samples }
            let samples = try Self.decode(corpus.audioPath(corpus.entries[index]), manifest: corpus.manifest)
            decoded[index] = samples
            return samples
        }
        let gapSamples = Int(gap * Double(Self.rate))
        var samples: [Int16] = Array(repeating: 0, count: Self.rate / 2)
        var placements: [Placement] = []
        let order = Array(0..<min(warmup, corpus.entries.count)).map { ($0, false) } + corpus.entries.indices.map { ($0, true) }
        for (index, measured) in order {
            let clip = try audio(index)
            placements.append(Placement(entry: index, offset: Double(samples.count) / Double(Self.rate),
                                        duration: Double(clip.count) / Double(Self.rate), measured: measured))
            samples += clip
            samples += Array(repeating: 0, count: gapSamples)
        }
        self.samples = samples
        self.placements = placements
    }

    /// A recording as 16 kHz mono samples.
    static func decode(_ path: String, manifest: String) throws(CorpusError) -> [Int16] {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw CorpusError(file: manifest, line: 0, "\(path): cannot read it")
        }
        if let (samples, rate) = try? WAVDecoder.decode(data) {
            return rate == Self.rate ? samples : Resampler.resample(samples, from: rate, to: Self.rate)
        }
        // Anything else GStreamer decodes (FLAC, MP3, Ogg…), converted once, before any timing.
        guard !path.contains("\"") else { throw CorpusError(file: manifest, line: 0, "\(path): a path with \" cannot be decoded") }
        let temporary = FileManager.default.temporaryDirectory.appendingPathComponent("parley-bench-\(getpid())-decode.wav").path
        defer { try? FileManager.default.removeItem(atPath: temporary) }
        let launch = "filesrc location=\"\(path)\" ! decodebin ! audioconvert ! audioresample "
            + "! audio/x-raw,format=S16LE,channels=1,rate=\(Self.rate) ! wavenc ! filesink location=\"\(temporary)\""
        let outcome = Self.runToEnd(launch)
        if let failure = outcome { throw CorpusError(file: manifest, line: 0, "\(path): cannot decode it: \(failure)") }
        guard let wav = try? Data(contentsOf: URL(fileURLWithPath: temporary)), let (samples, _) = try? WAVDecoder.decode(wav) else {
            throw CorpusError(file: manifest, line: 0, "\(path): decoding gave no audio")
        }
        return samples
    }

    /// Plays a pipeline to its end on this thread; the error, if any.
    private static func runToEnd(_ launch: String) -> String? {
        do {
            let pipeline = try Pipeline(launch: launch)
            try pipeline.play()
            defer { pipeline.stop() }
            let done = DispatchSemaphore(value: 0)
            let failure = LockedBox<String?>(nil)
            Task {
                for await event in pipeline.events {
                    if case .error(let source, let message, _) = event { failure.set("\(source): \(message)"); break }
                    if case .eos = event { break }
                }
                done.signal()
            }
            done.wait()
            return failure.get()
        } catch {
            return error.description
        }
    }

    /// The stream as a 16 kHz WAV at `path`.
    public func write(to path: String) throws(CorpusError) {
        do { try WAVEncoder.encode(samples, rate: Self.rate).write(to: URL(fileURLWithPath: path)) } catch {
            throw CorpusError(file: path, line: 0, "cannot write the bench stream: \((error as NSError).localizedDescription)")
        }
    }
}

/// A value shared between a task and the thread waiting for it.
final class LockedBox<Value: Sendable>: @unchecked Sendable {
    // @unchecked: every access holds the lock.
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func set(_ newValue: Value) { lock.withLock { value = newValue } }
    func get() -> Value { lock.withLock { value } }
}
