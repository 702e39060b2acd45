import GstKit
import ParleySpeech
import Testing

/// The rules of the text-to-speech elements' output timeline.
@Suite struct SpeechTimelineTests {
    let second = Gst.second

    @Test func aResultStartsAtItsTextOrAfterTheSpeechBeforeIt() {
        var timeline = SpeechTimeline()
        #expect(timeline.start(for: 2 * second) == 2 * second, "nothing spoken yet: at its own time")
        timeline.spoke(until: 5 * second)
        #expect(timeline.start(for: 3 * second) == 5 * second, "never over the speech before it")
        #expect(timeline.start(for: 7 * second) == 7 * second, "a later text keeps its own time")
        #expect(timeline.start(for: Gst.clockTimeNone) == 5 * second, "no PTS: right after the speech before it")
        timeline.spoke(until: 4 * second)
        #expect(timeline.nextFree == 5 * second, "an earlier end does not move the timeline back")
    }

    @Test func queueingNeverInterrupts() {
        var timeline = SpeechTimeline()
        let first = timeline.accept(segment: 0, overlap: .queue)
        _ = timeline.accept(segment: 1, overlap: .queue)
        #expect(timeline.isCurrent(first))
    }

    @Test func aNewSegmentBargesInButSentencesOfOneSegmentDoNot() {
        var timeline = SpeechTimeline()
        let first = timeline.accept(segment: 0, overlap: .interrupt)
        let secondSentence = timeline.accept(segment: 0, overlap: .interrupt)
        #expect(first == secondSentence)
        #expect(timeline.isCurrent(first), "a translation's sentences do not cut each other")
        let next = timeline.accept(segment: 1, overlap: .interrupt)
        #expect(!timeline.isCurrent(first), "the new segment cuts the speech in progress and what is queued")
        #expect(timeline.isCurrent(next))
    }

    @Test func aFlushStopsEverythingAndRestartsAtZero() {
        var timeline = SpeechTimeline()
        let speaking = timeline.accept(segment: 3, overlap: .queue)
        timeline.spoke(until: 9 * second)
        timeline.flushStarted()
        #expect(!timeline.isCurrent(speaking))
        #expect(timeline.nextFree == 9 * second, "until the flush is over")
        timeline.flushStopped()
        #expect(timeline.start(for: 1 * second) == 1 * second)
    }

    @Test func newCapsOnlyWhenTheRateChanges() {
        var timeline = SpeechTimeline(pushedRate: 22_050)
        let same = timeline.switchRate(to: 22_050)
        let other = timeline.switchRate(to: 24_000)
        let again = timeline.switchRate(to: 24_000)
        #expect(!same)
        #expect(other, "a fallback provider at another rate")
        #expect(!again)
        var fresh = SpeechTimeline()
        let first = fresh.switchRate(to: 22_050)
        #expect(first, "the first audio always says its rate")
    }

    @Test func resultsWithoutMetaAreNumberedInArrivalOrder() {
        var timeline = SpeechTimeline()
        let numbers = [timeline.receive(), timeline.receive(), timeline.receive()]
        #expect(numbers == [0, 1, 2])
    }
}
