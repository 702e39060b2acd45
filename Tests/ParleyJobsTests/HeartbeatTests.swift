import Foundation
import Synchronization
import Testing
@testable import ParleyJobs

/// The worker's in-progress beats, which keep a long job from being
/// delivered again, beat while the shared pool is busy.
@Suite struct HeartbeatTests {
    @Test func beatsGoOnWhileEveryThreadOfTheSharedPoolIsBusy() {
        let beats = Atomic<Int>(0)
        let release = Atomic<Bool>(false)
        let busy = DispatchGroup()
        // More busy work than the pool has threads (it is as wide as the cores).
        for _ in 0..<(4 * ProcessInfo.processInfo.activeProcessorCount) {
            DispatchQueue.global().async(group: busy) {
                while !release.load(ordering: .relaxed) {}
            }
        }
        let heartbeat = Heartbeat(every: .milliseconds(100)) { beats.add(1, ordering: .relaxed) }
        Thread.sleep(forTimeInterval: 1.5)
        heartbeat.stop()
        let counted = beats.load(ordering: .relaxed)
        release.store(true, ordering: .relaxed)
        busy.wait()
        #expect(counted >= 3, "\(counted) beats in 1.5 s at 100 ms while the pool was busy")
    }
}
