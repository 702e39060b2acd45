import Foundation
import GstKit
import Parley
import ParleyCore
import ParleyTestSupport
import PipelineTestSupport
import Testing

/// The OrderedWorkQueue behind a real element in a real pipeline.
@Suite(.serialized) struct AsyncStageTests {
    init() {
        Parley.register(testElements)
        TestRecords.shared.reset()
    }

    func run(_ description: String) async throws -> [PipelineEvent] {
        let pipeline = try Pipeline(launch: description)
        var events: [PipelineEvent] = []
        try await pipeline.run { events.append($0) }
        return events
    }

    @Test func thousandsOfSegmentsFinishCompleteAndInOrder() async throws {
        let events = try await run(
            "parleytestsrc count=2000 ! parleytestasync name=stage max-in-flight=8 max-pending=16 max-service-us=3000 ! parleytestsink name=inorder")
        let record = TestRecords.shared.record("inorder")
        #expect(record.received == (0..<2000).map(UInt64.init))
        #expect(record.statuses.allSatisfy { $0 == .final })
        let transcripts = events.compactMap { if case .transcript(let t) = $0 { t.segmentID } else { nil } }
        #expect(transcripts == (0..<2000).map(UInt64.init), "typed transcript events, in order")
    }

    @Test func blockHoldsTheSourceBackAndLosesNothing() async throws {
        let pipeline = try Pipeline(launch:
            "parleytestsrc name=heldsource count=60 ! parleytestasync name=stage max-in-flight=1 max-pending=2 max-service-us=4000 ! parleytestsink name=held source=heldsource")
        var blockedMs = 0.0
        var maxDepth = 0
        try await pipeline.run { event in
            if case .eos = event {
                blockedMs = (try? pipeline.get("blocked-ms", of: "stage").double) ?? 0
                maxDepth = (try? pipeline.get("max-queue-depth", of: "stage").int) ?? -1
            }
        }
        let record = TestRecords.shared.record("held")
        #expect(record.received == (0..<60).map(UInt64.init))
        #expect(blockedMs > 0, "the streaming thread must have waited for room")
        #expect(maxDepth <= 3, "at most max-in-flight + max-pending queued")
        #expect(TestRecords.shared.produced("heldsource") == 60)
        // The source never ran ahead of the sink by more than the queue holds
        // plus the buffers being handed over on each side.
        #expect(record.maxGap <= 3 + 2)
    }

    @Test func dropOldestSkipsWithWarningsAndTheCountsAddUp() async throws {
        let events = try await run(
            "parleytestsrc count=50 ! parleytestasync max-in-flight=1 max-pending=1 queue-policy=drop-oldest max-service-us=20000 ! parleytestsink name=dropping")
        let record = TestRecords.shared.record("dropping")
        #expect(record.received == (0..<50).map(UInt64.init), "every segment leaves, in order")
        let skipped = record.statuses.filter { $0 == .skipped }.count
        #expect(skipped > 0)
        let warnings = events.filter { if case .warning = $0 { true } else { false } }.count
        #expect(warnings == skipped, "each drop is a warning, never silent")
        #expect(record.statuses.filter { $0 == .final }.count + skipped == 50)
    }

    @Test func stoppingMidStreamCancelsAndJoinsThePushThread() async throws {
        // Service times up to 10 s: what is in flight when the pipeline stops
        // is still sleeping, and must be cancelled rather than waited for.
        let pipeline = try Pipeline(launch:
            "parleytestsrc count=100000 ! parleytestasync name=cancelstage max-in-flight=2 max-pending=4 max-service-us=10000000 ! parleytestsink name=flushed")
        try pipeline.play()
        try await Task.sleep(nanoseconds: 300_000_000)
        await onThread { pipeline.stop() }  // PAUSED→READY cancels and joins (blocking: off the pool)
        try await Task.sleep(nanoseconds: 100_000_000)
        #expect(TestRecords.shared.cancellationCount("cancelstage") >= 1, "the requests in flight saw their cancellation")
    }

    @Test func requestPadsFanOutToEveryBranch() async throws {
        _ = try await run("""
            parleytestsrc count=20 ! parleytestfanout name=split
            split.src_0 ! queue ! parleytestsink name=left
            split.src_1 ! queue ! parleytestsink name=right
            """)
        #expect(TestRecords.shared.record("left").received == (0..<20).map(UInt64.init))
        #expect(TestRecords.shared.record("right").received == (0..<20).map(UInt64.init))
    }
}
