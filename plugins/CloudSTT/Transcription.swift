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
        let provider = transcriber.withLock { $0 }
        let counters = counters
        let name = element.name
        let tooShort = segment.duration < UInt64(current.minSegmentMs) * Gst.millisecond
        let keyRejected = keyRejected
        let previousTranscript = UnsafeSendable(self)
        return StageWork(progressive: { emit in
            if tooShort {
                return Self.result(segment, text: "", status: .skipped, language: current.language, counters: counters,
                                   warning: "\(name): segment \(segment.id) is \(segment.duration / Gst.millisecond) ms, shorter than min-segment-ms=\(current.minSegmentMs): not transcribed")
            }
            if keyRejected.isSet {
                return Self.result(segment, text: "", status: .failed, language: current.language, counters: counters,
                                   warning: "\(name): segment \(segment.id) not sent: the provider rejected the API key")
            }
            guard let provider else {
                return Self.result(segment, text: "", status: .failed, language: current.language, counters: counters,
                                   warning: "\(name): no provider is set up")
            }
            var meta = SpeechMeta(segmentID: segment.id, language: current.language)
            meta.stamp(.requestSent)
            var prompt = current.prompt
            if current.contextPrompt {
                let previous = previousTranscript.value.previousTranscript.withLock { $0 }
                prompt = [prompt, previous].filter { !$0.isEmpty }.joined(separator: " ")
            }
            let request = TranscriptionRequest(
                samples: segment.samples, rate: segment.rate, language: current.language, prompt: prompt,
                temperature: current.temperature, responseFormat: current.responseFormat.wireName,
                model: current.model.isEmpty ? current.provider.defaultModel : current.model,
                uploadFormat: current.uploadFormat.wireName)
            do throws(TranscriberFailure) {
                let transcription = try await provider.transcribe(request, onPartial: { text in
                    emit(Self.result(segment, text: text, status: .partial, language: current.language, counters: counters))
                })
                if !transcription.text.isEmpty {
                    previousTranscript.value.previousTranscript.withLock { $0 = transcription.text }
                }
                if let firstByte = transcription.firstByteAt { meta.stamp(.firstByte, at: firstByte) }
                return Self.result(segment, text: transcription.text, status: .final,
                                   language: transcription.language ?? current.language, counters: counters,
                                   stamps: meta.stamps, providerProcessingMs: transcription.providerProcessingMs)
            } catch {
                var output = Self.result(
                    segment, text: "", status: .failed, language: current.language, counters: counters,
                    warning: "\(name): provider \(provider.name) failed on segment \(segment.id) after \(error.attempts) attempt\(error.attempts == 1 ? "" : "s"): \(error.error)")
                if case .unauthorized = error.error, let remote = provider as? OpenAICompatibleTranscriber {
                    keyRejected.set()  // later segments must not send the same key again
                    output.error = .notAuthorized(
                        "\(remote.keyVariable) was rejected by \(remote.host): check the key, or use provider=local",
                        debug: error.error.description)
                }
                return output
            }
        }, placeholder: { reason in
            Self.result(segment, text: "", status: .skipped, language: current.language, counters: counters,
                        warning: "\(name): segment \(segment.id) skipped: the request queue is full (queue-policy=\(reason.rawValue))")
        })
    }

    /// The one result a segment produces: a text buffer with its meta, the
    /// `parley/transcript` message, latency figures, and a warning if it is not final.
    static func result(_ segment: SpeechSegment, text: String, status: SpeechStatus, language: String,
                       counters: ResultCounters, warning: String? = nil,
                       stamps: [LatencyStamp: UInt64] = [:], providerProcessingMs: Double? = nil) -> StageOutput {
        counters.count(status)
        let buffer = Buffer(string: text)
        buffer.pts = segment.start
        buffer.duration = segment.duration
        var meta = SpeechMeta(segmentID: segment.id, status: status, language: language,
                              speechEndAudioTime: segment.speechEnd ?? Gst.clockTimeNone, stamps: stamps)
        if let decided = segment.decidedAt { meta.stamp(.speechEnd, at: decided) }
        meta.stamp(.resultComplete)
        buffer.setSpeechMeta(meta)
        var messages = [Structure("parley/transcript", [
            ("segment-id", .uint64(segment.id)), ("text", .string(text)), ("status", .string(status.description)),
            ("language", .string(language)), ("start", .uint64(segment.start)), ("duration", .uint64(segment.duration)),
        ])]
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
