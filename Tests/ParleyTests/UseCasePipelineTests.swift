import Foundation
import ParleyCore
import ParleyTestSupport
import Testing

/// The use-case pipeline files, run end to end by `parley run` on real recorded speech.
@Suite struct UseCasePipelineTests {
    let root = TestSupport.packageRoot
    let scratch = TestSupport.temporaryFolder()

    @Test func conversationFanoutGivesEachListenerTheirLanguageInOneSession() async throws {
        let recording = try SpeechFixtures.threeUtterances(in: scratch)
        let session = scratch.appendingPathComponent("room")
        let result = try await TestSupport.run(TestSupport.parleyExecutable, [
            "run", root.appendingPathComponent("pipelines/conversation-fanout.pipeline").path, "--quiet",
            "--set", "INPUT=\(recording.path)", "--set", "SESSION=\(session.path)", "--set", "TARGETS=es,ca,gl",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let recorded = SessionFolder(url: session)
        #expect(recorded.records.map(\.segment) == [0, 1, 2], "\(recorded.records)")
        for record in recorded.records {
            let byLanguage = Dictionary(uniqueKeysWithValues: record.translations.map { ($0.language, $0.text) })
            #expect(Set(byLanguage.keys) == ["es", "ca", "gl"], "TARGETS made three branches: \(record.translations)")
            #expect(SpanishCheck.isSpanish(byLanguage["es"] ?? ""), "\(byLanguage)")
            #expect(!(byLanguage["ca"] ?? "").isEmpty && byLanguage["ca"] != byLanguage["es"])
            #expect(!(byLanguage["gl"] ?? "").isEmpty && byLanguage["gl"] != byLanguage["ca"])
            let number = String(format: "%04d", record.segment)
            #expect(Set(record.audio) == ["audio/\(number).es.wav", "audio/\(number).ca.wav", "audio/\(number).gl.wav"])
            for file in record.audio {
                let wav = try WAVDecoder.decode(try Data(contentsOf: session.appendingPathComponent(file)))
                #expect(wav.samples.count > wav.rate / 2 && wav.samples.contains { abs(Int($0)) > 2000 }, "\(file) is speech")
            }
        }
        for name in ["source.srt", "translation.es.srt", "translation.ca.srt", "translation.gl.srt"] {
            #expect(SubtitleCheck.cues(try String(contentsOf: session.appendingPathComponent(name), encoding: .utf8)).count == 3, "\(name)")
        }
    }

    /// The environment of a child whose translation cache is its own.
    func environment(cache: URL) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CACHE_HOME"] = cache.path
        return environment
    }

    @Test func textTranslateTurnsEachLineIntoATranslatedLine() async throws {
        let pipeline = root.appendingPathComponent("pipelines/text-translate.pipeline").path
        let lines = ["good morning", "thank you very much", "", "where is the station", "good morning"]
        let result = try await TestSupport.run(TestSupport.parleyExecutable, ["run", pipeline, "--quiet"],
                                               environment: environment(cache: scratch), input: lines.joined(separator: "\n"))
        #expect(result.status == 0, "\(result.stderr)")
        let translated = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(translated.count == 5 && translated.last == "", "one line per non-blank line, nothing else: \(result.stdout)")
        #expect(translated[0] == translated[3], "a repeated line translates the same")
        #expect(translated[0].lowercased().contains("buenos") && translated[1].lowercased().contains("gracias"), "\(translated)")
        #expect(translated[2].lowercased().contains("estación") || SpanishCheck.isSpanish(translated[2]), "\(translated)")
        #expect(result.stderr.contains("translation 1 (es): \(translated[1])"), "parley's own lines go to standard error")

        // From a file, into Catalan, to a file.
        let input = scratch.appendingPathComponent("notes.txt"), output = scratch.appendingPathComponent("notes.ca.txt")
        try "thank you very much\r\ngood night\r\n".write(to: input, atomically: true, encoding: .utf8)
        let fromFile = try await TestSupport.run(TestSupport.parleyExecutable, [
            "run", pipeline, "--quiet", "--set", "SOURCE=filesrc location=\"\(input.path)\"", "--set", "TARGET=ca",
            "--set", "OUTPUT=\(output.path)",
        ], environment: environment(cache: scratch))
        #expect(fromFile.status == 0, "\(fromFile.stderr)")
        let catalan = try String(contentsOf: output, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(catalan.count == 2 && catalan[0].lowercased().contains("gràcies"), "\(catalan)")
        #expect(fromFile.stdout.contains("translation 1 (ca): \(catalan[1])"), "with OUTPUT a file, results print on standard output")
    }

    @Test func hostileProviderTextCannotForgeLinesOrDriveTheTerminal() async throws {
        // A provider (here a scripted OpenAI-compatible server: no real one answers like this
        // on demand) returns escape sequences and a forged subtitle cue.
        let hostile = "Hola\u{1B}]0;pwned\u{07}\u{1B}[2J\n\n99\n00:00:00,000 --> 00:09:00,000\nFORGED"
        let encoded = String(decoding: try JSONSerialization.data(withJSONObject: ["content": hostile]), as: UTF8.self)
        let stream = "data: {\"choices\":[{\"delta\":\(encoded)}]}\n\ndata: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
        let server = try ScriptedHTTPServer([.stream(pieces: [(stream, 0)])])
        let srt = scratch.appendingPathComponent("out.srt")
        let pipeline = root.appendingPathComponent("pipelines/text-translate.pipeline").path
        let result = try await TestSupport.run(TestSupport.parleyExecutable, [
            "run", pipeline, "--quiet", "--set", "PROVIDER=compatible", "--set", "BASE_URL=\(server.url)/v1",
        ], environment: environment(cache: scratch), input: "hello\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stdout.contains("\u{1B}") && !result.stderr.contains("\u{1B}"), "no escape sequence reaches the terminal")
        #expect(result.stdout.split(separator: "\n").count == 1, "one result is one line: \(result.stdout)")
        #expect(result.stdout.hasPrefix("Hola"))
        // The same text as a subtitle stays one cue.
        let file = scratch.appendingPathComponent("hostile.txt")
        try hostile.write(to: file, atomically: true, encoding: .utf8)
        let launched = try await TestSupport.run("/usr/bin/gst-launch-1.0", [
            "-q", "filesrc", "location=\(file.path)", "!", "text/x-raw,format=utf8", "!", "transcriptsink", "format=srt", "location=\(srt.path)",
        ], environment: TestSupport.gstEnvironment(registry: scratch))
        #expect(launched.status == 0, "\(launched.stderr)")
        let written = try String(contentsOf: srt, encoding: .utf8)
        #expect(SubtitleCheck.cues(written).count == 1, "\(written)")
        #expect(!written.contains("\u{1B}") && !written.contains("--> 00:09:00,000"))
    }
}
