import Foundation
import GstKit
import ParleyCore
import ParleySpeech
import Synchronization

/// One utterance's place on the element's SpeechTimeline, decided on the
/// push thread as its audio leaves (in order), so utterances fetched at the
/// same time never overlap. The rules are SpeechTimeline's; this keeps the
/// utterance's own start and end and writes the markers around its audio.
final class Placement: @unchecked Sendable {
    // @unchecked: used only on the stage's push thread, one output after another.
    private let pts: UInt64
    private let timeline: SpeechTimeline.Shared
    private let id: UInt64
    private var start: UInt64?
    private var end: UInt64 = 0

    init(pts: UInt64, timeline: SpeechTimeline.Shared, id: UInt64) {
        self.pts = pts
        self.timeline = timeline
        self.id = id
    }

    /// A chunk at `rate`: offset by the start, the start marker before the
    /// first (after new caps when the rate is not the one downstream has).
    func place(_ output: inout StageOutput, rate: Int) {
        if start == nil {
            let (begin, newRate) = timeline.withLock { [pts] in ($0.start(for: pts), $0.switchRate(to: rate)) }
            start = begin
            if newRate { output.eventsBefore.append(Event.caps(AudioFormat(rate: rate).caps)) }
            output.eventsBefore.append(SpeechOutputStart(segmentID: id, start: begin).event)
        }
        for buffer in output.buffers {
            buffer.pts += start!
            end = buffer.pts + buffer.duration
        }
        let reached = end
        timeline.withLock { $0.spoke(until: reached) }
    }

    /// The result: the end marker after the audio, if any left. A result
    /// that was not spoken (failed) still gets one, with `status` and
    /// `reason`, so a recorder downstream knows the segment has no speech and why.
    func finish(_ output: inout StageOutput, failure: String? = nil) {
        if start == nil { output.eventsBefore.append(timeline.gap(for: pts)) }  // nothing spoken: sinks still preroll
        guard start != nil || failure != nil else { return }
        output.eventsAfter.append(SpeechOutputEnd(segmentID: id, end: start == nil ? pts : end, failure: failure).event)
    }
}

struct Utterance: Sendable {
    /// nil when the bytes were not UTF-8.
    var text: String?
    var pts: UInt64
    var meta: SpeechMeta
    var settings: CloudTTSElement.Settings
    var receivedAt: UInt64
    var generation: UInt64
}

extension CloudTTSElement {
    /// Speaking one result: the provider's chunks leave as partial outputs
    /// while it speaks, bracketed by parley/tts-start and parley/tts-end.
    /// Steps: validate (what is not spoken), speak (the chain, each chunk
    /// placed on the timeline as it leaves), result (spoken or failed, with
    /// the chain's report).
    func work(_ utterance: Utterance) -> StageWork {
        let id = utterance.meta.segmentID
        return StageWork(progressive: { [self] emit in
            let stillCurrent: @Sendable () -> Bool = { [timeline] in timeline.isCurrent(utterance.generation) }
            let text: String
            switch validate(utterance, stillCurrent: stillCurrent()) {
            case .answered(let output): return output
            case .speak(let valid): text = valid
            }
            guard let speakers = speakers.withLock({ $0 }) else { return unspoken(utterance, .failed, "no provider is set up") }
            let settings = utterance.settings
            let (streamLanguage, speedUp) = timeline.withLock { timeline in
                (timeline.streamLanguage,
                 timeline.speedUp(for: utterance.meta, pts: utterance.pts, overlap: settings.overlap, maxSpeedUp: settings.maxSpeedUp))
            }
            let request = SynthesisRequest(
                text: text, language: utterance.meta.language.isEmpty ? streamLanguage : utterance.meta.language,
                // Never past the speed property's own ceiling, which is every provider's (OpenAI and Google: 4).
                speed: min(Self.maxSpeed, settings.speed * speedUp), instructions: settings.instructions)
            // Buffers carry their offset in the utterance; where the utterance
            // starts is decided as it leaves, after the one before it ended.
            let placement = Placement(pts: utterance.pts, timeline: timeline, id: id)
            let audio = AudioProgress(meta: utterance.meta, receivedAt: utterance.receivedAt)
            let outcome = await speakers.chain.run { index -> FallbackChain.Attempt<Int> in
                let synthesizer = speakers.members[index]
                do throws(ProviderFailure) {
                    return .served(try await synthesizer.synthesize(request) { samples in
                        guard stillCurrent() else { return false }
                        let first = audio.samples == 0
                        self.timeline.withLock { [pts = utterance.pts] in
                            $0.schedule(samples: samples.count, rate: synthesizer.rate, firstAt: first ? pts : nil)
                        }
                        var output = audio.chunk(samples, from: synthesizer, speaker: synthesizer.speakerName(for: request))
                        output.stillWanted = stillCurrent
                        output.prepare = { placement.place(&$0, rate: synthesizer.rate) }
                        emit(output)
                        return true
                    })
                } catch {
                    // Audio already heard is not replayed by another voice either.
                    return .failed(error.error, attempts: error.attempts, movesOn: !error.afterAudio && stillCurrent())
                }
            }
            let (spoken, unspokenReason) = result(of: outcome, id: id, samples: audio.samples, speakers: speakers,
                                                  request: request, speedUp: speedUp, stillCurrent: stillCurrent())
            var output = spoken
            output.prepare = { placement.finish(&$0, failure: unspokenReason) }
            return output
        }, placeholder: { [self] reason in
            counters.count(.skipped)
            return StageOutput(warning: ElementMessageText("segment \(id) skipped: the request queue is full (queue-policy=\(reason.rawValue))"),
                               messages: [Self.ttsMessage(id, status: .skipped, provider: "", seconds: 0)])
        })
    }

    /// What validation makes of a result: answered without a provider, or a text to speak.
    enum Validation {
        case answered(StageOutput)
        case speak(String)
    }

    /// A result that is not spoken: interrupted before its turn, not UTF-8,
    /// empty (a noise's empty transcript: no fault to warn of), or too long.
    func validate(_ utterance: Utterance, stillCurrent: Bool) -> Validation {
        guard stillCurrent else { return .answered(unspoken(utterance, .skipped, nil)) }
        guard let raw = utterance.text else { return .answered(unspoken(utterance, .failed, "the text is not valid UTF-8: not spoken")) }
        let text = raw.replacingOccurrences(of: "\0", with: " ").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { return .answered(unspoken(utterance, .skipped, nil)) }
        guard text.count <= Self.maxInput else {
            return .answered(unspoken(utterance, .failed, "the text is \(text.count) characters, over the \(Self.maxInput)-character limit: not spoken"))
        }
        return .speak(text)
    }

    /// A result no provider was asked to speak: its message, and for a failure its warning and end marker.
    func unspoken(_ utterance: Utterance, _ status: SpeechStatus, _ reason: String?) -> StageOutput {
        let id = utterance.meta.segmentID
        counters.count(status)
        var output = StageOutput(warning: reason.map { ElementMessageText("segment \(id): \($0)") },
                                 messages: [Self.ttsMessage(id, status: status, provider: "", seconds: 0)])
        if status == .failed {
            output.eventsAfter = [SpeechOutputEnd(segmentID: id, end: utterance.pts, failure: reason ?? "not spoken").event]
        }
        let timeline = timeline
        output.prepare = { $0.eventsBefore.append(timeline.gap(for: utterance.pts)) }
        return output
    }

    /// The result from the chain's outcome: spoken (or cut by a barge-in), or
    /// failed with the chain's report (and why it was not spoken, for its end
    /// marker); a stream that broke after its audio was heard says so.
    func result(of outcome: FallbackChain.Outcome<Int>, id: UInt64, samples: UInt64, speakers: Speakers,
                request: SynthesisRequest, speedUp: Double, stillCurrent: Bool) -> (StageOutput, unspoken: String?) {
        let remote = { (index: Int) in (speakers.members[index] as? any RemoteProvider)?.service }
        switch outcome {
        case .served(_, let index, let moves, let disabled):
            let speaker = speakers.members[index]
            let status: SpeechStatus = stillCurrent ? .final : .skipped
            counters.count(status)
            let report = ChainReport.served(segmentID: id, moves: moves, disabled: disabled, chain: speakers.chain, remote: remote)
            return (StageOutput(warning: report.warning, messages: report.messages + [
                Self.ttsMessage(id, status: status, provider: speaker.speakerName(for: request), seconds: Double(samples) / Double(speaker.rate),
                                speedUp: speedUp),
            ]), nil)
        case .failed(let failure, let moves, let disabled):
            counters.count(.failed)
            let speaker = failure.provider.map { speakers.members[$0] }
            let seconds = speaker.map { Double(samples) / Double($0.rate) } ?? 0
            var broke: String?
            if samples > 0, let speaker {
                broke = "provider \(speaker.name): the stream broke after \(String(format: "%.2f", seconds)) s of audio (not replayed) after \(counted(failure.attempts, "attempt")): \(failure.error)"
            }
            let report = ChainReport.failed(segmentID: id, failure: failure, moves: moves, disabled: disabled, chain: speakers.chain,
                                            verb: "speak", reason: broke, remote: remote)
            var output = StageOutput(warning: report.warning, messages: report.messages + [
                Self.ttsMessage(id, status: .failed, provider: speaker?.speakerName(for: request) ?? "", seconds: seconds),
            ])
            output.error = report.error
            return (output, report.reason)
        }
    }

    static func ttsMessage(_ id: UInt64, status: SpeechStatus, provider: String, seconds: Double, speedUp: Double = 1) -> Structure {
        SpokenMessage(segmentID: id, status: status, provider: provider, audioSeconds: seconds, speedUp: speedUp).structure
    }

}

/// One utterance's audio as it arrives: each chunk becomes a buffer timed
/// from the utterance's start, the first one stamped (first audio out, who
/// spoke) with its latency message.
final class AudioProgress: Sendable {
    private let state: Mutex<(samples: UInt64, meta: SpeechMeta)>
    private let receivedAt: UInt64

    init(meta: SpeechMeta, receivedAt: UInt64) {
        state = Mutex((samples: 0, meta: meta))
        self.receivedAt = receivedAt
    }

    /// The samples that have left so far.
    var samples: UInt64 { state.withLock { $0.samples } }

    /// The output of one chunk from `synthesizer`, spoken by `speaker`.
    func chunk(_ samples: [Int16], from synthesizer: any SpeechSynthesizer, speaker: String) -> StageOutput {
        let rate = UInt64(synthesizer.rate)
        let (buffer, first, meta) = state.withLock { state -> (Buffer, Bool, SpeechMeta) in
            let buffer = Buffer(samples: samples)
            buffer.pts = state.samples * Gst.second / rate
            let first = state.samples == 0
            state.samples += UInt64(samples.count)
            buffer.duration = state.samples * Gst.second / rate - buffer.pts
            if first {
                state.meta.stamp(.firstAudioOut)
                state.meta.provider = speaker
            }
            buffer.setSpeechMeta(state.meta)
            return (buffer, first, state.meta)
        }
        return StageOutput(buffers: [buffer], messages: first ? [meta.ttsLatencyMessage(textArrivedAt: receivedAt)] : [])
    }
}
