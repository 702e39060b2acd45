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
    func work(_ utterance: Utterance) -> StageWork {
        let id = utterance.meta.segmentID
        return StageWork(progressive: { [self] emit in
            let stillCurrent: @Sendable () -> Bool = { [timeline] in timeline.isCurrent(utterance.generation) }
            let text = (utterance.text ?? "").replacingOccurrences(of: "\0", with: " ").trimmingCharacters(in: .whitespacesAndNewlines)
            func result(_ status: SpeechStatus, _ warning: String?) -> StageOutput {
                counters.count(status)
                var output = StageOutput(warning: warning.map { ElementMessageText("segment \(id): \($0)") },
                                         messages: [Self.ttsMessage(id, status: status, provider: "", seconds: 0)])
                if status == .failed {
                    output.eventsAfter = [SpeechOutputEnd(segmentID: id, end: utterance.pts, failure: warning ?? "not spoken").event]
                }
                return output
            }
            guard stillCurrent() else { return result(.skipped, nil) }
            guard utterance.text != nil else { return result(.failed, "the text is not valid UTF-8: not spoken") }
            // Nothing to say (a noise's empty transcript): skipped, and no fault to warn of.
            guard !text.isEmpty else { return result(.skipped, nil) }
            guard text.count <= Self.maxInput else {
                return result(.failed, "the text is \(text.count) characters, over the \(Self.maxInput)-character limit: not spoken")
            }
            guard let speakers = speakers.withLock({ $0 }) else { return result(.failed, "no provider is set up") }
            let streamLanguage = timeline.withLock { $0.streamLanguage }
            let request = SynthesisRequest(
                text: text, language: utterance.meta.language.isEmpty ? streamLanguage : utterance.meta.language,
                speed: utterance.settings.speed, instructions: utterance.settings.instructions)
            // Buffers carry their offset in the utterance; where the utterance
            // starts is decided as it leaves, after the one before it ended.
            let placement = Placement(pts: utterance.pts, timeline: timeline, id: id)
            let progress = Mutex((samples: UInt64(0), meta: utterance.meta))
            let outcome = await speakers.chain.run { index -> FallbackChain.Attempt<Int> in
                let synthesizer = speakers.members[index]
                let rate = synthesizer.rate
                do throws(ProviderFailure) {
                    return .served(try await synthesizer.synthesize(request) { samples in
                        guard stillCurrent() else { return false }
                        let (buffer, first, meta) = progress.withLock { state -> (Buffer, Bool, SpeechMeta) in
                            let buffer = Buffer(samples: samples)
                            buffer.pts = state.samples * Gst.second / UInt64(rate)
                            let first = state.samples == 0
                            state.samples += UInt64(samples.count)
                            buffer.duration = state.samples * Gst.second / UInt64(rate) - buffer.pts
                            if first {
                                state.meta.stamp(.firstAudioOut)
                                state.meta.provider = synthesizer.name
                            }
                            buffer.setSpeechMeta(state.meta)
                            return (buffer, first, state.meta)
                        }
                        var output = StageOutput(buffers: [buffer],
                                                 messages: first ? [meta.ttsLatencyMessage(textArrivedAt: utterance.receivedAt)] : [],
                                                 stillWanted: stillCurrent)
                        output.prepare = { placement.place(&$0, rate: rate) }
                        emit(output)
                        return true
                    })
                } catch {
                    // Audio already heard is not replayed by another voice either.
                    return .failed(error.error, attempts: error.attempts, movesOn: !error.afterAudio && stillCurrent())
                }
            }
            let samples = progress.withLock { $0.samples }
            var output: StageOutput
            var unspokenReason: String?
            switch outcome {
            case .served(_, let index, let moves, let disabled):
                let rate = speakers.members[index].rate
                let status: SpeechStatus = stillCurrent() ? .final : .skipped
                counters.count(status)
                output = StageOutput(messages: moves.map { FallbackMessage(segmentID: id, $0).structure }
                                     + [Self.ttsMessage(id, status: status, provider: speakers.members[index].name,
                                                        seconds: Double(samples) / Double(rate))])
                output.warning = disabledWarning(speakers, disabled)
            case .failed(let failure, let moves, let disabled):
                counters.count(.failed)
                let provider = failure.provider.map { speakers.members[$0] }
                let seconds = provider.map { Double(samples) / Double($0.rate) } ?? 0
                let text: String
                if samples > 0, let provider {
                    text = "provider \(provider.name): the stream broke after \(String(format: "%.2f", seconds)) s of audio (not replayed) after \(counted(failure.attempts, "attempt")): \(failure.error)"
                } else if speakers.members.count == 1, let provider {
                    text = "provider \(provider.name) failed after \(counted(failure.attempts, "attempt")): \(failure.error)"
                } else {
                    text = "no provider could speak it: " + failure.reasons.joined(separator: "; ")
                }
                unspokenReason = text
                output = StageOutput(
                    warning: ElementMessageText("segment \(id): \(text)"),
                    messages: moves.map { FallbackMessage(segmentID: id, $0).structure }
                        + [Self.ttsMessage(id, status: .failed, provider: provider?.name ?? "", seconds: seconds)])
                if failure.everyProviderDisabled && !disabled.isEmpty {
                    output.error = .notAuthorized("every provider of the chain refused: " + failure.reasons.joined(separator: "; "),
                                                  debug: failure.error.description)
                } else if let warning = disabledWarning(speakers, disabled) {
                    output.warning = ElementMessageText("\(output.warning!.text); \(warning.text)")
                }
            }
            let unspoken = unspokenReason
            output.prepare = { placement.finish(&$0, failure: unspoken) }
            return output
        }, placeholder: { [self] reason in
            counters.count(.skipped)
            return StageOutput(warning: ElementMessageText("segment \(id) skipped: the request queue is full (queue-policy=\(reason.rawValue))"),
                               messages: [Self.ttsMessage(id, status: .skipped, provider: "", seconds: 0)])
        })
    }

    /// A provider the chain gave up on for the rest of the run, said once (when it happens).
    func disabledWarning(_ speakers: Speakers, _ disabled: [Int]) -> ElementMessageText? {
        ProviderFallback.disabledWarning(speakers.chain, disabled) { speakers.members[$0].keyVariable }
    }

    static func ttsMessage(_ id: UInt64, status: SpeechStatus, provider: String, seconds: Double) -> Structure {
        SpokenMessage(segmentID: id, status: status, provider: provider, audioSeconds: seconds).structure
    }

}
