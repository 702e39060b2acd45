import GstKit
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

    /// The read-only `results-final`, `results-skipped`, `results-failed`
    /// properties, with what each counts for this element.
    public static func specs(final: String, skipped: String, failed: String) -> [PropertySpec] {
        [
            PropertySpec("results-final", nick: "Final results", blurb: final,
                         .uint64(default: 0, range: 0...UInt64.max), flags: .readOnly),
            PropertySpec("results-skipped", nick: "Skipped results", blurb: skipped,
                         .uint64(default: 0, range: 0...UInt64.max), flags: .readOnly),
            PropertySpec("results-failed", nick: "Failed results", blurb: failed,
                         .uint64(default: 0, range: 0...UInt64.max), flags: .readOnly),
        ]
    }

    /// One of those properties' values, or nil for another name.
    public func property(_ name: String) -> PropertyValue? {
        switch name {
        case "results-final": .uint64(final.load(ordering: .relaxed))
        case "results-skipped": .uint64(skipped.load(ordering: .relaxed))
        case "results-failed": .uint64(failed.load(ordering: .relaxed))
        default: nil
        }
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
