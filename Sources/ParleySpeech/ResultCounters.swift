import ParleyCore
import Synchronization

/// Results by status since an element started: what the async elements
/// expose as `results-final`, `results-skipped` and `results-failed`.
public final class ResultCounters: Sendable {
    public let final = Atomic<UInt64>(0)
    public let skipped = Atomic<UInt64>(0)
    public let failed = Atomic<UInt64>(0)

    public init() {}

    public func reset() {
        final.store(0, ordering: .relaxed)
        skipped.store(0, ordering: .relaxed)
        failed.store(0, ordering: .relaxed)
    }

    /// Counts one result; partials are not results.
    public func count(_ status: SpeechStatus) {
        switch status {
        case .final: final.add(1, ordering: .relaxed)
        case .skipped: skipped.add(1, ordering: .relaxed)
        case .failed: failed.add(1, ordering: .relaxed)
        case .partial: break
        }
    }
}
