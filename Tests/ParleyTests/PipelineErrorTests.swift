import Foundation
import Parley
import ParleyTestSupport
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

    @Test func aWAVWhoseHeaderDoesNotParseIsUnreadableData() async throws {
        let file = try corruptWAV()
        let pipeline = try Pipeline(launch: "filesrc location=\(Pipeline.quoted(file.path)) ! decodebin ! fakesink")
        do {
            try await pipeline.run()
            Issue.record("a corrupt WAV played to the end")
        } catch {
            guard case .unreadableData(_, let message, _) = error else { Issue.record("\(error)"); return }
            #expect(message.hasSuffix("(reading \"\(file.path)\")"), "\(message)")
        }
    }

    /// What decodebin posts when the demuxer's own error came while it was
    /// bringing the demuxer up (and was dropped): GStreamer does this on a
    /// busy machine only, so a test source posts decodebin's exact error.
    @Test func decodebinsEveryStreamEndedWithoutDataIsUnreadableDataSaidPlainly() async throws {
        let details = "../gst/playback/gstdecodebin2.c(4720): gst_decode_bin_expose (): /GstPipeline:pipeline1/GstDecodeBin:decodebin1:\nall streams without buffers"
        let pipeline = try Pipeline(launch: "parleytestsrc name=decoder fail-debug=\(Pipeline.quoted(details)) ! fakesink")
        do {
            try await pipeline.run()
            Issue.record("the source's error was not seen")
        } catch {
            guard case .unreadableData("decoder", let message, _) = error else { Issue.record("\(error)"); return }
            #expect(message == "nothing could be decoded: every stream ended before any data")
        }
        // Another stream error of the same code is no judgement of the data.
        let other = try Pipeline(launch: "parleytestsrc name=decoder fail-debug=\"internal data stream error\" ! fakesink")
        do {
            try await other.run()
            Issue.record("the source's error was not seen")
        } catch {
            guard case .elementError("decoder", let message, _) = error else { Issue.record("\(error)"); return }
            #expect(message == "GStreamer encountered a general stream error.")
        }
    }
}
