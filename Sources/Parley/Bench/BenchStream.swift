import Foundation
import ParleyCore

/// The corpus laid end to end as one live recording (a WAV file): the warm-up
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
    /// The WAV file the stream was written to.
    public var path: String
    public var sampleCount: Int
    public var placements: [Placement]
    public var duration: Double { Double(sampleCount) / Double(Self.rate) }

    /// Decodes every entry (a WAV directly; other formats through
    /// GStreamer's decodebin) and lays them out in a 16 kHz WAV at `path`:
    /// `warmup` entries from the start of the corpus first, unmeasured, then
    /// all of them. Each recording is written as it is decoded, so a corpus
    /// of any length takes the memory of its longest recording (and of the
    /// warm-up ones, kept for their measured play).
    public init(corpus: Corpus, warmup: Int, gap: Double, writingTo path: String) throws(CorpusError) {
        func failed(_ error: WAVFileWriter.CannotWrite) -> CorpusError {
            CorpusError(file: path, line: 0, "cannot write the bench stream: \(error)")
        }
        let file: WAVFileWriter
        do { file = try WAVFileWriter(path: path, rate: Self.rate) } catch { throw failed(error) }
        func append(_ samples: [Int16]) throws(CorpusError) {
            do { try file.append(samples) } catch { throw failed(error) }
        }
        let gapSamples = [Int16](repeating: 0, count: Int(gap * Double(Self.rate)))
        var placements: [Placement] = []
        // The warm-up recordings are played again, measured: kept until then, not decoded twice.
        var warmupClips: [Int: [Int16]] = [:]
        try append([Int16](repeating: 0, count: Self.rate / 2))
        let order = Array(0..<min(warmup, corpus.entries.count)).map { ($0, false) } + corpus.entries.indices.map { ($0, true) }
        for (index, measured) in order {
            let clip: [Int16]
            if let kept = warmupClips.removeValue(forKey: index) {
                clip = kept
            } else {
                clip = try CorpusAudio.samples(corpus.audioPath(corpus.entries[index]))
                if !measured { warmupClips[index] = clip }
            }
            placements.append(Placement(entry: index, offset: Double(file.sampleCount) / Double(Self.rate),
                                        duration: Double(clip.count) / Double(Self.rate), measured: measured))
            try append(clip)
            try append(gapSamples)
        }
        do { try file.finish() } catch { throw failed(error) }
        self.path = path
        self.sampleCount = file.sampleCount
        self.placements = placements
    }
}
