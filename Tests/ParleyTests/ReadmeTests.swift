import Foundation
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

    @Test func theCustomElementExampleScalesTheAudioItIsGiven() async throws {
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains("final class Gain: AudioFilter {"))
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
        let folder = root.appendingPathComponent("pipelines")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".pipeline") }
        #expect(!files.isEmpty)
        for file in files {
            let result = try await TestSupport.run(TestSupport.parleyExecutable, ["validate", folder.appendingPathComponent(file).path])
            #expect(result.status == 0, "\(file): \(result.stderr)")
        }
    }

    @Test func theMainPipelineTurnsRealSpeechIntoTranscriptsAndSpeech() async throws {
        let folder = TestSupport.temporaryFolder()
        let transcript = folder.appendingPathComponent("transcript.srt").path
        let spoken = folder.appendingPathComponent("spoken.wav").path
        let translation = folder.appendingPathComponent("translation.srt").path
        let result = try await TestSupport.run(TestSupport.parleyExecutable, [
            "run", root.appendingPathComponent("pipelines/main.pipeline").path,
            "--set", "TRANSCRIPT=\(transcript)", "--set", "SPOKEN=\(spoken)", "--set", "TRANSLATION=\(translation)",
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
    }
}
