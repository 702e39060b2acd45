import Foundation
import Parley
import ParleyTestSupport
import PipelineTestSupport
import Testing

/// An input that cannot be read is an error about the data (a rerun reads
/// it no better: a work queue fails the job at once) whichever element of
/// decodebin's says so first.
@Suite struct PipelineErrorTests {
    init() { Parley.register(testElements) }

    /// A WAV header that does not parse, and bytes after it.
    func corruptWAV() throws -> URL {
        let file = TestSupport.temporaryFolder().appendingPathComponent("corrupt.wav")
        try (Data("RIFF\u{0}\u{0}\u{0}\u{0}WAVEfmt this is not audio".utf8) + (0..<4000).map { UInt8(truncatingIfNeeded: $0 &* 7919) })
            .write(to: file)
        return file
    }

    /// How a pipeline that must fail failed (nil, recorded, if it played to the end).
    func failure(of description: String) async throws -> PipelineError? {
        do {
            try await Pipeline(launch: description).run()
            Issue.record("played to the end: \(description)")
            return nil
        } catch {
            return error
        }
    }

    @Test func aWAVWhoseHeaderDoesNotParseIsUnreadableData() async throws {
        let file = try corruptWAV()
        let error = try await failure(of: "filesrc location=\(Pipeline.quoted(file.path)) ! decodebin ! fakesink")
        guard case .unreadableData(_, let message, _) = error else { Issue.record("\(String(describing: error))"); return }
        #expect(message.hasSuffix("(reading \"\(file.path)\")"), "\(message)")
    }

    /// What decodebin posts when the demuxer's own error came while it was
    /// bringing the demuxer up (and was dropped): GStreamer does this on a
    /// busy machine only, so a test source posts decodebin's exact error.
    @Test func decodebinsEveryStreamEndedWithoutDataIsUnreadableDataSaidPlainly() async throws {
        let details = "../gst/playback/gstdecodebin2.c(4720): gst_decode_bin_expose (): /GstPipeline:pipeline1/GstDecodeBin:decodebin1:\nall streams without buffers"
        let error = try await failure(of: "parleytestsrc name=decoder fail-debug=\(Pipeline.quoted(details)) ! fakesink")
        #expect(error.map { if case .unreadableData("decoder", "nothing could be decoded: every stream ended before any data", _) = $0 { true } else { false } } == true,
                "\(String(describing: error))")
        // Another stream error of the same code is no judgement of the data.
        let other = try await failure(of: "parleytestsrc name=decoder fail-debug=\"internal data stream error\" ! fakesink")
        #expect(other.map { if case .elementError("decoder", "GStreamer encountered a general stream error.", _) = $0 { true } else { false } } == true,
                "\(String(describing: other))")
    }
}
