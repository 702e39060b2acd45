import Parley
import Testing

/// The command a bench report records: as run, secrets out.
@Suite struct BenchMetadataTests {
    @Test func theCommandIsRecordedWithSecretsLeftOut() {
        let metadata = BenchMetadata.current(arguments: [
            "/home/me/parley/.build/debug/parley", "bench", "pipelines/live-translate.pipeline", "--set", "OPENAI_API_KEY=hunter2hunter2",
            "--set", "URL=http://ann:pw@host/v1", "--set", "TARGET=es", "--set", "NOTE=two words", "--runs", "2",
        ])
        #expect(metadata.command == "parley bench pipelines/live-translate.pipeline --set OPENAI_API_KEY=[redacted] "
                + "--set URL=[redacted] --set TARGET=es --set 'NOTE=two words' --runs 2", "\(metadata.command)")
        #expect(metadata.cores >= 1 && !metadata.hostCPU.isEmpty && metadata.date.hasSuffix("Z"))
    }
}
