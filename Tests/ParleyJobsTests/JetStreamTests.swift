import Foundation
import ParleyTestSupport
import enum ParleyCore.OffPool
import Testing
@testable import ParleyJobs

/// The JetStream layer against a real nats-server on loopback. Each test
/// runs on a thread of its own: its NATS calls and waits block, and on
/// Swift's few pool threads they would stall every other test's task.
@Suite(.enabled(if: NATSServer.isInstalled, "needs Debian's nats-server (scripts/setup installs it)"))
struct JetStreamTests {
    func board() throws -> (NATSServer, JobBoard) {
        let server = try NATSServer(storage: TestSupport.temporaryFolder())
        let board = JobBoard(try JetStream(try ServerAddress(server.url), name: "test"))
        try board.prepare()
        return (server, board)
    }

    @Test func aJobAndAResultArePublishedOnceWhateverTheRetries() async throws {
        try await OffPool.run { () throws in
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
    }

    @Test func aFileSpanningChunksComesBackWholeAndChecked() async throws {
        try await OffPool.run { () throws in
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
    }

    @Test func aWorkQueueRedeliversWhatIsNotAcknowledged() async throws {
        try await OffPool.run { () throws in
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

    /// The C client's message points at its subscription, and the
    /// subscription at its connection, without holding them: a delivery
    /// settled after the worker let go of its subscription and connection
    /// (a heartbeat that fires late) once read freed memory. Now a delivery
    /// keeps both, and the acknowledgement reaches the server.
    @Test func aDeliveryOutlivingItsSubscriptionAndConnectionIsStillSettled() async throws {
        try await OffPool.run { () throws in
            let server = try NATSServer(storage: TestSupport.temporaryFolder())
            let address = try ServerAddress(server.url)
            func subscribe(_ board: JobBoard) throws -> WorkQueueSubscription {
                try board.jetStream.workQueue(stream: JobBoard.jobsStream, subject: JobBoard.jobsSubject,
                                              durable: "late", ackWait: .seconds(1), maxDeliver: 5)
            }
            func delivered() throws -> Delivery? {
                let board = JobBoard(try JetStream(address, name: "first"))
                try board.prepare()
                try board.jetStream.publish(JobBoard.jobsSubject, Array("one".utf8), messageID: "one")
                return try subscribe(board).next(timeout: .seconds(2))
            }
            // Every other handle on the first connection is gone when this returns.
            let delivery = try #require(try delivered())
            try delivery.acknowledge()
            // Acknowledged: it does not come back after the ack wait.
            let other = JobBoard(try JetStream(address, name: "second"))
            #expect(try subscribe(other).next(timeout: .milliseconds(2500)) == nil)
            _ = server
        }
    }

    /// A runner that only counts: the job below must never reach it.
    final class CountingRunner: JobRunner, @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        var runs: Int { lock.withLock { count } }

        func run(_ job: JobSpec, input: URL, outputs: URL) throws -> JobOutcome {
            lock.withLock { count += 1 }
            return JobOutcome(lines: [], audioSeconds: 0)
        }
    }

    /// Runs a worker ("w:1", 3 deliveries at most) on `board` until the jobs
    /// `ids` all have results (60 s at most), then drains it: those results,
    /// and what the worker logged.
    @discardableResult
    func work(_ board: JobBoard, runner: CountingRunner, until ids: [String], log: Lines = Lines()) throws -> [String: JobResult] {
        let folder = TestSupport.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var settings = WorkerSettings(workFolder: folder)
        settings.maxDeliver = 3
        let worker = Worker(board: board, settings: settings, runner: runner, name: "w:1") { log.append($0) }
        let subscriptions = try worker.subscribe()
        let stopped = DispatchSemaphore(value: 0)
        Thread {
            worker.run(subscriptions)
            stopped.signal()
        }.start()
        let deadline = Date().addingTimeInterval(60)
        var results: [String: JobResult] = [:]
        while results.count < ids.count && Date() < deadline {
            for id in ids where results[id] == nil { results[id] = try board.result(job: id) }
            if results.count < ids.count { usleep(50_000) }
        }
        worker.drain()
        #expect(stopped.wait(timeout: .now() + 5) == .success)
        return results
    }

    /// A job of three bytes' input stored on `board`, and its JSON as queued.
    func storedJob(on board: JobBoard, batch: String, index: Int) throws -> (JobSpec, String) {
        let blob = try board.storeBlob(name: "a.wav", bytes: [1, 2, 3], batch: batch, index: index, part: "input")
        let job = JobSpec(batch: batch, index: index, pipelineName: "p", pipeline: "", variables: [:], input: .file(blob), submitted: 0)
        return (job, String(decoding: JobBoard.encode(job), as: UTF8.self))
    }

    final class Lines: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        func append(_ line: String) { lock.withLock { lines.append(line) } }
        var all: [String] { lock.withLock { lines } }
    }

    @Test func aJobWhoseIdIsNoJobIdIsDroppedAndOneWhoseIdDisagreesFails() async throws {
        try await OffPool.run { () throws in
            let (server, board) = try board()
            let (job, encoded) = try storedJob(on: board, batch: "t5st", index: 3)
            #expect(encoded.contains(#""id":"t5st-0003""#))
            // An id with a subject wildcard and a line break in it: not a job id, so nothing is published under it.
            let forged = encoded.replacingOccurrences(of: #""id":"t5st-0003""#, with: #""id":"t5st.>\nw:1: all done-0001""#)
            // A job id that is not the job's batch and index: the job fails under that id, saying why.
            let disagreeing = encoded.replacingOccurrences(of: #""id":"t5st-0003""#, with: #""id":"t5st-0001""#)
            try board.jetStream.publish(JobBoard.jobsSubject, Array(forged.utf8), messageID: "forged")
            try board.jetStream.publish(JobBoard.jobsSubject, Array(disagreeing.utf8), messageID: "t5st-0001")
            try board.queue(job)
            let runner = CountingRunner(), log = Lines()
            let results = try work(board, runner: runner, until: ["t5st-0001", job.id], log: log)
            #expect(results[job.id]?.status == .done)
            #expect(runner.runs == 1)
            #expect(results["t5st-0001"]?.status == .failed)
            #expect(results["t5st-0001"]?.reasons.first?.contains("its id is not its batch id and index") == true, "\(results)")
            let stored = try board.jetStream.messages(stream: JobBoard.resultsStream, subject: "parley.results.>")
            #expect(stored.count == 2)
            #expect(log.all.contains { $0.contains("is no parley-job/1 job with a job id: terminated") }, "\(log.all)")
            #expect(!log.all.contains { $0.contains("all done") }, "\(log.all)")
            _ = server
        }
    }

    /// A job's input reference is the submitter's claim: one claiming more
    /// bytes than its chunks hold fails, and the worker goes on. Before, a
    /// claim of 100 GB was allocated on trust and aborted the worker.
    @Test func anInputClaimingMoreBytesThanItsChunksHoldFailsAndTheWorkerGoesOn() async throws {
        try await OffPool.run { () throws in
            let (server, board) = try board()
            let (huge, encodedHuge) = try storedJob(on: board, batch: "t6st", index: 1)
            let (negative, encodedNegative) = try storedJob(on: board, batch: "t6st", index: 2)
            let (job, _) = try storedJob(on: board, batch: "t6st", index: 3)
            #expect(encodedHuge.contains(#""size":3}"#))
            try board.jetStream.publish(JobBoard.jobsSubject, Array(encodedHuge.replacingOccurrences(of: #""size":3}"#, with: #""size":100000000000}"#).utf8),
                                        messageID: huge.id)
            try board.jetStream.publish(JobBoard.jobsSubject, Array(encodedNegative.replacingOccurrences(of: #""size":3}"#, with: #""size":-1}"#).utf8),
                                        messageID: negative.id)
            try board.queue(job)
            let runner = CountingRunner(), log = Lines()
            let results = try work(board, runner: runner, until: [huge.id, negative.id, job.id], log: log)
            for claim in [huge.id, negative.id] {
                let reasons = results[claim]?.reasons ?? []
                #expect(results[claim]?.status == .failed)
                // Each attempt the worker ran names the claim. Once, under the
                // whole suite on a loaded machine, a third delivery never reached
                // the worker: after the 30 s ack wait JetStream's max-deliveries
                // advisory recorded it as "delivered, but no worker recorded
                // starting it", which is the truth, and the job still failed with
                // the claim named by the attempts before. The log says why, if it
                // happens again.
                #expect(reasons.contains { $0.contains("1 chunks cannot hold the") }, "\(reasons); the worker said: \(log.all)")
                if reasons.last?.contains("1 chunks cannot hold the") != true {
                    print("\(claim): an attempt the worker did not run: \(reasons); the worker said: \(log.all)")
                }
            }
            #expect(results[job.id]?.status == .done)
            #expect(runner.runs == 1)
            _ = server
        }
    }

    @Test func aJobOfAKindThisWorkerCannotReadFailsAtOnceWithTheReason() async throws {
        try await OffPool.run { () throws in
            let (server, board) = try board()
            let (job, encoded) = try storedJob(on: board, batch: "t4st", index: 2)
            // A newer submitter's job: a live source this worker does not know.
            let newer = encoded.replacingOccurrences(of: #""kind":"file""#, with: #""kind":"srt""#)
            try board.jetStream.publish(JobBoard.jobsSubject, Array(newer.utf8), messageID: job.id)
            let runner = CountingRunner()
            let results = try work(board, runner: runner, until: [job.id])
            let failed = try #require(results[job.id])
            #expect(failed.status == .failed)
            #expect(failed.attempts == 1)
            #expect(failed.reasons == ["attempt 1 on w:1: this worker cannot read the job: input kind 'srt' is not one this worker knows (file, corpus)"])
            #expect(runner.runs == 0)
            #expect(AttemptHistory.state(of: try board.events(batch: "t4st", index: 2)) == .failed)
            _ = server
        }
    }
}
