import Foundation
import ParleyCore
import Testing
@testable import VADSegmenter

/// The segmentation state machine on its own, fed frames with chosen
/// probabilities (10 ms each).
@Suite struct SegmenterTests {
    let configuration = SegmenterConfiguration(threshold: 0.5, onsetThreshold: 0.75, prefixPaddingMs: 300, silenceDurationMs: 500,
                                               minSpeechMs: 200, maxSegmentMs: 30_000, mode: .vad, dropSilence: true, likelyEndMs: 0)

    func frames(_ probabilities: [Float]) -> [Frame] {
        probabilities.enumerated().map { index, probability in
            Frame(samples: [], pts: UInt64(index) * 10_000_000, duration: 10_000_000, probability: probability, energy: 0)
        }
    }

    func run(_ segmenter: inout Segmenter, _ probabilities: [Float], ptt: Bool = false) -> [SegmenterAction] {
        frames(probabilities).flatMap { segmenter.push($0, pttActive: ptt) } + segmenter.finish()
    }

    func ends(_ actions: [SegmenterAction]) -> [(start: UInt64, end: UInt64, speechEnd: UInt64, reason: SegmentEndReason)] {
        actions.compactMap {
            if case .end(_, let start, let end, let speechEnd, let reason, _, _) = $0 { (start, end, speechEnd, reason) } else { nil }
        }
    }

    func likelyEnds(_ actions: [SegmenterAction]) -> [(position: UInt64, speechEnd: UInt64)] {
        actions.compactMap { if case .likelyEnd(_, let position, let speechEnd) = $0 { (position, speechEnd) } else { nil } }
    }

    func resumptions(_ actions: [SegmenterAction]) -> [UInt64] {
        actions.compactMap { if case .resumed(_, let at) = $0 { at } else { nil } }
    }

    /// Early in a pause the end is likely; the silence confirms it later.
    /// The likely end comes after the audio it vouches for, once a pause.
    @Test func aPauseMakesTheEndLikelyBeforeTheSilenceConfirmsIt() throws {
        var likely = configuration
        likely.likelyEndMs = 200
        var segmenter = Segmenter(likely, heardAhead: 4)
        let actions = run(&segmenter, Array(repeating: 0.1, count: 100) + Array(repeating: 0.9, count: 100) + Array(repeating: 0.1, count: 100))
        let found = likelyEnds(actions)
        #expect(found.count == 1, "once a pause")
        #expect(found.first?.speechEnd == 2_000_000_000)
        #expect(found.first?.position == 2_160_000_000, "160 ms judged silent, the 40 ms after it heard: 200 ms after the speech")
        #expect(resumptions(actions).isEmpty)
        let likelyIndex = try #require(actions.firstIndex { if case .likelyEnd = $0 { true } else { false } })
        let endIndex = try #require(actions.firstIndex { if case .end = $0 { true } else { false } })
        #expect(likelyIndex < endIndex)
        if case .audio(let frame, _) = actions[likelyIndex - 1] {
            #expect(frame.end == 2_160_000_000, "the audio through the likely end has been passed on before it")
        } else {
            Issue.record("the likely end follows the frame that made it likely")
        }
        #expect(ends(actions).first?.end == 2_460_000_000, "the segment still ends when the silence says")
    }

    /// A thinking pause longer than likely-end-ms and shorter than the
    /// silence: the likely end is withdrawn when the speaker goes on, and the
    /// next pause may be likely again.
    @Test func speechAfterALikelyEndWithdrawsIt() {
        var likely = configuration
        likely.likelyEndMs = 200
        var segmenter = Segmenter(likely)
        let talk = Array(repeating: Float(0.9), count: 50) + Array(repeating: 0.1, count: 30)
            + Array(repeating: 0.9, count: 50) + Array(repeating: 0.1, count: 80)
        let actions = run(&segmenter, Array(repeating: 0.1, count: 50) + talk)
        #expect(likelyEnds(actions).map(\.speechEnd) == [1_000_000_000, 1_800_000_000])
        #expect(resumptions(actions) == [1_300_000_000], "withdrawn by the first frame of speech after the pause")
        #expect(ends(actions).count == 1, "one segment: the pause was not its end")
    }

    @Test func noLikelyEndWhenItIsOffOrNotBeforeTheSilence() {
        for likelyEndMs in [0, 500, 800] {
            var settings = configuration
            settings.likelyEndMs = likelyEndMs
            var segmenter = Segmenter(settings)
            let actions = run(&segmenter, Array(repeating: 0.1, count: 100) + Array(repeating: 0.9, count: 100) + Array(repeating: 0.1, count: 100))
            #expect(likelyEnds(actions).isEmpty, "likely-end-ms=\(likelyEndMs)")
            #expect(ends(actions).count == 1)
        }
    }

    /// Continuous speech (long-speech-ms): breaths of 200 ms between 2.5 s
    /// sentences. Off, it is one segment; on, the first breath after 2 s of
    /// segment ends it, 150 ms after the speech, and so on; a breath inside
    /// the first 2 s does not.
    @Test func pastLongSpeechMsABreathEndsTheSegment() {
        let breath = Array(repeating: Float(0.1), count: 20), sentence = Array(repeating: Float(0.9), count: 250)
        let talk = Array(repeating: Float(0.1), count: 50) + Array(repeating: 0.9, count: 100) + breath
            + sentence + breath + sentence + breath + sentence + Array(repeating: 0.1, count: 100)
        var off = Segmenter(configuration)
        #expect(ends(run(&off, talk)).count == 1)
        var continuous = configuration
        continuous.longSpeechMs = 2000
        var segmenter = Segmenter(continuous)
        let found = ends(run(&segmenter, talk))
        #expect(found.count == 3, "\(found)")
        // The segment opens at 0.2 s (speech at 0.5 s, 300 ms of padding); the breath at
        // 1.5-1.7 s comes 1.3 s into it and is kept; the one at 4.2 s ends it 150 ms later.
        #expect(found.first?.speechEnd == 4_200_000_000 && found.first?.end == 4_350_000_000, "\(found)")
        #expect(found.allSatisfy { $0.reason == .silence && $0.end == $0.speechEnd + 150_000_000 }, "\(found)")
        #expect(found.map(\.speechEnd) == [4_200_000_000, 6_900_000_000, 9_600_000_000])
    }

    @Test func speechBetweenSilencesIsOneSegmentWithPrefixPaddingAndTheSilenceItEndedOn() {
        var segmenter = Segmenter(configuration)
        // 1 s silence, 1 s speech, 1 s silence.
        let actions = run(&segmenter, Array(repeating: 0.1, count: 100) + Array(repeating: 0.9, count: 100) + Array(repeating: 0.1, count: 100))
        let found = ends(actions)
        #expect(found.count == 1)
        #expect(found[0].start == 700_000_000, "300 ms of prefix padding before speech at 1 s")
        #expect(found[0].speechEnd == 2_000_000_000)
        #expect(found[0].end == 2_500_000_000, "closed after 500 ms of silence")
        #expect(found[0].reason == .silence)
    }

    /// Fed by a detector with a lookahead, each frame arrives with that much
    /// audio already heard after it, and the silence that ends a segment
    /// counts it: the close is decided silence-duration-ms after the speech.
    @Test func theDetectorsLookaheadCountsTowardsTheSilenceThatEndsASegment() {
        var segmenter = Segmenter(configuration, heardAhead: 3)
        let actions = run(&segmenter, Array(repeating: 0.1, count: 100) + Array(repeating: 0.9, count: 100) + Array(repeating: 0.1, count: 100))
        let found = ends(actions)
        #expect(found.count == 1)
        #expect(found.first?.end == 2_470_000_000, "470 ms judged silent, the 30 ms after it heard: decided 500 ms after the speech")
        #expect(found.first?.reason == .silence)

        // A pause whose judged part falls one frame short of that is no end.
        var again = Segmenter(configuration, heardAhead: 3)
        let pause = Array(repeating: Float(0.9), count: 50) + Array(repeating: 0.1, count: 46) + Array(repeating: 0.9, count: 50)
        #expect(ends(run(&again, pause)).map(\.reason) == [.eos])
    }

    /// After the last word the detector often hovers just over threshold
    /// (0.5-0.6) before it lets go: those doubted frames count towards the
    /// silence in part, so the segment ends sooner than if each one started
    /// the count again; a sure frame (0.6 and over) still does.
    @Test func framesJustOverThresholdCountTowardsTheSilenceInPart() {
        let speech = Array(repeating: Float(0.1), count: 100) + Array(repeating: 0.9, count: 100)
        // 200 ms at 0.55 (half a frame each: 100 ms of silence), then silence.
        var hovering = Segmenter(configuration)
        let found = ends(run(&hovering, speech + Array(repeating: 0.55, count: 20) + Array(repeating: 0.1, count: 100)))
        #expect(found.count == 1)
        #expect(found.first?.speechEnd == 2_200_000_000, "its last frame at or over threshold")
        #expect(found.first?.end == 2_600_000_000, "100 ms counted while it hovered, 400 ms after: 600 ms after the sure speech")
        #expect(found.first?.reason == .silence)

        // The same at 0.65 is sure speech: the count starts after it.
        var sure = Segmenter(configuration)
        let later = ends(run(&sure, speech + Array(repeating: 0.65, count: 20) + Array(repeating: 0.1, count: 100)))
        #expect(later.first?.end == 2_700_000_000)

        // Doubted frames inside a pause add up but do not end it short of the
        // setting: 200 ms, 300 ms at 0.55 (150 counted), 100 ms: 450 ms counted.
        var pause = Segmenter(configuration)
        let sentence = speech + Array(repeating: 0.1, count: 20) + Array(repeating: 0.55, count: 30) + Array(repeating: 0.1, count: 10)
            + Array(repeating: 0.9, count: 50) + Array(repeating: 0.1, count: 100)
        #expect(ends(run(&pause, sentence)).count == 1)
    }

    @Test func speechShorterThanMinSpeechNeverBecomesASegment() {
        var segmenter = Segmenter(configuration)
        let actions = run(&segmenter, Array(repeating: 0.1, count: 50) + Array(repeating: 0.9, count: 15) + Array(repeating: 0.1, count: 100))
        #expect(ends(actions).isEmpty, "150 ms of speech is under the 200 ms minimum")
        #expect(!actions.contains { if case .audio = $0 { true } else { false } }, "nothing passes with drop-silence")
    }

    /// A voiced sound the detector only half believes (0.5-0.7 for as long
    /// as it lasts) opens nothing; speech of which half of min-speech-ms is
    /// confident does, from its first probable frame.
    /// How much audio is kept before a segment decides nothing about where
    /// its speech starts: alsa-utils' "Front, Center" (a word the detector
    /// half believes, a pause, one it is sure of) once made a segment from
    /// "Front" with 300 ms of padding and from "Center" with none.
    @Test func thePrefixPaddingDecidesNoOnset() {
        // Two words at 0.6 with pauses under silence-duration-ms, then one at 0.9.
        let probabilities = [Float](repeating: 0.1, count: 100) + [Float](repeating: 0.6, count: 8)
            + [Float](repeating: 0.1, count: 40) + [Float](repeating: 0.6, count: 8) + [Float](repeating: 0.1, count: 30)
            + [Float](repeating: 0.9, count: 40) + [Float](repeating: 0.1, count: 100)
        var speechStarts: [Int: UInt64] = [:]
        for padding in [0, 300, 1000] {
            var padded = configuration
            padded.prefixPaddingMs = padding
            var segmenter = Segmenter(padded)
            let found = ends(run(&segmenter, probabilities))
            #expect(found.count == 1, "prefix-padding-ms \(padding)")
            speechStarts[padding] = found.first.map { $0.start + UInt64(padding) * 1_000_000 }
        }
        // Counted over the last 710 ms (min-speech-ms + silence-duration-ms):
        // the second word at 1.48 s is in them when the third confirms it, the first is not.
        #expect(Set(speechStarts.values) == [1_480_000_000], "\(speechStarts)")
    }

    @Test func onlySpeechHeardWithConfidenceOpensASegment() {
        var segmenter = Segmenter(configuration)
        let bark = Array(repeating: Float(0.1), count: 50) + Array(repeating: 0.65, count: 150) + Array(repeating: 0.1, count: 100)
        #expect(ends(run(&segmenter, bark)).isEmpty, "1.5 s at 0.65, never 0.75")

        // 100 ms probable, then 100 ms confident: half of the 200 ms minimum.
        var speech = Segmenter(configuration)
        let found = ends(run(&speech, Array(repeating: Float(0.1), count: 50) + Array(repeating: 0.6, count: 10)
            + Array(repeating: 0.8, count: 10) + Array(repeating: 0.1, count: 100)))
        #expect(found.count == 1)
        #expect(found.first?.start == 200_000_000, "300 ms before the first probable frame at 500 ms")

        // One confident frame short of half opens nothing.
        var short = Segmenter(configuration)
        #expect(ends(run(&short, Array(repeating: Float(0.6), count: 11) + Array(repeating: 0.8, count: 9)
            + Array(repeating: 0.1, count: 100))).isEmpty)

        // At or under threshold the onset threshold asks nothing more.
        var plain = configuration
        plain.onsetThreshold = plain.threshold
        var lenient = Segmenter(plain)
        #expect(ends(run(&lenient, bark)).count == 1)
    }

    @Test func aLongSegmentIsCutAtMaxDurationAndTheNextStartsWhereItEnded() {
        var configuration = configuration
        configuration.maxSegmentMs = 2000
        var segmenter = Segmenter(configuration)
        let actions = run(&segmenter, Array(repeating: 0.9, count: 500))
        let found = ends(actions)
        #expect(found.count >= 2)
        #expect(found.first?.reason == .maxDuration)
        for (first, second) in zip(found, found.dropFirst()) { #expect(second.start == first.end) }
        #expect(found.last?.reason == .eos)
    }

    /// A cut at max-segment-ms gives the frames after the cut to the next
    /// segment, and their speech with them: the cut segment's speech end is
    /// never after its end, and only its own frames make its mean probability.
    @Test(arguments: [SegmentationMode.vad, .always])
    func aCutSegmentsSpeechEndsWhereItWasCut(mode: SegmentationMode) {
        var configuration = configuration
        configuration.maxSegmentMs = 1000
        configuration.mode = mode
        var segmenter = Segmenter(configuration)
        // Speech throughout, loud, but for one quiet pause at 0.80-0.81 s.
        var all = frames(Array(repeating: 0.9, count: 150))
        for index in all.indices { all[index].energy = index == 80 ? 1 : 1e6 }
        all[80].probability = 0.1
        let actions = all.flatMap { segmenter.push($0, pttActive: false) } + segmenter.finish()
        let found = ends(actions)
        #expect(found.map(\.reason) == [.maxDuration, .eos])
        #expect(found[0].end == 810_000_000 && found[0].speechEnd == 800_000_000, "\(found)")
        #expect(found[1].start == 810_000_000 && found[1].speechEnd == 1_500_000_000)
        let means = actions.compactMap { if case .end(_, _, _, _, _, let mean, _) = $0 { mean } else { nil } }
        // Frames 0-80 are the first segment's: 80 at 0.9 and the pause at 0.1.
        #expect(abs(means[0] - (0.9 * 80 + 0.1) / 81) < 1e-4, "\(means)")
    }

    @Test func pushToTalkSegmentsFollowTheButton() {
        var configuration = configuration
        configuration.mode = .ptt
        var segmenter = Segmenter(configuration)
        var actions = frames(Array(repeating: 0.1, count: 30)).enumerated().flatMap { index, frame in
            segmenter.push(frame, pttActive: (10..<20).contains(index))
        }
        actions += segmenter.finish()
        let found = ends(actions)
        #expect(found.count == 1)
        #expect(found[0].start == 100_000_000 && found[0].end == 200_000_000)
        #expect(found[0].reason == .pttRelease)
    }

    @Test func switchingModeWhileRunningEndsTheOpenSegmentAndTheNewModeDecides() {
        var segmenter = Segmenter(configuration)
        let all = frames(Array(repeating: 0.9, count: 100) + Array(repeating: 0.1, count: 100))
        var actions: [SegmenterAction] = []
        // VAD: speech from 0 opens a segment; at 0.5 s switch to push-to-talk, button up.
        for frame in all[0..<50] { actions += segmenter.push(frame, pttActive: false) }
        actions += segmenter.switchMode(to: .ptt)
        #expect(segmenter.configuration.mode == .ptt && !segmenter.isInSegment)
        // Speech goes on, but in ptt mode only the button counts: 1.0–1.5 s.
        for (index, frame) in all[50...].enumerated() { actions += segmenter.push(frame, pttActive: (50..<100).contains(index)) }
        actions += segmenter.switchMode(to: .ptt)  // the same mode again changes nothing
        actions += segmenter.finish()
        let found = ends(actions)
        #expect(found.map(\.reason) == [.modeChange, .pttRelease])
        // Each end says which mode cut it: the VAD's segment ended by the switch away from it.
        let modes = actions.compactMap { if case .end(_, _, _, _, _, _, let mode) = $0 { mode } else { nil } }
        #expect(modes == [.vad, .ptt])
        #expect(found[0].start == 0 && found[0].end == 500_000_000)
        #expect(found[1].start == 1_000_000_000 && found[1].end == 1_500_000_000, "\(found)")
    }

    @Test func everyAudioFrameOfASegmentLiesInsideItsBounds() {
        var segmenter = Segmenter(configuration)
        let actions = run(&segmenter, Array(repeating: 0.1, count: 60) + Array(repeating: 0.9, count: 80) + Array(repeating: 0.1, count: 80))
        let found = ends(actions)
        let audio = actions.compactMap { if case .audio(let frame, let id?) = $0 { (frame, id) } else { nil } }
        #expect(!audio.isEmpty)
        for (frame, _) in audio { #expect(frame.pts >= found[0].start && frame.end <= found[0].end) }
    }
}

/// The real FFT against a plain DFT of the same windowed frame.
@Suite struct RealFFTTests {
    @Test(arguments: [16, 64, 512])
    func powerSpectrumEqualsANaiveDFT(size: Int) {
        let fft = RealFFT(size: size)
        var generator = SystemRandomNumberGenerator()
        let signal = (0..<size).map { _ in Float.random(in: -1...1, using: &generator) }
        let window: [Float] = (0..<size).map { index -> Float in
            let phase = 2 * Float.pi * Float(index) / Float(size)
            return 0.5 - 0.5 * cos(phase)
        }
        var power = [Float](repeating: 0, count: size / 2 + 1)
        var scratch = RealFFT.Scratch(size: size)
        fft.powerSpectrum(of: signal, window: window, into: &power, scratch: &scratch)
        for k in 0...(size / 2) {
            var re = 0.0, im = 0.0
            for n in 0..<size {
                let x = Double(signal[n] * window[n])
                let angle = -2 * Double.pi * Double(k * n) / Double(size)
                re += x * cos(angle)
                im += x * sin(angle)
            }
            let expected = re * re + im * im
            #expect(abs(Double(power[k]) - expected) <= 1e-3 * max(1, expected), "bin \(k): \(power[k]) vs \(expected)")
        }
    }
}
