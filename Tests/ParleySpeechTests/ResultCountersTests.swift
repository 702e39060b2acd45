import GstKit
import ParleyCore
import ParleySpeech
import Testing

/// results-final / -skipped / -failed as every async element exposes them.
@Suite struct ResultCountersTests {
    @Test func eachResultCountsOnceByStatusAndPartialsNotAtAll() {
        let counters = ResultCounters()
        for status in [SpeechStatus.final, .final, .partial, .skipped, .failed, .failed, .failed] { counters.count(status) }
        #expect(counters.property("results-final") == .uint64(2))
        #expect(counters.property("results-skipped") == .uint64(1))
        #expect(counters.property("results-failed") == .uint64(3))
        #expect(counters.property("results-partial") == nil, "a name it does not own is not one of its properties")
        counters.reset()
        #expect(counters.property("results-failed") == .uint64(0))
    }

    @Test func itsPropertiesAreReadOnlyAndNamedAsItAnswers() {
        let specs = ResultCounters.specs(final: "f", skipped: "s", failed: "x")
        let counters = ResultCounters()
        for spec in specs {
            #expect(spec.flags.contains(.readable) && !spec.flags.contains(.writable), "\(spec.name)")
            #expect(counters.property(spec.name) != nil, "\(spec.name)")
        }
        #expect(specs.map(\.blurb) == ["f", "s", "x"])
    }
}
