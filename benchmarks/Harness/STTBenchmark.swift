import Foundation
import Parley
import ParleyCore
import ParleyServer

/// cloudstt's own overhead: the time from request sent to result complete
/// through the element, next to curl's round trip with the same file to
/// the same `parley serve`, in one run. Each request's own engine time
/// (the openai-processing-ms header) is taken off both, so the decoder's
/// run-to-run variation does not hide the client's overhead.
struct STTBenchmark {
    var runs: Int

    static let clips = ["0870", "0880", "0890", "0920", "0930"].map {
        "/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-\($0).wav"
    }

    /// (round trip, server processing) in ms.
    func curl(_ clip: String, url: String) throws -> (Double, Double) {
        let times = try Curl.measure("%{time_total} %header{openai-processing-ms}",
                                     ["-F", "file=@\(clip)", "-F", "model=whisper-1", url + "/audio/transcriptions"])
        return ((times.first ?? .nan) * 1000, times.last ?? .nan)
    }

    /// (request sent → result complete, server processing) in ms.
    func element(_ clip: String, url: String) async throws -> (Double, Double) {
        let pipeline = try Pipeline(launch: """
            filesrc location=\(clip) ! wavparse ! cloudstt provider=compatible base-url=\(url) max-segment-ms=600000 ! fakesink
            """)
        var figures = (Double.nan, Double.nan)
        try await pipeline.run { event in
            if case .latency(let report) = event, report.stage == "stt" {
                figures = (report.figures["processing-ms"] ?? .nan, report.figures["provider-processing-ms"] ?? .nan)
            }
        }
        return figures
    }

    func run() async throws -> String {
        // The overhead of cloudstt over curl does not depend on the engine; pocketsphinx keeps runs short.
        let (server, url) = try await LocalServer.start()
        defer { server.cancel() }
        var element: [Double] = [], bare: [Double] = [], elementOverhead: [Double] = [], curlOverhead: [Double] = []
        _ = try curl(Self.clips[0], url: url)  // warm-up
        _ = try await self.element(Self.clips[0], url: url)
        for _ in 0..<runs {
            for clip in Self.clips {
                let byCurl = try curl(clip, url: url)
                let byElement = try await self.element(clip, url: url)
                bare.append(byCurl.0)
                element.append(byElement.0)
                curlOverhead.append(byCurl.0 - byCurl.1)
                elementOverhead.append(byElement.0 - byElement.1)
            }
        }
        return """
            # STT benchmark

            Request sent → result complete through `cloudstt provider=compatible`, and
            curl's `time_total` for the same clip to the same `parley serve --delay-ms 0`
            (pocketsphinx behind it), \(runs) runs × \(Self.clips.count) LibriVox clips. The last two
            rows take each request's engine time (openai-processing-ms) off: what is
            left is transport plus, for the element, WAV encoding, multipart, JSON
            parsing, meta and messages. Milliseconds.

            | measure | p50 | p95 | p99 |
            |---|---|---|---|
            \(Percentiles.row("cloudstt: request sent → result", element, digits: 1))
            \(Percentiles.row("curl: time_total", bare, digits: 1))
            \(Percentiles.row("cloudstt minus the server's processing", elementOverhead, digits: 1))
            \(Percentiles.row("curl minus the server's processing", curlOverhead, digits: 1))

            """
    }
}

/// `parley serve` in this process on a free loopback port (pocketsphinx
/// behind the transcriptions; apertium behind the chat completions).
enum LocalServer {
    static func start() async throws -> (task: Task<Void, any Error>, url: String) {
        let port = Port()
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.engine = .pocketsphinx
        let task = Task {
            try await TranscriptionServer.run(configuration) { if case .listening(let bound) = $0 { port.set(bound) } }
        }
        while port.value == 0 { try await Task.sleep(for: .milliseconds(50)) }
        return (task, "http://127.0.0.1:\(port.value)/v1")
    }
}

/// The bound port, set from the server's callback.
final class Port: @unchecked Sendable {
    private let lock = NSLock()
    private var stored = 0
    var value: Int { lock.withLock { stored } }
    func set(_ port: Int) { lock.withLock { stored = port } }
}
