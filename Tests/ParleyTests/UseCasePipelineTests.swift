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
            "--set", "INPUT=\(recording.path)", "--set", "SESSION=\(session.path)",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let recorded = SessionFolder(url: session)
        #expect(recorded.records.map(\.segment) == [0, 1, 2], "\(recorded.records)")
        for record in recorded.records {
            let byLanguage = Dictionary(uniqueKeysWithValues: record.translations.map { ($0.language, $0.text) })
            #expect(Set(byLanguage.keys) == ["es", "ca"], "\(record.translations)")
            #expect(SpanishCheck.isSpanish(byLanguage["es"] ?? ""), "\(byLanguage)")
            #expect(!(byLanguage["ca"] ?? "").isEmpty && byLanguage["ca"] != byLanguage["es"])
            #expect(Set(record.audio) == ["audio/\(String(format: "%04d", record.segment)).es.wav", "audio/\(String(format: "%04d", record.segment)).ca.wav"])
            for file in record.audio {
                let wav = try WAVDecoder.decode(try Data(contentsOf: session.appendingPathComponent(file)))
                #expect(wav.samples.count > wav.rate / 2 && wav.samples.contains { abs(Int($0)) > 2000 }, "\(file) is speech")
            }
        }
        for name in ["source.srt", "translation.es.srt", "translation.ca.srt"] {
            #expect(SubtitleCheck.cues(try String(contentsOf: session.appendingPathComponent(name), encoding: .utf8)).count == 3, "\(name)")
        }
    }
}
