import ApertiumEngine
import Foundation
import Parley
import ParleyServer

/// streamtranslator's own overhead and the local engine's cost:
/// - time to first token and to final through the element (provider
///   compatible, one request at a time), next to curl's time to first byte
///   and total for the same streamed request to the same `parley serve`, in
///   one run, sentence by sentence;
/// - apertium as one long-lived null-flush process (what `local` runs)
///   against a one-shot `apertium eng-spa` per sentence.
struct TranslateBenchmark {
    var runs: Int

    /// The LibriVox prompts' reference transcripts (pocketsphinx-testdata).
    static func sentences() throws -> [String] {
        let text = try String(contentsOfFile: "/usr/share/pocketsphinx/test/data/librivox/transcription", encoding: .utf8)
        return text.split(separator: "\n").compactMap { line in
            guard let open = line.lastIndex(of: "(") else { return nil }
            let words = line[..<open].replacingOccurrences(of: "<s>", with: "").replacingOccurrences(of: "</s>", with: "")
                .trimmingCharacters(in: .whitespaces).lowercased()
            return words.isEmpty ? nil : words.prefix(1).uppercased() + words.dropFirst() + "."
        }
    }

    /// curl's (time to first byte, total) in ms for one streamed request.
    func curl(_ sentence: String, url: String) throws -> (Double, Double) {
        let request = try Curl.postJSON([
            "model": "gpt-4o-mini", "stream": true,
            "messages": [["role": "system", "content": "Translate from English to Spanish."], ["role": "user", "content": sentence]],
        ], to: url + "/chat/completions")
        let times = try Curl.measure("%{time_starttransfer} %{time_total}", request)
        return ((times.first ?? .nan) * 1000, (times.last ?? .nan) * 1000)
    }

    /// The element's (ttft, time to final) in ms per sentence.
    func element(_ sentences: [String], url: String) async throws -> [(Double, Double)] {
        let texts = sentences.map { $0.replacingOccurrences(of: "|", with: " ") }.joined(separator: "|")
        let pipeline = try Pipeline(launch: """
            parleybenchtext texts="\(texts)" ! streamtranslator provider=compatible base-url=\(url) source-language=en \
            target-language=es max-in-flight=1 cache=false ! fakesink
            """)
        var figures: [(Double, Double)] = []
        try await pipeline.run { event in
            if case .latency(let report) = event, report.stage == "translate" {
                figures.append((report.figures["ttft-ms"] ?? .nan, report.figures["time-to-final-ms"] ?? .nan))
            }
        }
        return figures
    }

    /// Per-sentence latency (ms) of the long-lived process and of one-shot runs.
    func apertium(_ sentences: [String]) throws -> (longLived: [Double], oneShot: [Double]) {
        let engine = try ApertiumTranslator(mode: "eng-spa")
        defer { engine.shutdown() }
        _ = try engine.translate("Warm up.")
        var longLived: [Double] = [], oneShot: [Double] = []
        for sentence in sentences {
            var start = DispatchTime.now().uptimeNanoseconds
            _ = try engine.translate(sentence)
            longLived.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            start = DispatchTime.now().uptimeNanoseconds
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/apertium")
            process.arguments = ["-u", "eng-spa"]
            let input = Pipe(), output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            try process.run()
            try input.fileHandleForWriting.write(contentsOf: Data(sentence.utf8))
            try input.fileHandleForWriting.close()
            _ = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            oneShot.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
        return (longLived, oneShot)
    }

    func run() async throws -> String {
        let sentences = try Self.sentences()
        let (server, url) = try await LocalServer.start()
        defer { server.cancel() }
        _ = try curl(sentences[0], url: url)  // warm-up: the server's apertium process starts
        _ = try await element([sentences[0]], url: url)
        var elementFirst: [Double] = [], elementFinal: [Double] = [], curlFirst: [Double] = [], curlTotal: [Double] = []
        for _ in 0..<runs {
            for sentence in sentences {
                let byCurl = try curl(sentence, url: url)
                curlFirst.append(byCurl.0)
                curlTotal.append(byCurl.1)
            }
            for figures in try await element(sentences, url: url) {
                elementFirst.append(figures.0)
                elementFinal.append(figures.1)
            }
        }
        let (longLived, oneShot) = try apertium(sentences)
        let total = longLived.reduce(0, +), totalOneShot = oneShot.reduce(0, +)
        return """
            # Translation benchmark

            `parley-bench translate --runs \(runs)`: the \(sentences.count) LibriVox reference sentences
            (pocketsphinx-testdata), English to Spanish, through `parley serve`'s
            `/v1/chat/completions` (apertium behind it, streamed word by word), one
            request at a time. The element's time to first token and to final are
            measured from its request; curl's are `time_starttransfer` and `time_total`
            for the same streamed request. Milliseconds.

            | measure | p50 | p95 | p99 |
            |---|---|---|---|
            \(Percentiles.row("streamtranslator: time to first token", elementFirst))
            \(Percentiles.row("curl: time to first byte", curlFirst))
            \(Percentiles.row("streamtranslator: time to final", elementFinal))
            \(Percentiles.row("curl: time total", curlTotal))

            ## Local apertium: long-lived process against one-shot

            Per sentence, same sentences, one after another.

            | measure | p50 | p95 | p99 |
            |---|---|---|---|
            \(Percentiles.row("long-lived null-flush process (provider=local)", longLived))
            \(Percentiles.row("one-shot `apertium -u eng-spa`", oneShot))

            Requests per second: \(String(format: "%.0f", Double(longLived.count) / total * 1000)) long-lived, \
            \(String(format: "%.1f", Double(oneShot.count) / totalOneShot * 1000)) one-shot.

            """
    }
}
