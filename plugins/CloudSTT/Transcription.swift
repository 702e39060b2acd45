import Foundation
import GstKit
import ParleyCore
import ParleySpeech
import Synchronization

extension CloudSTTElement {
    /// The transcription of one segment, as work for the stage; its result
    /// keeps its place in order. Steps: validate (too short, no provider),
    /// request (the chain, partials as they stream), result (served or
    /// failed, with the chain's report).
    func work(for segment: SpeechSegment) -> StageWork {
        // Taken on the streaming thread, in order: a likely end after this
        // one belongs to the next segment.
        let speculation = speculations.take(segment.id)
        return StageWork(progressive: { [self] emit in
            await finalResult(of: segment, speculation: speculation, emit: emit)
        }, placeholder: { [self] reason in skipped(segment, speculation: speculation, reason: reason) })
    }

    /// The segment's one result, once it has ended.
    func finalResult(of segment: SpeechSegment, speculation: Speculations.Taken,
                     emit: @escaping @Sendable (StageOutput) -> Void) async -> StageOutput {
        let current = settings.withLock { $0 }
        let language = Self.resultsLanguage(current)
        let transcribers = transcribers.withLock { $0 }
        if let refused = Self.refusal(of: segment, settings: current) {
            speculation.cancel()
            return Self.result(segment, text: "", status: .skipped, language: language, counters: counters, warning: refused)
        }
        guard let transcribers else {
            return Self.result(segment, text: "", status: .failed, language: language, counters: counters,
                               warning: "segment \(segment.id): no provider is set up")
        }
        var meta = SpeechMeta(segmentID: segment.id, language: language)
        let outcome: FallbackChain.Outcome<Transcription>
        var kept: Speculations.Kept?
        if let speculative = speculation.task {
            // Started at the likely end; nothing but silence came after it.
            meta.stamp(.requestSent, at: speculation.startedAt)
            outcome = await speculative.value
            kept = speculation.kept
        } else {
            // A withdrawn speculation still running to be kept is waited for:
            // it is further on than a transcription of the whole would be.
            kept = await speculation.settledKept()
            meta.stamp(.requestSent)
            let counters = counters
            outcome = await transcribe(segment, after: kept, settings: current, transcribers: transcribers) { text in
                emit(Self.result(segment, text: text, status: .partial, language: language, counters: counters))
            }
        }
        let output = result(of: outcome, for: segment, meta: meta, settings: current, transcribers: transcribers)
        let keptMs = kept?.ifAudioFollows(in: segment).map { Double($0.samples) * 1000 / Double(max(1, segment.rate)) }
        return Self.withSpeculation(output, started: speculation.started, used: speculation.task != nil, keptMs: keptMs)
    }

    /// The language results are tagged with before a provider says: the
    /// `language` property, or English with task=translate, whatever was spoken.
    static func resultsLanguage(_ settings: Settings) -> String {
        settings.task == .translate ? "en" : settings.language
    }

    /// What takes a segment's place when queue-policy drops it.
    func skipped(_ segment: SpeechSegment, speculation: Speculations.Taken, reason: AsyncStage.Queue.SkipReason) -> StageOutput {
        speculation.cancel()
        return Self.result(segment, text: "", status: .skipped, language: Self.resultsLanguage(settings.withLock { $0 }),
                           counters: counters,
                           warning: "segment \(segment.id) skipped: the request queue is full (queue-policy=\(reason.rawValue))")
    }

    /// The chain's transcription of `segment`; `onPartial` gets what a streaming provider shows on the way.
    /// With text `kept` from withdrawn speculations, only the audio after
    /// it is sent, with that text last in the prompt, and the answer is
    /// the kept text and what was heard after it (a partial shows the latter).
    func transcribe(_ segment: SpeechSegment, after kept: Speculations.Kept? = nil, settings: Settings, transcribers: Transcribers,
                    onPartial: (@Sendable (String) -> Void)?) async -> FallbackChain.Outcome<Transcription> {
        var request = request(for: segment, settings: settings)
        let kept = kept?.ifAudioFollows(in: segment)
        // Whisper marks a piece cut mid-sentence with an ellipsis: a mark of
        // the cut, not of the speech, so it neither prompts nor joins.
        let keptText = kept.map { Self.withoutTrailingEllipsis($0.text) } ?? ""
        if let kept {
            request.samples = Array(segment.samples[kept.samples...])
            request.prompt = [request.prompt, Self.promptTail(keptText)].filter { !$0.isEmpty }.joined(separator: " ")
        }
        let outcome = await transcribers.chain.run { index -> FallbackChain.Attempt<Transcription> in
            do throws(ProviderFailure) {
                return .served(try await transcribers.members[index].transcribe(request, onPartial: onPartial))
            } catch {
                return .failed(error.error, attempts: error.attempts)
            }
        }
        guard kept != nil, case .served(var transcription, let index, let moves, let disabled) = outcome else { return outcome }
        transcription.text = [keptText, transcription.text].filter { !$0.isEmpty }.joined(separator: " ")
        return .served(transcription, by: index, moves: moves, disabled: disabled)
    }

    /// The end of a kept text a prompt takes: Whisper reads only a prompt's
    /// last 224 tokens (OpenAI's and faster-whisper's limit, ~900 characters
    /// of English), so a long segment's kept text is not sent whole each
    /// time; cut at a word.
    static func promptTail(_ text: String, limit: Int = 900) -> String {
        guard text.count > limit else { return text }
        let tail = text.suffix(limit)
        guard let space = tail.firstIndex(of: " ") else { return String(tail) }
        return String(tail[tail.index(after: space)...])
    }

    /// `text` without a trailing "..." or "…".
    static func withoutTrailingEllipsis(_ text: String) -> String {
        var text = Substring(text.trimmingCharacters(in: .whitespaces))
        while let last = text.last, last == "." || last == "…" {
            guard last == "…" || text.hasSuffix("...") else { break }
            text = text.dropLast(last == "…" ? 1 : 3)
        }
        return text.trimmingCharacters(in: .whitespaces)
    }

    /// A likely end (speculate): the segment as heard so far is transcribed
    /// now, off the ordered queue; its end takes the result if the speaker
    /// did not go on. Partials are not shown for it: nothing speculative is emitted.
    func speculate(on heard: SpeechSegment) {
        let current = settings.withLock { $0 }
        guard current.speculate.applies(to: current.providers.provider), isLiveUpstream(),
              Self.refusal(of: heard, settings: current) == nil,
              let transcribers = transcribers.withLock({ $0 }) else { return }
        speculations.start(heard.id, samples: heard.samples.count) { [self] kept in
            await transcribe(heard, after: kept, settings: current, transcribers: transcribers, onPartial: nil)
        }
    }

    /// Whether the audio comes from a live source (a microphone, a paced
    /// recording), asked upstream once a run: speculation saves a live
    /// speaker's silence, and a file has none to save.
    func isLiveUpstream() -> Bool {
        if let known = liveUpstream.withLock({ $0 }) { return known }
        let live = element.sinkPad?.peerLatency()?.live ?? false
        liveUpstream.withLock { $0 = live }
        return live
    }

    /// The segment's result with what speculation did for it, in the stt
    /// `parley/latency` message and on the transcript's meta (which the
    /// session log records): how many transcriptions were started on likely
    /// ends (those withdrawn included) and whether the result is one of them.
    /// `keptMs`: how much of the segment's start the result took from
    /// withdrawn speculations' kept text (`speculation-kept-ms`).
    static func withSpeculation(_ output: StageOutput, started: Int, used: Bool, keptMs: Double? = nil) -> StageOutput {
        guard started > 0 else { return output }
        var output = output
        output.messages = output.messages.map { message in
            guard var latency = LatencyMessage(message) else { return message }
            latency.speculativeRequests = started
            latency.speculationUsed = used
            latency[figure: "speculation-kept-ms"] = keptMs
            return latency.structure
        }
        for buffer in output.buffers {
            guard var meta = buffer.speechMeta else { continue }
            meta.speculativeRequests = UInt32(clamping: started)
            meta.speculationUsed = used
            meta.speculationKeptMs = keptMs.map { UInt32(clamping: Int($0.rounded())) } ?? 0
            buffer.setSpeechMeta(meta)
        }
        return output
    }

    /// Why a segment is not sent at all (shorter than min-segment-ms), or nil.
    static func refusal(of segment: SpeechSegment, settings: Settings) -> String? {
        guard segment.duration < UInt64(settings.minSegmentMs) * Gst.millisecond else { return nil }
        return "segment \(segment.id) is \(segment.duration / Gst.millisecond) ms, shorter than min-segment-ms=\(settings.minSegmentMs): not transcribed"
    }

    /// What every provider of the chain is asked: the audio and the options,
    /// with the last final transcript as the prompt's context when context-prompt is on.
    func request(for segment: SpeechSegment, settings: Settings) -> TranscriptionRequest {
        var prompt = settings.prompt
        if settings.contextPrompt {
            prompt = [prompt, previousTranscript.withLock { $0 }].filter { !$0.isEmpty }.joined(separator: " ")
        }
        return TranscriptionRequest(
            samples: segment.samples, rate: segment.rate, languageTag: settings.task == .translate ? "" : settings.language,
            prompt: prompt, temperature: settings.temperature, responseFormat: settings.responseFormat.wireName,
            task: settings.task, uploadFormat: settings.uploadFormat.wireName)
    }

    /// The segment's one result from the chain's outcome: the final
    /// transcript, or a failed result with the chain's report.
    func result(of outcome: FallbackChain.Outcome<Transcription>, for segment: SpeechSegment, meta: SpeechMeta,
                settings: Settings, transcribers: Transcribers) -> StageOutput {
        let remote = { (index: Int) in (transcribers.members[index] as? any RemoteProvider)?.service }
        switch outcome {
        case .served(let transcription, let index, let moves, let disabled):
            if !transcription.text.isEmpty { previousTranscript.withLock { $0 = transcription.text } }
            var meta = meta
            if let firstByte = transcription.firstByteAt { meta.stamp(.firstByte, at: firstByte) }
            let language = settings.task == .translate
                ? "en" : Self.resultLanguage(detected: transcription.language, asked: settings.language)
            var output = Self.result(segment, text: transcription.text, status: .final, language: language, counters: counters,
                                     stamps: meta.stamps, providerProcessingMs: transcription.providerProcessingMs,
                                     provider: transcribers.members[index].name)
            let report = ChainReport.served(segmentID: segment.id, moves: moves, disabled: disabled, chain: transcribers.chain,
                                            remote: remote)
            output.messages = report.messages + output.messages
            output.warning = report.warning
            return output
        case .failed(let failure, let moves, let disabled):
            let report = ChainReport.failed(segmentID: segment.id, failure: failure, moves: moves, disabled: disabled,
                                            chain: transcribers.chain, verb: "transcribe", remote: remote)
            var output = Self.result(segment, text: "", status: .failed, language: meta.language, counters: counters,
                                     warning: report.warning?.text)
            output.messages += report.messages
            output.error = report.error
            return output
        }
    }

    /// The language a result carries: the tag the user asked for (BCP-47,
    /// "pt-BR") when the provider heard that language, else what it detected
    /// (providers know only the primary subtag, "pt").
    static func resultLanguage(detected: String?, asked: String) -> String {
        guard let detected, !detected.isEmpty else { return asked }
        return LanguageNames.primary(detected) == LanguageNames.primary(asked) ? asked : detected
    }

    /// The one result a segment produces: a text buffer with its meta, the
    /// `parley/transcript` message (with a local partial's `stable` words),
    /// latency figures, and a warning if it is not final.
    static func result(_ segment: SpeechSegment, text: String, status: SpeechStatus, language: String,
                       counters: ResultCounters, warning: String? = nil,
                       stamps: [LatencyStamp: UInt64] = [:], providerProcessingMs: Double? = nil,
                       provider: String = "", stable: String? = nil) -> StageOutput {
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
                                          start: segment.start, duration: segment.duration, provider: provider,
                                          stable: stable).structure]
        if status == .final, let complete = meta.stamps[.resultComplete] {
            var latency = LatencyMessage(segmentID: segment.id, stage: "stt")
            if let sent = meta.stamps[.requestSent] { latency[figure: "processing-ms"] = Double(complete - sent) / 1e6 }
            latency[figure: "provider-processing-ms"] = providerProcessingMs
            if let sent = meta.stamps[.requestSent], let firstByte = meta.stamps[.firstByte], firstByte >= sent {
                latency[figure: "first-byte-ms"] = Double(firstByte - sent) / 1e6
            }
            if let decided = segment.decidedAt, complete > decided { latency[figure: "ttfs-ms"] = Double(complete - decided) / 1e6 }
            messages.append(latency.structure)
        }
        return StageOutput(buffers: [buffer], warning: warning.map { ElementMessageText($0) }, messages: messages)
    }
}
