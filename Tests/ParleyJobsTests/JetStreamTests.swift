import Foundation
import ParleyTestSupport
import Testing
@testable import ParleyJobs

/// The JetStream layer against a real nats-server on loopback.
@Suite(.enabled(if: NATSServer.isInstalled, "needs Debian's nats-server (scripts/setup installs it)"))
struct JetStreamTests {
    func board() throws -> (NATSServer, JobBoard) {
        let server = try NATSServer(storage: TestSupport.temporaryFolder())
        let board = JobBoard(try JetStream(try ServerAddress(server.url), name: "test"))
        try board.prepare()
        return (server, board)
    }

    @Test func aJobAndAResultArePublishedOnceWhateverTheRetries() throws {
        let (server, board) = try board()
        let blob = try board.storeBlob(name: "a.wav", bytes: [1, 2, 3], batch: "t2st", index: 0, part: "input")
        let job = JobSpec(batch: "t2st", index: 0, pipelineName: "p", pipeline: "", variables: [:], input: .file(blob), submitted: 0)
        #expect(try !board.queue(job).duplicate)
        #expect(try board.queue(job).duplicate)
        let result = JobResult(job: job.id, status: .done, worker: "a:1", attempts: 1, reasons: [], lines: [],
                               files: [], audioSeconds: 1, started: 0, finished: 1)
        var second = result
        second.worker = "b:2"
        #expect(try !board.publish(result).duplicate)
        #expect(try board.publish(second).duplicate)
        let stored = try board.results(batch: "t2st")
        #expect(stored.count == 1)
        #expect(stored.first?.result.worker == "a:1")
        _ = server
    }

    @Test func aFileSpanningChunksComesBackWholeAndChecked() throws {
        let (server, board) = try board()
        let bytes = (0..<(JobBoard.chunkSize * 2 + 1000)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let blob = try board.storeBlob(name: "big.wav", bytes: bytes, batch: "t3st", index: 1, part: "input")
        #expect(blob.sequences.count == 3)
        #expect(try board.fetchBlob(blob) == bytes)
        var tampered = blob
        tampered.sha256 = String(repeating: "0", count: 64)
        #expect(throws: JetStreamError.self) { try board.fetchBlob(tampered) }
        _ = server
    }

    @Test func aWorkQueueRedeliversWhatIsNotAcknowledged() throws {
        let (server, board) = try board()
        let queue = try board.jetStream.workQueue(stream: JobBoard.jobsStream, subject: JobBoard.jobsSubject,
                                                  durable: "t", ackWait: .seconds(1), maxDeliver: 2)
        try board.jetStream.publish(JobBoard.jobsSubject, Array("one".utf8), messageID: "one")
        let first = try #require(try queue.next(timeout: .seconds(2)))
        #expect(first.deliveryCount == 1)
        // Not acknowledged: it comes back after the ack wait, counted.
        let again = try #require(try queue.next(timeout: .seconds(3)))
        #expect(again.data == Array("one".utf8))
        #expect(again.deliveryCount == 2)
        try again.acknowledge()
        #expect(try queue.next(timeout: .milliseconds(1500)) == nil)
        _ = (server, first)
    }
}
