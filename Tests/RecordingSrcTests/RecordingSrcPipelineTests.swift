import Foundation
import Parley
import ParleyCore
import ParleyTestSupport
import PipelineTestSupport
import Testing

/// recordingsrc reads its WAV as it plays: what leaves is the recording at
/// 16 kHz mono, in chunk-ms buffers on the recording's timeline.
@Suite struct RecordingSrcPipelineTests {
    init() { Parley.register(testElements) }
    let scratch = TestSupport.temporaryFolder()

    /// Interleaved 16-bit stereo at `rate`: a 440 Hz tone on the left, 1 kHz on the right.
    func stereoWAV(seconds: Double, rate: Int, truncatedBy cut: Int = 0) throws -> URL {
        let frames = Int(seconds * Double(rate))
        var samples: [Int16] = []
        for frame in 0..<frames {
            let t = Double(frame) / Double(rate)
            samples += [Int16(8_000 * sin(2 * Double.pi * 440 * t)), Int16(6_000 * sin(2 * Double.pi * 1_000 * t))]
        }
        var data = WAVEncoder.header(sampleCount: samples.count, rate: rate, channels: 2)
        samples.withUnsafeBytes { data.append(contentsOf: $0) }
        let url = scratch.appendingPathComponent("tone-\(rate)-\(cut).wav")
        try data.prefix(data.count - cut).write(to: url)
        return url
    }

    func play(_ file: URL, sink: String) async throws -> (spans: [AudioRecordingSink.Span], samples: [Int16]) {
        let pipeline = try Pipeline(launch: "recordingsrc location=\"\(file.path)\" pace=false chunk-ms=20 ! parleytestaudiosink name=\(sink)")
        try await pipeline.run()
        return AudioRecordingSink.take(sink)
    }

    @Test func aRecordingLeavesAsTheWholeFileDecodedAt16kHzInChunks() async throws {
        let file = try stereoWAV(seconds: 3.3, rate: 44_100)
        let (spans, samples) = try await play(file, sink: "recording44")
        let whole = try WAVDecoder.decode(try Data(contentsOf: file), resampledTo: 16_000)
        #expect(whole.count == 52_800)
        #expect(Array(samples.prefix(whole.count)) == whole, "read a piece at a time, it is the file decoded whole")
        #expect(samples.count - whole.count <= 3, "\(samples.count) samples")
        #expect(spans.dropLast().allSatisfy { $0.duration == 20_000_000 }, "20 ms buffers")
        #expect(zip(spans, spans.dropFirst()).allSatisfy { $0.end == $1.pts }, "on the recording's timeline, without gaps")
        #expect(spans.allSatisfy { $0.rate == 16_000 })
    }

    /// Paced, it is a microphone: live. Unpaced, it is a file: cloudstt
    /// must not speculate on it (`parley bench --no-pace`).
    @Test(arguments: [true, false])
    func itIsLiveExactlyWhenPaced(pace: Bool) throws {
        let file = try stereoWAV(seconds: 0.1, rate: 16_000)
        let pipeline = try Pipeline(launch: "recordingsrc name=source location=\"\(file.path)\" pace=\(pace) ! fakesink")
        defer { pipeline.stop() }
        let latency = try #require(pipeline.element(named: "source")?.latency)
        #expect(latency.live == pace)
    }

    @Test func aFileShorterThanItsHeaderSaysPlaysWhatItHolds() async throws {
        // A recording cut off while it was written: 1 s announced, 0.5 s there (and half a frame).
        let file = try stereoWAV(seconds: 1, rate: 16_000, truncatedBy: 16_000 * 2 + 2)
        let (_, samples) = try await play(file, sink: "truncated")
        #expect(samples.count == 7_999, "\(samples.count)")
    }

    @Test func whatIsNoWAVIsAnErrorNamingTheFile() async throws {
        let file = scratch.appendingPathComponent("notes.wav")
        try "not audio".write(to: file, atomically: true, encoding: .utf8)
        var failure = ""
        do { _ = try await play(file, sink: "notwav") } catch { failure = "\(error)" }
        #expect(failure.contains("notes.wav: the file is not a WAV file"), "\(failure)")
        var missing = ""
        do { _ = try await play(scratch.appendingPathComponent("nothere.wav"), sink: "missing") } catch { missing = "\(error)" }
        #expect(missing.contains("nothere.wav") && missing.contains("No such file"), "\(missing)")
    }
}
