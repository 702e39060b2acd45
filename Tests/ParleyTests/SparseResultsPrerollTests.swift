import Foundation
import GstKit
import Parley
import ParleyTestSupport
import Testing

/// Results are sparse (nothing until someone has spoken), yet a sink after a
/// Parley element prerolls at once, as after any GStreamer element: the
/// element sends a GAP after each SEGMENT. transcriptsink is an ordinary
/// prerolling sink because of it; as a sink that did not preroll it let
/// gst-launch-1.0 hang after EOS (GstBin's race, transcriptsink's docs).
@Suite struct SparseResultsPrerollTests {
    let scratch = TestSupport.temporaryFolder()

    @Test func aTranscriptSinkPrerollsBeforeAnyoneSpeaks() throws {
        let transcript = scratch.appendingPathComponent("silence.txt").path
        // Endless silence, not live: the sources push in PAUSED, no segment
        // ever closes, so no transcript comes and only a GAP can preroll.
        let pipeline = try Pipeline(launch: """
            audiotestsrc wave=silence samplesperbuffer=320 ! audio/x-raw,format=S16LE,rate=16000,channels=1
              ! vadsegmenter ! cloudstt provider=compatible base-url=\(ScriptedHTTPServer.closedURL())/v1 max-retries=0
              ! transcriptsink name=sink location=\(transcript)
            """)
        defer { pipeline.stop() }
        #expect(try pipeline.get("async", of: "sink").bool, "transcriptsink takes part in preroll by default")
        try pipeline.pause()
        #expect(pipeline.settledState(within: .seconds(30)) == .paused,
                "the sink is still waiting for a first transcript to preroll")
        #expect(try pipeline.get("results-written", of: "sink").uint64 == 0)
    }
}
