import Foundation
import Parley
import ParleyCore
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

/// report.json speaks one key style, kebab-case as the figures do, and a
/// report an earlier parley wrote (camelCase) still reads.
@Suite struct BenchReportKeysTests {
    /// Every key of the report, at any depth.
    func keys(_ value: Any) -> [String] {
        if let object = value as? [String: Any] { return object.keys.map { $0 } + object.values.flatMap(keys) }
        if let array = value as? [Any] { return array.flatMap(keys) }
        return []
    }

    @Test func everyKeyIsKebabCase() throws {
        var report = BenchReport(pipeline: "p", corpus: "c", paced: true, warmup: 1, recordings: 1, runs: [])
        report.runs = [.init(run: 1, audioSeconds: 2, streamSeconds: 3, wallSeconds: 3, speed: 1, cpuSeconds: 1, workerCPUSeconds: 1,
                             peakRSSMegabytes: 50, workerPeakRSSMegabytes: 90, recordings: 1, interrupted: false, failure: nil)]
        report.quality.wordErrorRate = 0.05
        report.quality.chrF = ["es": 50]
        report.quality.vadF1 = 0.9
        report.quality.vadNonSpeechFrames = 10
        report.segments.byStatus = ["final": 1]
        report.metadata = BenchMetadata(parleyVersion: "1", commit: nil, hostCPU: "cpu", cores: 2, date: "d", command: "c")
        report.figures["eos-detection-ms"] = Distribution([480, 520])
        let tree = try JSONSerialization.jsonObject(with: Data(report.json.utf8))
        let humped = keys(tree).filter { key in zip(key, key.dropFirst()).contains { $0.isLowercase && $1.isUppercase } }
        #expect(humped.isEmpty, "camelCase keys: \(humped)")
        for key in ["word-error-rate", "chrf", "vad-f1", "worker-cpu-seconds", "peak-rss-megabytes", "cpu-per-stream-second",
                    "by-status", "parley-version", "host-cpu", "standard-deviation"] {
            #expect(keys(tree).contains(key), "\(key)")
        }
        let read = try BenchReport.read(Data(report.json.utf8))
        #expect(read.quality == report.quality && read.runs.first?.workerPeakRSSMegabytes == 90 && read.metadata == report.metadata)
    }

    @Test func aReportWrittenWithCamelCaseKeysStillReads() throws {
        let old = #"""
            {"corpus":"c","pipeline":"p","paced":true,"warmup":1,"recordings":1,
             "figures":{"eos-detection-ms":{"n":1,"mean":500,"standardDeviation":0,"p50":500,"p90":500,"p95":500,"p99":500,"max":500}},
             "quality":{"wordErrorRate":0.1,"referenceWords":20,"chrF":{"es-ES":40},"vadF1":0.8},
             "references":{"utterances":1,"measured":1,"missed":0,"merged":0},
             "runs":[{"run":1,"audioSeconds":2,"streamSeconds":3,"wallSeconds":3,"speed":1,"cpuSeconds":1,"workerCPUSeconds":2,
                      "peakRSSMegabytes":50,"workerPeakRSSMegabytes":90,"recordings":1,"interrupted":false}],
             "segments":{"produced":1,"byStatus":{"final":1}}}
            """#
        let report = try BenchReport.read(Data(old.utf8))
        #expect(report.quality.wordErrorRate == 0.1 && report.quality.chrF == ["es-ES": 40] && report.quality.vadF1 == 0.8)
        #expect(report.runs.first?.workerCPUSeconds == 2 && report.runs.first?.workerPeakRSSMegabytes == 90)
        #expect(report.segments.byStatus == ["final": 1] && report.figures["eos-detection-ms"]?.p50 == 500)
        #expect(report.figures["eos-detection-ms"]?.standardDeviation == 0)
    }
}
