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

    public static let rate = CorpusAudio.rate
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
            let samples = try CorpusAudio.samples(corpus.audioPath(corpus.entries[index]))
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

    /// The stream as a 16 kHz WAV at `path`.
    public func write(to path: String) throws(CorpusError) {
        do { try WAVEncoder.encode(samples, rate: Self.rate).write(to: URL(fileURLWithPath: path)) } catch {
            throw CorpusError(file: path, line: 0, "cannot write the bench stream: \((error as NSError).localizedDescription)")
        }
    }
}
