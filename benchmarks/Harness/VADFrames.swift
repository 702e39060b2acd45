import Foundation
import ParleyCore
import VADSegmenter

/// Per-10 ms-frame decisions of Parley's speech detector on a mono S16LE WAV
/// file (vadbench's are 16 kHz; any rate the element takes whose 10 ms is a
/// whole number of samples, run at the file's own rate as vadsegmenter runs),
/// for scoring with the vadbench contract: each row is the
/// detector's probability and the element's decision (1 when the frame is at
/// or above the threshold inside a segment vadsegmenter opened with its
/// defaults, or the onset threshold asked for: speech too short for
/// min-speech-ms, or never confident enough, never counts), and the
/// segments it cut, with the audio time at which it decided each opened and
/// closed. As in the element, each frame's probability is the detector's
/// output `SpeechClassifier.lookahead` frames later (the last frames' from
/// silence after the file), and a decision is made when that output is:
/// the opened-at and closed-at times carry the lookahead.
enum VADFrames {
    struct Segment {
        var start: UInt64, openedAt: UInt64, end: UInt64 = 0, speechEnd: UInt64 = 0, closedAt: UInt64 = 0
    }

    /// The rows, the segments, and the median CPU time of a whole detector
    /// pass over `runs` passes (a fresh detector each): one pass varies by
    /// ±40% on a shared 2-core machine. The segmenter is not timed.
    static func frames(wav path: String, runs: Int = 5, configuration: SegmenterConfiguration = VADSegmenterElement.defaultConfiguration)
        throws -> (rows: [String], segments: [Segment], seconds: Double) {
        let (samples, rate) = try WAVDecoder.decode(try Data(contentsOf: URL(fileURLWithPath: path)))
        let hop = rate / 100
        var probabilities: [Float] = []
        var times: [Double] = []
        for _ in 0..<runs {
            var detector = SpeechClassifier(rate: rate)
            probabilities.removeAll(keepingCapacity: true)
            probabilities.reserveCapacity(samples.count / hop)
            // Frames come in order and only their outputs are kept: nothing to hold but their places.
            var waiting = DecisionDelay<Void>(frames: SpeechClassifier.lookahead)
            let started = threadCPUSeconds()
            forEachFrame(of: samples, hop: hop) {
                if let decided = waiting.push((), probability: detector.probability(of: $0)) { probabilities.append(decided.probability) }
            }
            probabilities += detector.decideWaiting(in: &waiting, frameSamples: hop).map(\.probability)
            times.append(threadCPUSeconds() - started)
        }
        let (rows, segments) = decide(samples, probabilities, hop: hop, configuration: configuration)
        return (rows, segments, times.sorted()[times.count / 2])
    }

    /// The element's decisions and segments for probabilities computed
    /// elsewhere (little-endian float32, one per 10 ms frame, each already
    /// paired with the frame it is about; decided as late as the shipped
    /// detector's lookahead): training scores a candidate network as the
    /// element would use it before any Swift is written for it.
    static func frames(wav path: String, probabilities file: String,
                       configuration: SegmenterConfiguration = VADSegmenterElement.defaultConfiguration) throws -> (rows: [String], segments: [Segment]) {
        let (samples, rate) = try WAVDecoder.decode(try Data(contentsOf: URL(fileURLWithPath: path)))
        let hop = rate / 100
        let data = try Data(contentsOf: URL(fileURLWithPath: file))
        let probabilities = data.withUnsafeBytes { raw in
            (0..<(data.count / 4)).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self))) }
        }
        guard probabilities.count == samples.count / hop else {
            throw FrameCountMismatch(description: "\(file) holds \(probabilities.count) probabilities, \(path) has \(samples.count / hop) frames")
        }
        return decide(samples, probabilities, hop: hop, configuration: configuration)
    }

    struct FrameCountMismatch: Error, CustomStringConvertible {
        var description: String
    }

    private static func decide(_ samples: [Int16], _ probabilities: [Float], hop: Int,
                               configuration: SegmenterConfiguration) -> (rows: [String], segments: [Segment]) {
        let (decisions, segments) = segment(samples, probabilities, hop: hop, configuration: configuration)
        return (zip(probabilities, decisions).map { "\($0) \($1 ? 1 : 0)" }, segments)
    }

    /// vadsegmenter's own state machine, configured as the element is by default unless told otherwise.
    static func segment(_ samples: [Int16], _ probabilities: [Float], hop: Int,
                        configuration: SegmenterConfiguration) -> ([Bool], [Segment]) {
        var segmenter = VADSegmenterElement.segmenter(configuration)
        let frameNs: UInt64 = 10_000_000
        let lookahead = UInt64(VADSegmenterElement.lookaheadMs) * 1_000_000
        var decisions = [Bool](repeating: false, count: probabilities.count)
        var segments: [Segment] = []
        /// `now` is when the segmenter saw the frame; a decision waited the lookahead after
        /// it, as the element counts it (not at the file's end, where the frames still waiting are decided at once).
        func apply(_ actions: [SegmenterAction], now: UInt64) {
            for action in actions {
                switch action {
                case .start(_, let pts): segments.append(Segment(start: pts, openedAt: now + lookahead))
                case .audio(let frame, let id):
                    if id != nil, frame.probability >= configuration.threshold { decisions[Int(frame.pts / frameNs)] = true }
                case .end(_, _, let end, let speechEnd, let reason, _, let mode):
                    segments[segments.count - 1].end = end
                    segments[segments.count - 1].speechEnd = speechEnd
                    segments[segments.count - 1].closedAt = now
                        + (VADSegmenterElement.waitedForLookahead(mode: mode, reason: reason) ? lookahead : 0)
                case .likelyEnd, .resumed:
                    break  // what downstream may start early; the segment's frames are the same
                }
            }
        }
        for (index, probability) in probabilities.enumerated() {
            let pts = UInt64(index) * frameNs
            let frame = Frame(samples: samples[(index * hop)..<(index * hop + hop)], pts: pts, duration: frameNs,
                              probability: probability, energy: 0)
            apply(segmenter.push(frame, pttActive: false), now: pts + frameNs)
        }
        apply(segmenter.finish(), now: UInt64(probabilities.count) * frameNs)
        return (decisions, segments)
    }
}

/// Calls `body` with each whole `hop`-sample frame of `samples`, in order
/// (a last partial frame is left out, as the element holds it back).
func forEachFrame(of samples: [Int16], hop: Int, _ body: (UnsafeBufferPointer<Int16>) -> Void) {
    samples.withUnsafeBufferPointer { all in
        var offset = 0
        while offset + hop <= all.count {
            body(UnsafeBufferPointer(rebasing: all[offset..<(offset + hop)]))
            offset += hop
        }
    }
}

/// CPU time of this thread: the speed contract counts CPU seconds on one core, not wall time.
func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// The detector's input features per 10 ms frame, as little-endian float32
/// rows of `SpeechFeatures.count`: what benchmarks/vad/train learns from.
enum VADFeatures {
    static func write(wav path: String, to output: String) throws {
        let (samples, rate) = try WAVDecoder.decode(try Data(contentsOf: URL(fileURLWithPath: path)))
        var features = SpeechFeatures(rate: rate)
        let hop = rate / 100
        var rows = [Float]()
        rows.reserveCapacity(samples.count / hop * SpeechFeatures.count)
        forEachFrame(of: samples, hop: hop) { frame in
            features.update(with: frame)
            features.withValues { rows += $0 }
        }
        try rows.withUnsafeBytes { Data($0) }.write(to: URL(fileURLWithPath: output))
    }
}

/// Nothing but detector passes over a file, for callgrind's instruction
/// counts (`benchmarks/vad/instructions`): the count of one pass less the
/// count of `passes` passes, over the frames between them, is the cost of a
/// frame with decoding and start-up cancelled out. `featuresOnly` runs the
/// front end alone, so the network's share is the difference.
enum VADCost {
    /// Frames in one pass.
    static func run(wav path: String, passes: Int, featuresOnly: Bool) throws -> Int {
        let (samples, rate) = try WAVDecoder.decode(try Data(contentsOf: URL(fileURLWithPath: path)))
        let hop = rate / 100
        var checksum: Float = 0
        for _ in 0..<passes {
            // A fresh detector, or front end, per pass.
            if featuresOnly {
                var features = SpeechFeatures(rate: rate)
                forEachFrame(of: samples, hop: hop) { frame in
                    features.update(with: frame)
                    checksum += features.withValues { $0[0] }
                }
            } else {
                var detector = SpeechClassifier(rate: rate)
                forEachFrame(of: samples, hop: hop) { checksum += detector.probability(of: $0) }
            }
        }
        // Printed so the optimiser cannot drop the passes.
        FileHandle.standardError.write(Data("checksum \(checksum)\n".utf8))
        return samples.count / hop
    }
}
