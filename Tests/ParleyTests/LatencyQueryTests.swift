import Foundation
import ParleyTestSupport
import Testing
import VADSegmenter

/// LATENCY queries as GStreamer's latency tracer sees them: each element's
/// own share, never negative, and the async elements' `latency` property
/// added when the pipeline is live.
@Suite struct LatencyQueryTests {
    let scratch = TestSupport.temporaryFolder()

    /// Each element's reported share (`element-reported-latency`), by element name: (live, min ns).
    func reportedLatency(source: [String], stage: [String]) async throws -> [String: (live: Bool, min: UInt64)] {
        var environment = TestSupport.gstEnvironment(registry: scratch)
        environment["GST_TRACERS"] = "latency(flags=reported)"
        environment["GST_DEBUG"] = "GST_TRACER:7"
        environment["GST_DEBUG_NO_COLOR"] = "1"
        let result = try await TestSupport.run("/usr/bin/gst-launch-1.0", source + [
            "!", "audioconvert", "!", "audioresample", "!", "audio/x-raw,format=S16LE,channels=1,rate=16000", "!", "vadsegmenter", "!",
        ] + stage + ["!", "fakesink"], environment: environment)
        #expect(result.status == 0, "\(result.stderr.suffix(2000))")
        var reported: [String: (live: Bool, min: UInt64)] = [:]
        for line in result.stderr.split(separator: "\n") where line.contains("element-reported-latency, element-id") {
            guard let element = line.firstMatch(of: /element=\(string\)([a-z0-9]+)/)?.1,
                  let live = line.firstMatch(of: /live=\(boolean\)(\d)/)?.1,
                  let min = line.firstMatch(of: /min=\(guint64\)(\d+)/)?.1 else { continue }
            reported[String(element)] = (live == "1", UInt64(min) ?? 0)
        }
        return reported
    }

    @Test func liveTheLatencyPropertyIsAddedToWhatUpstreamReports() async throws {
        let live = ["audiotestsrc", "is-live=true", "num-buffers=30"]
        let reported = try await reportedLatency(source: live, stage: ["cloudstt", "local-engine=pocketsphinx", "latency=1500"])
        #expect(reported["cloudstt0"]?.live == true)
        #expect(reported["cloudstt0"]?.min == 1_500_000_000, "\(reported)")
        // What vadsegmenter holds back: prefix padding and minimum speech (300 + 200 ms), and its detector's lookahead.
        #expect(reported["vadsegmenter0"]?.min == UInt64(500 + VADSegmenterElement.lookaheadMs) * 1_000_000, "\(reported)")
        let translator = try await reportedLatency(source: live, stage: ["cloudstt", "local-engine=pocketsphinx", "!", "streamtranslator"])
        #expect(translator["streamtranslator0"]?.min == 500_000_000, "the default latency, \(translator)")
    }

    /// A recorder beside a branch that plays in time (the apps' transcript
    /// saved while the answer is spoken): the recorder never waits on the
    /// clock, so it must not bound the pipeline's latency. It used to answer
    /// as live with its own branch's maximum (1 s, the queue's), below what
    /// the playing branch needs, and GStreamer warned "clock problem:
    /// Impossible to configure latency" and left the latency unset.
    @Test func aRecorderDoesNotBoundTheLatencyOfABranchThatPlays() async throws {
        var environment = TestSupport.gstEnvironment(registry: scratch)
        environment["GST_DEBUG"] = "bin:5"
        environment["GST_DEBUG_NO_COLOR"] = "1"
        let session = scratch.appendingPathComponent("recorder-latency").path
        let result = try await TestSupport.run("/usr/bin/gst-launch-1.0", [
            "recordingsrc", "location=/usr/share/sounds/alsa/Front_Center.wav", "!", "tee", "name=t",
            "t.", "!", "queue", "!", "rec.audio_%u",
            "t.", "!", "queue", "!", "vadsegmenter", "!", "cloudstt", "local-engine=pocketsphinx", "latency=2000", "!", "fakesink", "sync=true",
            "sessionrecorder", "name=rec", "location=\(session)",
        ], environment: environment)
        let output = result.stdout + result.stderr
        #expect(result.status == 0, "\(output.suffix(2000))")
        #expect(!output.contains("Impossible to configure latency") && !output.contains("clock problem"),
                "\(output.split(separator: "\n").filter { $0.contains("latency") }.suffix(10))")
        // The playing branch's latency: the VAD's hold, cloudstt's 2 s, the source's 20 ms chunk.
        let configured = output.matches(of: /configured latency of 0:00:(\d+)\.(\d{3})/).map { Int($0.1)! * 1000 + Int($0.2)! }
        #expect(configured.max() == 500 + VADSegmenterElement.lookaheadMs + 2000 + 20, "\(configured)")
    }

    @Test func notLiveNoElementReportsLessThanUpstream() async throws {
        let file = ["filesrc", "location=\(SpeechFixtures.clips[0])", "!", "wavparse"]
        let reported = try await reportedLatency(source: file, stage: ["cloudstt", "local-engine=pocketsphinx", "latency=1500"])
        #expect(reported["cloudstt0"]?.live == false)
        // The tracer's share is this element's minimum less upstream's: a
        // minimum below the VAD's used to wrap around to ~1.8e19.
        #expect(reported["cloudstt0"]?.min == 0, "\(reported)")
        #expect(reported["vadsegmenter0"]?.min ?? 0 > 0)
    }
}
