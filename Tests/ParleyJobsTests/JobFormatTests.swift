import Foundation
import Testing
@testable import ParleyJobs

/// The work queue's wire format, version 1: what `parley submit` writes is
/// what a worker reads, ids are the only names that reach subjects, and an
/// input kind a worker does not know is refused by name.
@Suite struct JobFormatTests {
    let blob = BlobReference(name: "talk.wav", size: 4, sha256: String(repeating: "a", count: 64), sequences: [3, 4])

    @Test func aJobRoundTripsWithItsFormatAndWellFormedID() throws {
        let job = JobSpec(batch: "k3v9qa", index: 4, pipelineName: "transcribe.pipeline", pipeline: "SOURCE ! SINK",
                          variables: ["LANGUAGE": "es"], input: .file(blob), submitted: 1_700_000_000_000,
                          bench: BenchShard(shard: 1, shards: 2, warmup: 1, gap: 0.5, paced: true, runs: 3))
        #expect(job.id == "k3v9qa-0004" && job.isWellFormed)
        let bytes = JobBoard.encode(job)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        #expect(object["format"] as? String == "parley-job/1")
        #expect((object["input"] as? [String: Any])?["kind"] as? String == "file")
        #expect(JobBoard.decode(bytes) == job)
    }

    @Test func aCorpusInputRoundTrips() {
        let job = JobSpec(batch: "b1", index: 0, pipelineName: "p", pipeline: "p", variables: [:],
                          input: .corpus(manifest: "{\"audio\":\"talk.wav\"}\n", files: [blob]), submitted: 1)
        #expect(JobBoard.decode(JobBoard.encode(job)) == job)
    }

    @Test func anInputKindAWorkerDoesNotKnowIsRefusedByName() throws {
        let json = #"{"format":"parley-job/1","id":"b1-0000","batch":"b1","index":0,"pipelineName":"p","pipeline":"p","variables":{},"input":{"kind":"srt","url":"srt://x"},"submitted":1}"#
        #expect {
            try JSONDecoder().decode(JobSpec.self, from: Data(json.utf8))
        } throws: { error in
            "\(error)".contains("input kind 'srt' is not one this worker knows (file, corpus)")
        }
    }

    @Test(arguments: [
        ("k3v9qa-0004", true), ("a-0000", true), ("K3V9QA-0004", false), ("k3.v9-0004", false), ("k3*-0001", false),
        ("k3v9qa-4", false), ("k3v9qa--0004", false), ("-0004", false), (String(repeating: "a", count: 33) + "-0001", false),
        ("b1-0000\nforged", false),
    ])
    func onlyBatchIndexIDsAreJobIDs(id: String, valid: Bool) {
        #expect(JobSpec.isJobID(id) == valid, "\(id)")
    }

    @Test func anIDThatIsNotItsBatchAndIndexIsNotWellFormed() {
        var job = JobSpec(batch: "b1", index: 2, pipelineName: "p", pipeline: "p", variables: [:], input: .file(blob), submitted: 1)
        job.id = "b2-0002"
        #expect(!job.isWellFormed)
    }

    @Test func aClosingEventSaysHowTheJobEnded() {
        let failed = JobResult(job: "b1-0002", status: .failed, worker: "h:1", attempts: 3, reasons: ["a", "b", "decoder error"],
                               lines: [], files: [], audioSeconds: 0, started: 1, finished: 2)
        let event = JobEvent(closing: failed, time: 9)
        #expect(event == JobEvent(.failed, job: "b1-0002", time: 9, worker: "h:1", attempt: 3, reason: "decoder error"))
        var done = failed
        done.status = .done
        #expect(JobEvent(closing: done, time: 9).reason == nil && JobEvent(closing: done, time: 9).event == .done)
        #expect(JobBoard.decode(JobBoard.encode(failed)) == failed)
    }

    @Test func aJobRoundTripsAndAnUnknownInputKindIsRefusedByName() throws {
        let blob = BlobReference(name: "a.wav", size: 3, sha256: "00", sequences: [4])
        let job = JobSpec(batch: "abc234", index: 7, pipelineName: "x.pipeline", pipeline: "fakesrc ! fakesink",
                          variables: ["TARGETS": "es"], input: .file(blob), submitted: 5)
        #expect(job.id == "abc234-0007")
        let decoded: JobSpec? = JobBoard.decode(JobBoard.encode(job))
        #expect(decoded == job)
        let live = String(decoding: JobBoard.encode(job), as: UTF8.self)
            .replacingOccurrences(of: #""kind":"file""#, with: #""kind":"srt""#)
        let refused: JobSpec? = JobBoard.decode(Array(live.utf8))
        #expect(refused == nil)
        #expect(JobBoard.split("abc234-0007") == ("abc234", 7))
    }

    @Test func inputNamesAreMadeSafeForTheWorkFolder() {
        #expect(Worker.safeName("../../etc/passwd") == "passwd")
        #expect(Worker.safeName("my talk (1).wav") == "my_talk__1_.wav")
        #expect(Worker.safeName(".hidden") == "input.hidden")
    }
}
