import Foundation
import ParleyCore
import ParleyTestSupport
import Testing

/// The README's promises, checked.
@Suite struct ReadmeTests {
    let root = TestSupport.packageRoot

    @Test func theEmbeddingExampleIsTheFileThatIsBuiltAndItRuns() async throws {
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let example = try String(contentsOf: root.appendingPathComponent("Examples/EmbedParley/main.swift"), encoding: .utf8)
        #expect(readme.contains("```swift\n" + example + "```"))
        let binary = TestSupport.buildFolder.appendingPathComponent("parley-embed-example").path
        let result = try await TestSupport.run(binary, [])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("segment 0: 0 ms to 7100 ms"))
    }

    @Test func theEmbeddingExampleTakesAnyFileNameAndSaysWhatIsWrong() async throws {
        let binary = TestSupport.buildFolder.appendingPathComponent("parley-embed-example").path
        let scratch = TestSupport.temporaryFolder()
        let awkward = scratch.appendingPathComponent("my \"talk\" 1.wav")
        try FileManager.default.copyItem(atPath: SpeechFixtures.clips[0], toPath: awkward.path)
        let spaced = try await TestSupport.run(binary, [awkward.path])
        #expect(spaced.status == 0, "\(spaced.stderr)")
        #expect(spaced.stdout.contains("segment 0: 0 ms to"))
        let missing = try await TestSupport.run(binary, [scratch.appendingPathComponent("none.wav").path])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("error: cannot read"), "\(missing.stderr)")
        let garbage = scratch.appendingPathComponent("garbage.wav")
        try Data("not audio".utf8).write(to: garbage)
        let broken = try await TestSupport.run(binary, [garbage.path])
        #expect(broken.status == 1)
        #expect(broken.stderr.hasPrefix("error: "), "\(broken.stderr)")
        #expect(!broken.stderr.contains("Fatal error"), "no crash, no backtrace")
    }

    @Test func theCustomElementExampleScalesTheAudioItIsGiven() async throws {
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains("final class Gain: Filter {"))
        let binary = TestSupport.buildFolder.appendingPathComponent("parley-custom-element-example").path
        func peak(_ gain: String) async throws -> Int {
            let result = try await TestSupport.run(binary, [gain])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("buffers 20,"), "\(result.stdout)")
            let words = result.stdout.split(separator: " ")
            return Int(words[words.firstIndex(of: "peak")! + 1]) ?? -1
        }
        let full = try await peak("1.0")
        let quarter = try await peak("0.25")
        #expect(full > 10_000, "a square wave at volume 0.5")
        #expect(abs(quarter * 4 - full) <= 4, "gain 0.25 gives a quarter of the peak: \(quarter) of \(full)")
    }

    @Test func everyPipelineFileInTheRepositoryValidates() async throws {
        for folder in ["pipelines", "benchmarks/pipelines"].map(root.appendingPathComponent) {
            let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".pipeline") }
            #expect(!files.isEmpty)
            for file in files {
                let result = try await TestSupport.run(TestSupport.parleyExecutable, ["validate", folder.appendingPathComponent(file).path])
                #expect(result.status == 0, "\(file): \(result.stderr)")
            }
        }
    }

    @Test func theMainPipelineTurnsRealSpeechIntoTranscriptsAndSpeech() async throws {
        let folder = TestSupport.temporaryFolder()
        let transcript = folder.appendingPathComponent("transcript.srt").path
        let spoken = folder.appendingPathComponent("spoken.wav").path
        let translation = folder.appendingPathComponent("translation.srt").path
        let session = folder.appendingPathComponent("sessions/first")
        // What scripts/main-job builds: the three LibriVox readings a second apart.
        let recording = try SpeechFixtures.threeUtterances(gap: 1.0, in: folder)
        let result = try await TestSupport.run(TestSupport.parleyExecutable, [
            "run", root.appendingPathComponent("pipelines/translate-file.pipeline").path, "--set", "INPUT=\(recording.path)",
            "--set", "TRANSCRIPT=\(transcript)", "--set", "SPOKEN=\(spoken)", "--set", "TRANSLATION=\(translation)",
            "--set", "SESSION=\(session.path)",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.components(separatedBy: "\n")
        #expect(lines.filter { $0.hasPrefix("segment ") }.count == 3, "three utterances: \(result.stdout)")
        #expect(lines.filter { $0.hasPrefix("transcript ") }.count == 3)
        #expect(lines.filter { $0.hasPrefix("translation ") && $0.contains("(es)") }.count == 3, "\(result.stdout)")
        let spanish = try String(contentsOfFile: translation, encoding: .utf8)
        #expect(spanish.contains("hombre joven"), "the young man, in Spanish: \(spanish)")
        #expect(spanish.contains("00:00:00,000 --> "))
        let srt = try String(contentsOfFile: transcript, encoding: .utf8)
        #expect(srt.contains("young man"), "\(srt)")
        #expect(srt.contains("00:00:00,000 --> "))
        let size = (try FileManager.default.attributesOfItem(atPath: spoken)[.size] as? Int) ?? 0
        #expect(size > 22_050 * 2 * 5, "at least 5 s of Spanish speech spoken")

        // The session: one line per utterance in order, subtitles, a WAV per spoken utterance, read back by the CLI.
        #expect(result.stdout.contains("replay: parley sessions play --dir \(session.deletingLastPathComponent().path) first"), "\(result.stdout)")
        let recorded = SessionFolder(url: session)
        #expect(recorded.records.map(\.segment) == [0, 1, 2] && !recorded.tornLine)
        #expect(recorded.info?.segments == 3 && recorded.info?.ended != nil && recorded.info?.pipeline.hasSuffix("translate-file.pipeline") == true)
        for record in recorded.records {
            #expect(record.status == "final" && record.source?.language == "en" && record.translations.first?.language == "es")
            #expect(SpanishCheck.isSpanish(record.translations.first?.text ?? ""), "\(record.translations)")
            let wav = try WAVDecoder.decode(try Data(contentsOf: session.appendingPathComponent(try #require(record.audio.first))))
            let seconds = Double(wav.samples.count) / Double(wav.rate)
            #expect(seconds > 1 && seconds < 2 * (record.end - record.start) + 2, "segment \(record.segment): \(seconds) s")
            #expect(wav.samples.contains { abs(Int($0)) > 2000 }, "not silent")
        }
        for name in ["source.srt", "translation.es.srt", "source.vtt", "translation.es.vtt"] {
            let text = try String(contentsOf: session.appendingPathComponent(name), encoding: .utf8)
            #expect(SubtitleCheck.cues(text).count == 3, "\(name) parses into three cues: \(text)")
        }
        let dir = ["--dir", session.deletingLastPathComponent().path]
        let list = try await TestSupport.run(TestSupport.parleyExecutable, ["sessions", "list"] + dir)
        #expect(list.stdout.contains("first") && list.stdout.contains("en,es"), "\(list.stdout)")
        let show = try await TestSupport.run(TestSupport.parleyExecutable, ["sessions", "show", "fir"] + dir)
        #expect(show.stdout.contains("young man") && show.stdout.contains("→ es: "), "\(show.stdout)")
        let export = try await TestSupport.run(TestSupport.parleyExecutable, ["sessions", "export", "first", "--format", "vtt", "--language", "es"] + dir)
        #expect(SubtitleCheck.cues(export.stdout).count == 3 && export.stdout.hasPrefix("WEBVTT"))
        let byTag = try await TestSupport.run(TestSupport.parleyExecutable, ["sessions", "export", "first", "--language", "es-ES"] + dir)
        #expect(SubtitleCheck.cues(byTag.stdout).count == 3 && byTag.stdout.contains("hombre joven"), "es-ES finds the es translation")
        let german = try await TestSupport.run(TestSupport.parleyExecutable, ["sessions", "export", "first", "--language", "de"] + dir)
        #expect(german.status == 2 && german.stdout.isEmpty && german.stderr.contains("no translation into de; it has translations into es"),
                "not empty subtitles: \(german.stderr)")
        let replay = folder.appendingPathComponent("replay.wav")
        let play = try await TestSupport.run(TestSupport.parleyExecutable, ["sessions", "play", "first", "1", "--to", replay.path] + dir)
        #expect(play.status == 0, "\(play.stderr)")
        #expect(try WAVDecoder.decode(try Data(contentsOf: replay)).samples.count > 22_050)
        let typo = try await TestSupport.run(TestSupport.parleyExecutable, ["sessions", "show", "frist"] + dir)
        #expect(typo.status != 0 && typo.stderr.contains("did you mean first?"), "\(typo.stderr)")
    }
}
