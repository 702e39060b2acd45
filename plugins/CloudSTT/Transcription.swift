import Foundation
import GstKit
import ParleyCore
import ParleySpeech
import Synchronization

extension CloudSTTElement {
    /// The transcription of one segment, as work for the stage; its result
    /// keeps its place in order.
    func work(for segment: SpeechSegment) -> StageWork {
        let current = settings.withLock { $0 }
        let translating = current.task == .translate
        // task=translate: every result is English, whatever was spoken.
        let language = translating ? "en" : current.language
        let transcribers = transcribers.withLock { $0 }
        let counters = counters
        let tooShort = segment.duration < UInt64(current.minSegmentMs) * Gst.millisecond
        let previousTranscript = UnsafeSendable(self)
        return StageWork(progressive: { emit in
            if tooShort {
                return Self.result(segment, text: "", status: .skipped, language: language, counters: counters,
                                   warning: "segment \(segment.id) is \(segment.duration / Gst.millisecond) ms, shorter than min-segment-ms=\(current.minSegmentMs): not transcribed")
            }
            guard let transcribers else {
                return Self.result(segment, text: "", status: .failed, language: language, counters: counters,
                                   warning: "no provider is set up")
            }
            var meta = SpeechMeta(segmentID: segment.id, language: language)
            meta.stamp(.requestSent)
            var prompt = current.prompt
            if current.contextPrompt {
                let previous = previousTranscript.value.previousTranscript.withLock { $0 }
                prompt = [prompt, previous].filter { !$0.isEmpty }.joined(separator: " ")
            }
            let request = TranscriptionRequest(
                samples: segment.samples, rate: segment.rate, languageTag: translating ? "" : current.language, prompt: prompt,
                temperature: current.temperature, responseFormat: current.responseFormat.wireName,
                task: current.task, uploadFormat: current.uploadFormat.wireName)
            let chain = transcribers.chain
            let outcome = await chain.run { index -> FallbackChain.Attempt<Transcription> in
                do throws(ProviderFailure) {
                    return .served(try await transcribers.members[index].transcribe(request, onPartial: { text in
                        emit(Self.result(segment, text: text, status: .partial, language: language, counters: counters))
                    }))
                } catch {
                    return .failed(error.error, attempts: error.attempts)
                }
            }
            switch outcome {
            case .served(let transcription, let index, let moves, let disabled):
                if !transcription.text.isEmpty {
                    previousTranscript.value.previousTranscript.withLock { $0 = transcription.text }
                }
                if let firstByte = transcription.firstByteAt { meta.stamp(.firstByte, at: firstByte) }
                var output = Self.result(segment, text: transcription.text, status: .final,
                                         language: translating ? "en" : Self.resultLanguage(detected: transcription.language, asked: current.language),
                                         counters: counters,
                                         stamps: meta.stamps, providerProcessingMs: transcription.providerProcessingMs,
                                         provider: transcribers.members[index].name)
                output.messages = moves.map { FallbackMessage(segmentID: segment.id, $0).structure } + output.messages
                output.warning = Self.disabledWarning(transcribers, disabled)
                return output
            case .failed(let failure, let moves, let disabled):
                let text: String
                if transcribers.members.count == 1 {
                    text = failure.attempts == 0
                        ? "segment \(segment.id) not sent: " + failure.reasons.joined(separator: "; ")
                        : "provider \(transcribers.members[0].name) failed on segment \(segment.id) after \(counted(failure.attempts, "attempt")): \(failure.error)"
                } else {
                    text = "no provider could transcribe segment \(segment.id): " + failure.reasons.joined(separator: "; ")
                }
                var output = Self.result(segment, text: "", status: .failed, language: language, counters: counters,
                                         warning: text)
                output.messages += moves.map { FallbackMessage(segmentID: segment.id, $0).structure }
                if failure.everyProviderDisabled && !disabled.isEmpty {
                    output.error = .notAuthorized(Self.refusal(transcribers, failure), debug: failure.error.description)
                } else if let warning = Self.disabledWarning(transcribers, disabled) {
                    output.warning = ElementMessageText("\(output.warning!.text); \(warning.text)")
                }
                return output
            }
        }, placeholder: { reason in
            Self.result(segment, text: "", status: .skipped, language: language, counters: counters,
                        warning: "segment \(segment.id) skipped: the request queue is full (queue-policy=\(reason.rawValue))")
        })
    }

    /// The error that stops the stream when no provider of the chain will take requests any more.
    static func refusal(_ transcribers: Transcribers, _ failure: FallbackChain.Failure) -> String {
        if transcribers.members.count == 1, let remote = transcribers.members[0] as? OpenAICompatibleTranscriber {
            return "\(remote.service.keyVariable) was rejected by \(remote.service.host): check the key, or use provider=local"
        }
        return "every provider of the chain refused: " + failure.reasons.joined(separator: "; ")
    }

    /// A provider the chain gave up on for the rest of the run, said once (when it happens).
    static func disabledWarning(_ transcribers: Transcribers, _ disabled: [Int]) -> ElementMessageText? {
        ProviderFallback.disabledWarning(transcribers.chain, disabled) {
            (transcribers.members[$0] as? OpenAICompatibleTranscriber)?.service.keyVariable
        }
    }

    /// The one result a segment produces: a text buffer with its meta, the
    /// `parley/transcript` message, latency figures, and a warning if it is not final.
    /// The language a result carries: the tag the user asked for (BCP-47,
    /// "pt-BR") when the provider heard that language, else what it detected
    /// (providers know only the primary subtag, "pt").
    static func resultLanguage(detected: String?, asked: String) -> String {
        guard let detected, !detected.isEmpty else { return asked }
        return LanguageNames.primary(detected) == LanguageNames.primary(asked) ? asked : detected
    }

    static func result(_ segment: SpeechSegment, text: String, status: SpeechStatus, language: String,
                       counters: ResultCounters, warning: String? = nil,
                       stamps: [LatencyStamp: UInt64] = [:], providerProcessingMs: Double? = nil,
                       provider: String = "") -> StageOutput {
        counters.count(status)
        let buffer = Buffer(string: text)
        buffer.pts = segment.start
        buffer.duration = segment.duration
        var meta = SpeechMeta(segmentID: segment.id, status: status, language: language,
                              speechEndAudioTime: segment.speechEnd ?? Gst.clockTimeNone, stamps: stamps)
        meta.provider = provider
        meta.detail = warning ?? ""
        if let decided = segment.decidedAt { meta.stamp(.speechEnd, at: decided) }
        meta.stamp(.resultComplete)
        buffer.setSpeechMeta(meta)
        var messages = [TranscriptMessage(segmentID: segment.id, text: text, status: status, language: language,
                                          start: segment.start, duration: segment.duration, provider: provider).structure]
        if status == .final, let complete = meta.stamps[.resultComplete] {
            var fields: [(String, PropertyValue)] = [("segment-id", .uint64(segment.id)), ("stage", .string("stt"))]
            if let sent = meta.stamps[.requestSent] {
                fields.append(("processing-ms", .double(Double(complete - sent) / 1e6)))
            }
            if let providerProcessingMs { fields.append(("provider-processing-ms", .double(providerProcessingMs))) }
            if let sent = meta.stamps[.requestSent], let firstByte = meta.stamps[.firstByte], firstByte >= sent {
                fields.append(("first-byte-ms", .double(Double(firstByte - sent) / 1e6)))
            }
            if let decided = segment.decidedAt, complete > decided {
                fields.append(("ttfs-ms", .double(Double(complete - decided) / 1e6)))
            }
            messages.append(Structure("parley/latency", fields))
        }
        return StageOutput(buffers: [buffer], warning: warning.map { ElementMessageText($0) }, messages: messages)
    }
}
