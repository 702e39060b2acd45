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
