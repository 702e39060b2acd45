import Foundation
import GstKit
import ParleyCore
import ParleySpeech

extension StreamTranslatorElement {
    /// The translation of one result, as work for the stage; its outputs
    /// keep their place in segment order. Steps: validate (what needs no
    /// provider), the cache and the gate (a text translated before, or being
    /// translated now), request (the chain, partials or sentences as they
    /// stream), result (served or failed, with the chain's report).
    func work(for segment: TextSegment) -> StageWork {
        let current = settings.withLock { $0 }
        let id = segment.meta.segmentID
        return StageWork(progressive: { [self] emit in
            let source = Self.sourceLanguage(current, meta: segment.meta.language)
            let text: String
            switch validate(segment, source: source, settings: current) {
            case .answered(let output): return output
            case .translate(let valid): text = valid
            }
            let prompt = Self.systemPrompt(current, source: source)
            let context = current.contextSegments > 0 ? state.withLock { Array($0.context.suffix(current.contextSegments)) } : []
            let key = Self.cacheKey(text: text, source: source, prompt: prompt, context: context, settings: current)
            let caches = current.cache && current.mode == .translate
            if caches, let cached = await cachedOrTurn(for: key, settings: current) {
                cacheHits.add(1, ordering: .relaxed)
                return final(segment, text: cached, source: source, sourceText: text, settings: current,
                             provider: "cache", meta: segment.meta, timing: nil).stage
            }
            defer { if caches { requests.leave(key) } }
            guard let chain = translators.withLock({ $0?.chain }) else {
                return failed(segment, source: source, settings: current, reason: "no provider is set up")
            }
            let request = TranslationRequest(text: text, sourceLanguage: source, targetLanguage: current.targetLanguage,
                                             systemPrompt: prompt, context: context, temperature: current.temperature)
            let stream = PartialStream(element: self, segment: segment, source: text, settings: current, emit: emit)
            // The meta's request/first-byte stamps are the first network stage's (cloudstt's); this stage times itself.
            let sentAt = MonotonicClock.nanoseconds()
            let outcome = await chain.run { index -> FallbackChain.Attempt<(Translation, String)> in
                // What a provider that failed streamed is withdrawn before the next one speaks.
                stream.withdrawIfStreamed()
                let translator: any TextTranslator
                switch self.translator(index, for: source) {
                case .success(let made): translator = made
                case .failure(let failure): return .failed(failure.error, attempts: 0)
                }
                do throws(ProviderFailure) {
                    return .served((try await translator.translate(request, onPartial: stream.receive), translator.name))
                } catch {
                    return .failed(error.error, attempts: error.attempts)
                }
            }
            return result(of: outcome, for: segment, text: text, source: source, key: key, sentAt: sentAt, stream: stream,
                          chain: chain, settings: current)
        }, placeholder: { [self] reason in
            result(segment, text: "", status: .skipped, source: segment.meta.language, settings: current,
                   reason: "segment \(id) skipped: the request queue is full (queue-policy=\(reason.rawValue))")
        })
    }

    /// What validation makes of a result: answered without a provider, or a text to translate.
    enum Validation {
        case answered(StageOutput)
        case translate(String)
    }

    /// A result that needs no provider: failed and skipped ones pass on, a
    /// text too long or not UTF-8 fails, an empty one is skipped, one already
    /// in the target language is its own translation.
    func validate(_ segment: TextSegment, source: String, settings: Settings) -> Validation {
        switch segment.meta.status {
        case .failed, .skipped:
            return .answered(result(segment, text: "", status: segment.meta.status, source: source, settings: settings,
                                    reason: nil))  // upstream already warned
        default: break
        }
        guard segment.bytes.count <= Self.maxTextBytes else {
            return .answered(failed(segment, source: source, settings: settings,
                                    reason: "the text is \(segment.bytes.count) bytes, over the \(Self.maxTextBytes)-byte limit: not translated"))
        }
        guard let decoded = String(validating: segment.bytes, as: UTF8.self) else {
            return .answered(failed(segment, source: source, settings: settings, reason: "the text is not valid UTF-8: not translated"))
        }
        let text = decoded.replacingOccurrences(of: "\0", with: " ").trimmingCharacters(in: .whitespacesAndNewlines)
        // Nothing was said (a noise's empty transcript): skipped with its
        // reason in the meta (a session records it), but no fault to warn of.
        guard !text.isEmpty else {
            return .answered(result(segment, text: "", status: .skipped, source: source, settings: settings,
                                    reason: "segment \(segment.meta.segmentID): the text is empty: nothing to translate", warns: false))
        }
        // Already in the target language (an English listener of an English
        // speaker): the text itself, from no provider, with no request.
        if settings.mode == .translate && LanguageTag.isSameLanguage(source, settings.targetLanguage) {
            return .answered(final(segment, text: text, source: source, sourceText: text, settings: settings,
                                   provider: Self.sameLanguageProvider, meta: segment.meta, timing: nil).stage)
        }
        return .translate(text)
    }

    /// The system prompt, its {source} and {target} the languages' names.
    static func systemPrompt(_ settings: Settings, source: String) -> String {
        (settings.systemPrompt.isEmpty ? settings.mode.defaultPrompt : settings.systemPrompt)
            .replacingOccurrences(of: "{source}", with: LanguageNames.name(LanguageNames.primary(source)).capitalized)
            .replacingOccurrences(of: "{target}", with: LanguageNames.name(LanguageNames.primary(settings.targetLanguage)).capitalized)
    }

    /// What names a translation in the cache: the chain as configured,
    /// whoever in it served (a fallback's answer is reused too).
    static func cacheKey(text: String, source: String, prompt: String, context: [(source: String, result: String)],
                         settings: Settings) -> TranslationCache.Key {
        let configured = settings.providers
        let isLocal = configured.provider == TranslatorProvider.local.rawValue
        // The model part names the chat default for every remote chain, as keys always have (entries on disk stay valid).
        return TranslationCache.Key(provider: isLocal ? "local" : "\(configured.provider) \(configured.baseURL)",
                                    model: isLocal ? "" : (configured.model.isEmpty ? TranslatorProvider.openai.defaultModel : configured.model),
                                    source: source, target: settings.targetLanguage, prompt: prompt, text: text,
                                    context: context.map { "\($0.source)\u{1E}\($0.result)" }.joined(separator: "\u{1D}"))
    }

    /// The cached translation of `key` (waiting first for a segment that is
    /// translating the same text now), or nil when this segment is to ask a
    /// provider: it then holds the text's turn and must `requests.leave(key)`.
    func cachedOrTurn(for key: TranslationCache.Key, settings: Settings) async -> String? {
        // Looked up again after entering the gate: the text's leader may
        // have stored its answer between the first look and entering.
        var role = RequestGate<TranslationCache.Key>.Role.waited
        while true {
            if let cached = cache.lookup(key, ttl: TimeInterval(settings.cacheTTLs), folder: Self.cacheFolder(settings)) {
                if role == .leader { requests.leave(key) }
                return cached
            }
            if role == .leader { return nil }
            role = await requests.enter(key)
        }
    }

    /// The segment's result from the chain's outcome: the translation
    /// (cached, remembered as context, its remaining sentences), or a failed
    /// result with the chain's report.
    func result(of outcome: FallbackChain.Outcome<(Translation, String)>, for segment: TextSegment, text: String, source: String,
                key: TranslationCache.Key, sentAt: UInt64, stream: PartialStream, chain: FallbackChain,
                settings: Settings) -> StageOutput {
        let id = segment.meta.segmentID
        let remote = { (index: Int) in self.remoteService(index) }
        switch outcome {
        case .served((let translation, let provider), _, let moves, let disabled):
            var meta = segment.meta
            meta.revision = stream.revision.current
            let timing = StageTiming(sentAt: sentAt, firstTokenAt: translation.firstTokenAt, completeAt: MonotonicClock.nanoseconds())
            let cleaned = OutputHygiene.clean(translation.text, source: text)
            let report = ChainReport.served(segmentID: id, moves: moves, disabled: disabled, chain: chain, remote: remote)
            guard translation.finishReason == .stop else {
                var output = failed(segment, source: source, settings: settings, text: cleaned,
                                    reason: "the provider stopped early (finish_reason \(translation.finishReason.rawValue)): the translation is incomplete")
                output.messages += report.messages
                return output
            }
            remember(cleaned, of: text, key: key, settings: settings)
            var output = final(segment, text: cleaned, source: source, sourceText: text, settings: settings,
                               provider: provider, meta: meta, timing: timing)
            if settings.emit == .sentences {
                // Sentences already out stay out; the rest follows.
                output.buffers = stream.sentences.complete(in: cleaned, final: true).map {
                    outputBuffer(segment, text: $0, status: .final, language: settings.targetLanguage, meta: output.meta)
                }
            }
            var stage = output.stage
            stage.messages = report.messages + stage.messages
            stage.warning = report.warning
            return stage
        case .failed(let failure, let moves, let disabled):
            let report = ChainReport.failed(segmentID: id, failure: failure, moves: moves, disabled: disabled, chain: chain,
                                            verb: "translate", remote: remote)
            var output = result(segment, text: "", status: .failed, source: source, settings: settings, reason: report.warning?.text)
            output.messages += report.messages
            output.error = report.error
            return output
        }
    }

    /// A translation served: cached (translate mode), and kept as context for the next requests.
    func remember(_ translation: String, of text: String, key: TranslationCache.Key, settings: Settings) {
        if settings.cache && settings.mode == .translate { cache.store(translation, for: key, folder: Self.cacheFolder(settings)) }
        guard settings.contextSegments > 0 else { return }
        state.withLock { state in
            state.context.append((text, translation))
            if state.context.count > 50 { state.context.removeFirst() }
        }
    }

    /// The network service behind chain position `index`, if it is one (its key's variable and host are named in errors).
    func remoteService(_ index: Int) -> RemoteService? {
        let made = translators.withLock { $0?.made.values.compactMap { $0[index] }.first }
        return (made as? any RemoteProvider)?.service
    }

    /// A result that failed before or without a provider: `reason` after the segment's number.
    func failed(_ segment: TextSegment, source: String, settings: Settings, text: String = "", reason: String) -> StageOutput {
        result(segment, text: text, status: .failed, source: source, settings: settings,
               reason: "segment \(segment.meta.segmentID): \(reason)")
    }

    /// A buffer of one result: the segment's span, the meta with the target language.
    func outputBuffer(_ segment: TextSegment, text: String, status: SpeechStatus, language: String, meta: SpeechMeta) -> Buffer {
        let buffer = Buffer(string: text)
        buffer.pts = segment.pts
        buffer.duration = segment.duration
        var meta = meta
        meta.status = status
        meta.language = language
        buffer.setSpeechMeta(meta)
        return buffer
    }

    func output(_ segment: TextSegment, text: String, status: SpeechStatus, language: String, meta: SpeechMeta) -> StageOutput {
        StageOutput(buffers: [outputBuffer(segment, text: text, status: status, language: language, meta: meta)])
    }

    /// A result that is not a translation (failed, skipped, or passed on): `reason` goes in its meta's
    /// detail and, where it is a fault (`warns`), on the bus as a warning.
    func result(_ segment: TextSegment, text: String, status: SpeechStatus, source: String, settings: Settings,
                reason: String?, warns: Bool = true) -> StageOutput {
        counters.count(status)
        var meta = segment.meta
        meta.stamp(.resultComplete)
        meta.detail = reason ?? ""
        let message = translationMessage(segment, text: text, status: status, source: source, sourceText: "",
                                         settings: settings, provider: "", meta: meta)
        return StageOutput(buffers: [outputBuffer(segment, text: text, status: status, language: settings.targetLanguage, meta: meta)],
                           warning: warns ? reason.map { ElementMessageText($0) } : nil, messages: [message])
    }

    struct FinalOutput {
        var buffers: [Buffer]
        var messages: [Structure]
        var meta: SpeechMeta
        var stage: StageOutput { StageOutput(buffers: buffers, messages: messages) }
    }

    /// The translation of a segment: its buffer, `parley/translation` and latency figures.
    func final(_ segment: TextSegment, text: String, source: String, sourceText: String, settings: Settings,
               provider: String, meta: SpeechMeta, timing: StageTiming?) -> FinalOutput {
        counters.count(.final)
        var meta = meta
        meta.stamp(.resultComplete)
        meta.provider = provider
        var messages = [translationMessage(segment, text: text, status: .final, source: source, sourceText: sourceText,
                                           settings: settings, provider: provider, meta: meta)]
        var latency = LatencyMessage(segmentID: meta.segmentID, stage: "translate")
        if let timing {
            latency[figure: "time-to-final-ms"] = Double(timing.completeAt - timing.sentAt) / 1e6
            if let first = timing.firstTokenAt, first >= timing.sentAt { latency[figure: "ttft-ms"] = Double(first - timing.sentAt) / 1e6 }
            if let speechEnd = meta.stamps[.speechEnd], timing.completeAt > speechEnd {
                latency[figure: "speech-end-to-translation-ms"] = Double(timing.completeAt - speechEnd) / 1e6
            }
        }
        messages.append(latency.structure)
        return FinalOutput(buffers: [outputBuffer(segment, text: text, status: .final, language: settings.targetLanguage, meta: meta)],
                           messages: messages, meta: meta)
    }

    func translationMessage(_ segment: TextSegment, text: String, status: SpeechStatus, source: String, sourceText: String,
                            settings: Settings, provider: String, meta: SpeechMeta) -> Structure {
        TranslationMessage(segmentID: meta.segmentID, text: text, status: status, language: settings.targetLanguage,
                           sourceLanguage: source, sourceText: sourceText, provider: provider,
                           start: segment.pts, duration: segment.duration, firstSegmentID: meta.firstSegmentID).structure
    }
}

/// When this stage sent its request, saw the first token and finished (monotonic ns).
struct StageTiming {
    var sentAt: UInt64
    var firstTokenAt: UInt64?
    var completeAt: UInt64
}

/// The revision of a result's partials: bumped when a retried stream withdraws the broken one's.
final class RevisionCounter: @unchecked Sendable {
    // @unchecked: one stream's callbacks, one after another, then its end.
    private let lock = NSLock()
    private var value: UInt32 = 0
    var current: UInt32 { lock.lock(); defer { lock.unlock() }; return value }
    func next() -> UInt32 { lock.lock(); defer { lock.unlock() }; value += 1; return value }
}

/// Which sentences of a growing translation have gone out already.
final class SentenceEmitter: @unchecked Sendable {
    // @unchecked: used by one stream's callbacks, one after another, then by its end.
    private var sent = 0
    private let lock = NSLock()

    /// The sentences completed since the last call.
    func complete(in text: String, final: Bool) -> [String] {
        lock.lock(); defer { lock.unlock() }
        let sentences = SentenceSplitter.split(text, final: final).sentences
        guard sentences.count > sent else { return [] }
        defer { sent = sentences.count }
        return Array(sentences[sent...])
    }
}


/// One request's streamed text on its way out, as `emit` says: the text so
/// far as partials, or each sentence as soon as it is complete. A provider
/// that fails after streaming has its text withdrawn (an empty partial with
/// a new revision) before the next one speaks.
final class PartialStream: Sendable {
    let sentences = SentenceEmitter()
    let revision = RevisionCounter()
    private let streamed = Flag()
    private let output: @Sendable (String, SpeechStatus, SpeechMeta) -> Void
    private let cleaner: @Sendable (String) -> String
    private let emitMode: TranslationEmit
    private let meta: SpeechMeta

    init(element: StreamTranslatorElement, segment: TextSegment, source: String, settings: StreamTranslatorElement.Settings,
         emit: @escaping StageWork.Emit) {
        meta = segment.meta
        emitMode = settings.emit
        cleaner = { OutputHygiene.clean($0, source: source) }
        let language = settings.targetLanguage
        output = { text, status, meta in emit(element.output(segment, text: text, status: status, language: language, meta: meta)) }
    }

    /// The text so far, from the provider's stream.
    @Sendable func receive(_ partial: String) {
        // emit=final shows nothing on the way: no text to clean per chunk.
        if emitMode == .final {
            if partial.isEmpty { _ = revision.next() } else { streamed.set() }
            return
        }
        let cleaned = cleaner(partial)
        var meta = meta
        // An empty partial withdraws a broken attempt's text: a new revision starts.
        meta.revision = partial.isEmpty ? revision.next() : revision.current
        if !partial.isEmpty { streamed.set() }
        switch emitMode {
        case .partials:
            output(cleaned, .partial, meta)
        case .sentences:
            for sentence in sentences.complete(in: cleaned, final: false) { output(sentence, .final, meta) }
        case .final:
            break
        }
    }

    /// Before the next provider is asked: withdraws what a failed one streamed.
    func withdrawIfStreamed() {
        guard streamed.isSet else { return }
        streamed.set(false)
        receive("")
    }
}
