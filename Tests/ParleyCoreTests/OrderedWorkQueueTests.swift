import Foundation
import ParleyTestSupport
import Testing
@testable import ParleyCore

/// Consumes a queue on a thread of its own, as an element's push thread does.
final class Collector: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [OrderedWorkQueue<Int, String>.Delivery] = []
    private let done = DispatchSemaphore(value: 0)

    init(_ queue: OrderedWorkQueue<Int, String>, delayEach: useconds_t = 0) {
        Thread {
            while let item = queue.next() {
                if delayEach > 0 { usleep(delayEach) }
                self.lock.withLock { self.items.append(item) }
            }
            self.done.signal()
        }.start()
    }

    func join() { done.wait() }
    var results: [Int] {
        lock.withLock {
            items.compactMap { if case .completed(_, let output, _) = $0 { output } else { nil } }
        }
    }
    var skippedOutputs: [Int] {
        lock.withLock { items.compactMap { if case .skipped(_, _, let output) = $0 { output } else { nil } } }
    }
    var sequence: [String] {
        lock.withLock {
            items.map {
                switch $0 {
                case .completed(_, let output, _): "\(output)"
                case .skipped(_, _, let output): "skipped:\(output)"
                case .partial(_, let output): "p:\(output)"
                case .event(let event): event
                }
            }
        }
    }
}

@Suite(.serialized) struct OrderedWorkQueueTests {
    @Test func thousandsOfItemsWithRandomServiceTimesArriveCompleteAndInOrder() async {
        await onThread {
        let queue = OrderedWorkQueue<Int, String>(.init(maxInFlight: 8, maxPending: 32, policy: .block))
        let collector = Collector(queue)
        for index in 0..<3000 {
            queue.submit({
                try? await Task.sleep(nanoseconds: UInt64.random(in: 0...2_000_000))
                return index
            }, ifSkipped: { _ in -1 })
        }
        queue.drain()
        queue.close()
        collector.join()
        #expect(collector.results == Array(0..<3000))
        let stats = queue.statistics
        #expect(stats.maxRunning <= 8)
        #expect(stats.maxRunning > 1, "work should overlap")
        #expect(stats.maxDepth <= 40, "memory stays bounded by max-in-flight + max-pending")
        #expect(stats.skipped == 0)
        }
    }

    @Test func partialsLeaveInOrderAndOnlyTheLatestOfAWaitingItem() async {
        await onThread {
            let queue = OrderedWorkQueue<Int, String>(.init(maxInFlight: 2, maxPending: 2))
            let collector = Collector(queue)
            queue.submit(progressive: { sink in
                sink.emit(11)
                try? await Task.sleep(nanoseconds: 150_000_000)
                return 1
            }, ifSkipped: { _ in -1 })
            queue.submit(progressive: { sink in
                sink.emit(21)
                sink.emit(22)
                return 2
            }, ifSkipped: { _ in -1 })
            queue.drain()
            queue.close()
            collector.join()
            #expect(collector.sequence == ["p:11", "1", "p:22", "2"])
        }
    }

    @Test func eventsKeepTheirPlaceBetweenResults() async {
        await onThread {
        let queue = OrderedWorkQueue<Int, String>(.init(maxInFlight: 4, maxPending: 4))
        let collector = Collector(queue)
        queue.submit({ try? await Task.sleep(nanoseconds: 30_000_000); return 1 }, ifSkipped: { _ in -1 })
        queue.submit(event: "speech-end")
        queue.submit({ 2 }, ifSkipped: { _ in -1 })
        queue.submit(event: "eos")
        queue.drain()
        queue.close()
        collector.join()
        #expect(collector.sequence == ["1", "speech-end", "2", "eos"])
        }
    }

    @Test func blockHoldsTheSubmitterBackWhenFull() async {
        await onThread {
        let queue = OrderedWorkQueue<Int, String>(.init(maxInFlight: 1, maxPending: 2, policy: .block))
        let collector = Collector(queue)
        for index in 0..<12 {
            queue.submit({ try? await Task.sleep(nanoseconds: 5_000_000); return index }, ifSkipped: { _ in -1 })
            #expect(queue.statistics.depth <= 3)
        }
        queue.drain()
        queue.close()
        collector.join()
        #expect(collector.results == Array(0..<12))
        #expect(queue.statistics.totalBlocked > 0, "the submitter must have waited")
        }
    }

    @Test func dropNewestSkipsTheNewItemAndCountsAddUp() async {
        await onThread {
        let queue = OrderedWorkQueue<Int, String>(.init(maxInFlight: 1, maxPending: 1, policy: .dropNewest))
        let collector = Collector(queue)
        for index in 0..<20 {
            queue.submit({ try? await Task.sleep(nanoseconds: 20_000_000); return index }, ifSkipped: { _ in index })
        }
        queue.drain()
        queue.close()
        collector.join()
        #expect(collector.results.count + collector.skippedOutputs.count == 20)
        #expect(!collector.skippedOutputs.isEmpty)
        #expect(collector.results.first == 0, "the first item is never the one dropped")
        // Order holds across results and skips alike.
        let all = collector.sequence.map { Int($0.replacingOccurrences(of: "skipped:", with: ""))! }
        #expect(all == Array(0..<20))
        }
    }

    @Test func dropOldestSkipsTheOldestWaitingItem() async {
        await onThread {
        let queue = OrderedWorkQueue<Int, String>(.init(maxInFlight: 1, maxPending: 2, policy: .dropOldest))
        let collector = Collector(queue)
        for index in 0..<10 {
            queue.submit({ try? await Task.sleep(nanoseconds: 20_000_000); return index }, ifSkipped: { _ in index })
        }
        queue.drain()
        queue.close()
        collector.join()
        #expect(collector.results.count + collector.skippedOutputs.count == 10)
        #expect(collector.results.last == 9, "the newest item survives drop-oldest")
        #expect(collector.skippedOutputs.contains(1))
        #expect(queue.statistics.skipped == UInt64(collector.skippedOutputs.count))
        }
    }

    @Test func cancelAllDoesNotWaitForRunningWorkAndUnblocksSubmitters() async {
        await onThread {
        let queue = OrderedWorkQueue<Int, String>(.init(maxInFlight: 1, maxPending: 0, policy: .block))
        let collector = Collector(queue)
        queue.submit({ try? await Task.sleep(nanoseconds: 10_000_000_000); return 0 }, ifSkipped: { _ in -1 })
        let blocked = DispatchSemaphore(value: 0)
        let outcome = LockedBox<OrderedWorkQueue<Int, String>.SubmitOutcome?>(nil)
        Thread {
            outcome.value = queue.submit({ 1 }, ifSkipped: { _ in -1 })
            blocked.signal()
        }.start()
        usleep(50_000)
        let started = Date()
        queue.cancelAll()
        blocked.wait()
        #expect(Date().timeIntervalSince(started) < 5, "cancel must not wait for the 10 s job")
        #expect(outcome.value == .flushing)
        #expect(queue.submit({ 2 }, ifSkipped: { _ in -1 }) == .flushing, "refused until resume")
        queue.resume()
        queue.submit({ 3 }, ifSkipped: { _ in -1 })
        queue.drain()
        queue.close()
        collector.join()
        #expect(collector.results == [3])
        }
    }
}

final class LockedBox<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: T
    init(_ value: T) { stored = value }
    var value: T {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
