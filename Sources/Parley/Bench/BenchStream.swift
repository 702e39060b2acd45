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
    public var measuredAudioSeconds: Double { placements.filter(\.measured).reduce(0) { $0 + $1.duration } }

    /// Decodes every entry (a WAV directly; other formats through
    /// GStreamer's decodebin) and lays them out in a 16 kHz WAV at `path`:
    /// `warmup` entries from the start of the corpus first, unmeasured, then
    /// all of them. Each recording is written as it is decoded, so a corpus
    /// of any length takes the memory of its longest recording.
    public init(corpus: Corpus, warmup: Int, gap: Double, writingTo path: String) throws(CorpusError) {
        func failed(_ error: any Error) -> CorpusError {
            CorpusError(file: path, line: 0, "cannot write the bench stream: \((error as NSError).localizedDescription)")
        }
        guard FileManager.default.createFile(atPath: path, contents: WAVEncoder.header(sampleCount: 0, rate: Self.rate)),
              let file = FileHandle(forWritingAtPath: path) else {
            throw CorpusError(file: path, line: 0, "cannot write the bench stream: \(String(cString: strerror(errno)))")
        }
        defer { try? file.close() }
        var count = 0
        func append(_ samples: [Int16]) throws(CorpusError) {
            do { try file.seekToEnd(); try file.write(contentsOf: samples.withUnsafeBytes { Data($0) }) } catch { throw failed(error) }
            count += samples.count
        }
        let gapSamples = [Int16](repeating: 0, count: Int(gap * Double(Self.rate)))
        var placements: [Placement] = []
        try append([Int16](repeating: 0, count: Self.rate / 2))
        let order = Array(0..<min(warmup, corpus.entries.count)).map { ($0, false) } + corpus.entries.indices.map { ($0, true) }
        for (index, measured) in order {
            let clip = try CorpusAudio.samples(corpus.audioPath(corpus.entries[index]))
            placements.append(Placement(entry: index, offset: Double(count) / Double(Self.rate),
                                        duration: Double(clip.count) / Double(Self.rate), measured: measured))
            try append(clip)
            try append(gapSamples)
        }
        // The header again, now that the length is known.
        do { try file.seek(toOffset: 0); try file.write(contentsOf: WAVEncoder.header(sampleCount: count, rate: Self.rate)) } catch {
            throw failed(error)
        }
        self.path = path
        self.sampleCount = count
        self.placements = placements
    }
}
