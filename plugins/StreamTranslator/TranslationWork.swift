import Foundation
import GstKit
import ParleyCore
import ParleySpeech

extension StreamTranslatorElement {
    /// The translation of one result, as work for the stage; its outputs
    /// keep their place in segment order.
    func work(for segment: TextSegment) -> StageWork {
        let current = settings.withLock { $0 }
        let id = segment.meta.segmentID
        return StageWork(progressive: { [self] emit in
            let source = Self.sourceLanguage(current, meta: segment.meta.language)
            let result = { (text: String, status: SpeechStatus, warning: String?) -> StageOutput in
                self.result(segment, text: text, status: status, source: source, settings: current,
                            reason: warning.map { "segment \(id): \($0)" })
            }
            switch segment.meta.status {
            case .failed, .skipped:
                return result("", segment.meta.status, nil)  // passes on; upstream already warned
            default: break
            }
            guard segment.bytes.count <= Self.maxTextBytes else {
                return result("", .failed, "the text is \(segment.bytes.count) bytes, over the \(Self.maxTextBytes)-byte limit: not translated")
            }
            guard let decoded = String(validating: segment.bytes, as: UTF8.self) else {
                return result("", .failed, "the text is not valid UTF-8: not translated")
            }
            let text = decoded.replacingOccurrences(of: "\0", with: " ").trimmingCharacters(in: .whitespacesAndNewlines)
            // Nothing was said (a noise's empty transcript): skipped with its
            // reason in the meta (a session records it), but no fault to warn of.
            guard !text.isEmpty else {
                return self.result(segment, text: "", status: .skipped, source: source, settings: current,
                                   reason: "segment \(id): the text is empty: nothing to translate", warns: false)
            }
            // Already in the target language (an English listener of an English
            // speaker): the text itself, from no provider, with no request.
            if current.mode == .translate && LanguageTag.isSameLanguage(source, current.targetLanguage) {
                return self.final(segment, text: text, source: source, sourceText: text, settings: current,
                                  provider: Self.sameLanguageProvider, meta: segment.meta, timing: nil).stage
            }

            let prompt = (current.systemPrompt.isEmpty ? current.mode.defaultPrompt : current.systemPrompt)
                .replacingOccurrences(of: "{source}", with: LanguageNames.name(LanguageNames.primary(source)).capitalized)
                .replacingOccurrences(of: "{target}", with: LanguageNames.name(LanguageNames.primary(current.targetLanguage)).capitalized)
            // Named by the chain as configured, whoever in it served: a fallback's answer is reused too.
            let configured = current.providers
            let isLocal = configured.provider == TranslatorProvider.local.rawValue
            let context = current.contextSegments > 0 ? state.withLock { Array($0.context.suffix(current.contextSegments)) } : []
            // The model part names the chat default for every remote chain, as keys always have (entries on disk stay valid).
            let key = TranslationCache.Key(provider: isLocal ? "local" : "\(configured.provider) \(configured.baseURL)",
                                           model: isLocal ? "" : (configured.model.isEmpty ? TranslatorProvider.openai.defaultModel : configured.model),
                                           source: source, target: current.targetLanguage, prompt: prompt, text: text,
                                           context: context.map { "\($0.source)\u{1E}\($0.result)" }.joined(separator: "\u{1D}"))
            var meta = segment.meta
            let caches = current.cache && current.mode == .translate
            if caches {
                // Looked up again after entering the gate: the text's leader may
                // have stored its answer between the first look and entering.
                var role = RequestGate<TranslationCache.Key>.Role.waited
                while true {
                    if let cached = cache.lookup(key, ttl: TimeInterval(current.cacheTTLs), folder: Self.cacheFolder(current)) {
                        if role == .leader { requests.leave(key) }
                        cacheHits.add(1, ordering: .relaxed)
                        return self.final(segment, text: cached, source: source, sourceText: text, settings: current,
                                          provider: "cache", meta: meta, timing: nil).stage
                    }
                    if role == .leader { break }
                    role = await requests.enter(key)
                }
            }
            defer { if caches { requests.leave(key) } }
            guard let chain = translators.withLock({ $0?.chain }) else { return result("", .failed, "no provider is set up") }
            let request = TranslationRequest(text: text, sourceLanguage: source, targetLanguage: current.targetLanguage,
                                             systemPrompt: prompt, context: context,
                                             temperature: current.temperature)
            // The meta's request/first-byte stamps are the first network stage's
            // (cloudstt's); this stage times itself.
            let sentAt = MonotonicClock.nanoseconds()
            let sentences = SentenceEmitter()
            let partialMeta = meta
            let revision = RevisionCounter()
            let streamed = Flag()
            let onPartial: @Sendable (String) -> Void = { partial in
                let cleaned = OutputHygiene.clean(partial, source: text)
                var meta = partialMeta
                // An empty partial withdraws a broken attempt's text: a new revision starts.
                meta.revision = partial.isEmpty ? revision.next() : revision.current
                if !partial.isEmpty { streamed.set() }
                switch current.emit {
                case .partials:
                    emit(self.output(segment, text: cleaned, status: .partial, language: current.targetLanguage, meta: meta))
                case .sentences:
                    for sentence in sentences.complete(in: cleaned, final: false) {
                        emit(self.output(segment, text: sentence, status: .final, language: current.targetLanguage, meta: meta))
                    }
                case .final:
                    break
                }
            }
            let outcome = await chain.run { index -> FallbackChain.Attempt<(Translation, String)> in
                // What a provider that failed streamed is withdrawn before the next one speaks.
                if streamed.isSet { streamed.set(false); onPartial("") }
                let translator: any TextTranslator
                switch self.translator(index, for: source) {
                case .success(let made): translator = made
                case .failure(let failure): return .failed(failure.error, attempts: 0)
                }
                do throws(ProviderFailure) {
                    return .served((try await translator.translate(request, onPartial: onPartial), translator.name))
                } catch {
                    return .failed(error.error, attempts: error.attempts)
                }
            }
            switch outcome {
            case .served((let translation, let provider), _, let moves, let disabled):
                meta.revision = revision.current
                let timing = StageTiming(sentAt: sentAt, firstTokenAt: translation.firstTokenAt,
                                         completeAt: MonotonicClock.nanoseconds())
                let cleaned = OutputHygiene.clean(translation.text, source: text)
                let fallbacks = moves.map { FallbackMessage(segmentID: id, $0).structure }
                guard translation.finishReason == .stop else {
                    var output = result(cleaned, .failed, "the provider stopped early (finish_reason \(translation.finishReason.rawValue)): the translation is incomplete")
                    output.messages += fallbacks
                    return output
                }
                if current.cache && current.mode == .translate { cache.store(cleaned, for: key, folder: Self.cacheFolder(current)) }
                if current.contextSegments > 0 {
                    state.withLock { state in
                        state.context.append((text, cleaned))
                        if state.context.count > 50 { state.context.removeFirst() }
                    }
                }
                var output = self.final(segment, text: cleaned, source: source, sourceText: text, settings: current,
                                        provider: provider, meta: meta, timing: timing)
                if current.emit == .sentences {
                    // Sentences already out stay out; the rest follows.
                    output.buffers = sentences.complete(in: cleaned, final: true).map {
                        self.outputBuffer(segment, text: $0, status: .final, language: current.targetLanguage, meta: output.meta)
                    }
                }
                var stage = output.stage
                stage.messages = fallbacks + stage.messages
                stage.warning = disabledWarning(chain, disabled)
                return stage
            case .failed(let failure, let moves, let disabled):
                let names = chain.names
                let text = names.count == 1
                    ? (failure.attempts == 0 ? failure.error.description
                       : "provider \(names[0]) failed after \(counted(failure.attempts, "attempt")): \(failure.error)")
                    : "no provider could translate it: " + failure.reasons.joined(separator: "; ")
                var output = result("", .failed, disabled.isEmpty && failure.everyProviderDisabled && failure.attempts == 0
                                    ? "not sent: " + failure.reasons.joined(separator: "; ") : text)
                output.messages += moves.map { FallbackMessage(segmentID: id, $0).structure }
                if failure.everyProviderDisabled && !disabled.isEmpty {
                    output.error = .notAuthorized(refusal(chain, failure), debug: failure.error.description)
                } else if let warning = disabledWarning(chain, disabled) {
                    output.warning = ElementMessageText("\(output.warning!.text); \(warning.text)")
                }
                return output
            }
        }, placeholder: { [self] reason in
            result(segment, text: "", status: .skipped, source: segment.meta.language, settings: current,
                   reason: "segment \(id) skipped: the request queue is full (queue-policy=\(reason.rawValue))")
        })
    }

    /// The error that stops the stream when no provider of the chain will take requests any more.
    func refusal(_ chain: FallbackChain, _ failure: FallbackChain.Failure) -> String {
        guard chain.names.count == 1 else { return "every provider of the chain refused: " + failure.reasons.joined(separator: "; ") }
        if failure.error.status == nil, let (variable, host) = keyOrigin(0) {
            return "\(variable) was rejected by \(host): check the key, or use provider=local"
        }
        if failure.error.status == 456 {
            return "the DeepL quota for this billing period is used up (456): wait for it to renew, or use another provider"
        }
        return "the provider refused: \(failure.error)"
    }

    /// A provider the chain gave up on for the rest of the run, said once (when it happens).
    func disabledWarning(_ chain: FallbackChain, _ disabled: [Int]) -> ElementMessageText? {
        ProviderFallback.disabledWarning(chain, disabled) { keyOrigin($0)?.variable }
    }

    /// Which variable a remote provider's key came from, and its host: named in errors, never the key.
    func keyOrigin(_ index: Int) -> (variable: String, host: String)? {
        let made = translators.withLock { $0?.made.values.compactMap { $0[index] }.first }
        return (made as? any RemoteTranslator).map { ($0.service.keyVariable, $0.service.host) }
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
        var fields: [(String, PropertyValue)] = [("segment-id", .uint64(meta.segmentID)), ("stage", .string("translate"))]
        if let timing {
            fields.append(("time-to-final-ms", .double(Double(timing.completeAt - timing.sentAt) / 1e6)))
            if let first = timing.firstTokenAt, first >= timing.sentAt {
                fields.append(("ttft-ms", .double(Double(first - timing.sentAt) / 1e6)))
            }
            if let speechEnd = meta.stamps[.speechEnd], timing.completeAt > speechEnd {
                fields.append(("speech-end-to-translation-ms", .double(Double(timing.completeAt - speechEnd) / 1e6)))
            }
        }
        messages.append(Structure("parley/latency", fields))
        return FinalOutput(buffers: [outputBuffer(segment, text: text, status: .final, language: settings.targetLanguage, meta: meta)],
                           messages: messages, meta: meta)
    }

    func translationMessage(_ segment: TextSegment, text: String, status: SpeechStatus, source: String, sourceText: String,
                            settings: Settings, provider: String, meta: SpeechMeta) -> Structure {
        TranslationMessage(segmentID: meta.segmentID, text: text, status: status, language: settings.targetLanguage,
                           sourceLanguage: source, sourceText: sourceText, provider: provider,
                           start: segment.pts, duration: segment.duration).structure
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

