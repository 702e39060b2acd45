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

    @Test func speechBehindItsSpeakerIsSpokenFasterUpToTheCeiling() {
        var timeline = SpeechTimeline()
        #expect(timeline.catchUpSpeed(speechEnd: 3 * second, pts: second, maxSpeedUp: 1.5) == 1, "nothing spoken yet: not behind")
        timeline.spoke(until: 3 * second + 400 * Gst.millisecond)
        #expect(timeline.catchUpSpeed(speechEnd: 3 * second, pts: second, maxSpeedUp: 1.5) == 1, "within the grace: natural speed")
        timeline.spoke(until: 5 * second + 500 * Gst.millisecond)
        #expect(abs(timeline.catchUpSpeed(speechEnd: 3 * second, pts: second, maxSpeedUp: 1.5) - 1.5) < 1e-9, "2.5 s behind: 1 + 2/4")
        #expect(abs(timeline.catchUpSpeed(speechEnd: 4 * second, pts: second, maxSpeedUp: 1.5) - 1.25) < 1e-9, "1.5 s behind: 1 + 1/4")
        timeline.spoke(until: 30 * second)
        #expect(timeline.catchUpSpeed(speechEnd: 3 * second, pts: second, maxSpeedUp: 1.5) == 1.5, "never past the ceiling")
        #expect(timeline.catchUpSpeed(speechEnd: 3 * second, pts: second, maxSpeedUp: 1) == 1, "a ceiling of 1: never faster")
        #expect(abs(timeline.catchUpSpeed(speechEnd: Gst.clockTimeNone, pts: 29 * second, maxSpeedUp: 2) - 1.125) < 1e-9,
                "no speech end: 1 s behind the text's time, 1 + 0.5/4")
        #expect(timeline.catchUpSpeed(speechEnd: Gst.clockTimeNone, pts: Gst.clockTimeNone, maxSpeedUp: 2) == 1,
                "no time at all: not known to be behind")
    }

    @Test func speechMadeButNotYetPlacedCountsAsBehind() {
        var timeline = SpeechTimeline()
        // A result stamped 1 s made 2 s of speech in two chunks; none has left yet.
        timeline.schedule(samples: 16_000, rate: 16_000, firstAt: second)
        timeline.schedule(samples: 16_000, rate: 16_000, firstAt: nil)
        #expect(timeline.scheduledEnd == 3 * second && timeline.nextFree == 0)
        #expect(abs(timeline.catchUpSpeed(speechEnd: Gst.clockTimeNone, pts: 1 * second, maxSpeedUp: 2) - 1.375) < 1e-9,
                "2 s behind the next text stamped 1 s: 1 + 1.5/4")
        timeline.spoke(until: 3 * second)
        timeline.schedule(samples: 16_000, rate: 16_000, firstAt: 5 * second)
        #expect(timeline.scheduledEnd == 6 * second, "a later text starts at its own time")
        timeline.flushStarted()
        timeline.flushStopped()
        #expect(timeline.scheduledEnd == 0 && timeline.catchUpSpeed(speechEnd: 0, pts: 0, maxSpeedUp: 2) == 1)
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
