// streamtranslator: translates (or answers) each final text result, in
// segment order, showing the translation as it streams.
//
//     gst-launch-1.0 -m filesrc location=speech.wav ! wavparse ! audioconvert ! audioresample \
//         ! audio/x-raw,format=S16LE,channels=1,rate=16000 ! vadsegmenter ! cloudstt \
//         ! streamtranslator target-language=es ! transcriptsink
//
// Finals are translated; partial transcripts are dropped (the translator
// works on settled text); failed and skipped results pass on with their
// status, so every segment that enters leaves. A buffer with no speech meta
// counts as a final and is numbered in arrival order. Each result leaves as
// `emit` says (final, sentences, partials), carrying ParleySpeechMeta with
// the target language; a `parley/translation` message per final gives the
// translation, the source text and who served it. An empty text (a
// transcript of a cough: nothing was said) is a skipped result, counted and
// in the message, with no warning: it is not a fault. A non-UTF-8 or
// oversized text fails with a warning, never a crash.
//
// Providers: `local` (the default) runs apertium from Debian as one
// long-lived process per language pair (a request costs milliseconds); with
// no pair between the two languages, through two pairs and a language in
// between, Spanish first (English to Italian: eng-spa, then spa-ita), each
// hop its own process and its own loss;
// `openai` and `compatible` stream `/v1/chat/completions` (SSE) with retries
// on 429/5xx; `deepl`, `google` (Cloud Translation v2) and `libretranslate`
// answer in one JSON document. A rejected key, or DeepL's 456 (quota used
// up), is a fatal error naming the key's variable, never the key (in a
// chain: that provider is skipped for the rest of the run, and only a
// chain with every provider refused stops). `provider` may name a fallback
// chain, e.g. `provider=openai,local`: a segment whose request fails for
// good goes to the next provider, in order (ProviderFallback: breaker,
// `parley/fallback`); `base-url`, `model` and `api-key-env` then take one
// comma-separated entry per provider. Results
// are cached in memory and on disk (`cache`, `cache-dir`, `cache-ttl-s`; a
// SHA-256 over provider, model, languages, prompt, text and any context
// pairs sent with it names each entry): a text translated before, in this run or an earlier one, makes no
// request. The folder keeps 10,000 entries at most, the least recently used
// deleted first (TranslationCache). A text repeated while its first request
// is still out waits for that answer and counts as a cache hit: one request
// per text, however many segments are in flight (RequestGate). Assistant
// answers are not cached.
//
// Sentence assembly (`max-hold-ms`, off by default; SentenceAssembly):
// consecutive finals are joined until one ends a sentence, so a sentence
// cut by a thinking pause is translated whole; the joined result is the
// last segment's, with `first-segment-id` in its meta and message.
import Foundation
import GstKit
import ParleyCore
import ParleySpeech
import Synchronization

public final class StreamTranslatorElement: ProviderElement {
    public static let DEFAULT_PROVIDER = "local"
    public static let DEFAULT_SOURCE_LANGUAGE = "auto"
    public static let DEFAULT_TARGET_LANGUAGE = "es"
    public static let DEFAULT_SYSTEM_PROMPT = ""
    public static let DEFAULT_MODE = TranslatorMode.translate
    public static let DEFAULT_CONTEXT_SEGMENTS = 0
    public static let DEFAULT_TEMPERATURE = 0.0
    public static let DEFAULT_EMIT = TranslationEmit.final
    public static let DEFAULT_CACHE = true
    public static let DEFAULT_CACHE_TTL_S = 86_400
    public static let DEFAULT_CACHE_DIR = ""
    /// Each result alone: a transcriber that does not punctuate (pocketsphinx)
    /// would make every result wait the whole budget. Pipelines with Whisper
    /// or a cloud transcriber turn it on (live-translate: 4000).
    public static let DEFAULT_MAX_HOLD_MS = 0

    /// Two requests at once: a slow answer does not hold the next one back (order is kept anyway).
    public static let DEFAULT_MAX_IN_FLIGHT = 2
    /// A result's first output once its text arrived.
    public static let DEFAULT_LATENCY_MS = 500
    /// Texts longer than this are refused per segment (a transcript is far shorter).
    static let maxTextBytes = 16 * 1024

    public static let metadata = ElementMetadata(
        factoryName: "streamtranslator", typeName: "GstStreamTranslator",
        longName: "Streaming translator", klass: "Filter/Text",
        description: "Translates (or answers) each final text result in segment order, streaming the translation as it forms",
        docURI: Release.documentation(for: "streamtranslator"),
        example: "gst-launch-1.0 -m fdsrc ! text/x-raw,format=utf8 ! streamtranslator source-language=en target-language=es ! fakesink")
    public static let pads = PadTemplates(sink: "text/x-raw, format=(string)utf8", src: "text/x-raw, format=(string)utf8")

    /// The chain's per-provider lists against its providers, as `open()` reads them.
    public static func settingsProblem(_ values: [String: String]) -> String? {
        ProviderFallback.problem(in: values, known: TranslatorProvider.values)
    }

    public static let properties = ProviderFallback.specs(for: TranslatorProvider.self, default: DEFAULT_PROVIDER, wording: .init(
        who: "Who translates", model: "Chat model")) + [
        PropertySpec("source-language", nick: "Source language",
                     blurb: "BCP-47 language of the text, or auto: the language in each result's meta (else en)",
                     .string(default: DEFAULT_SOURCE_LANGUAGE)),
        PropertySpec("target-language", nick: "Target language", blurb: "BCP-47 language to translate into",
                     .string(default: DEFAULT_TARGET_LANGUAGE), check: targetLanguageProblem),
        PropertySpec("system-prompt", nick: "System prompt",
                     blurb: "Instructions for chat providers; {source} and {target} become language names; empty = the mode's default",
                     .string(default: DEFAULT_SYSTEM_PROMPT)),
        PropertySpec("mode", nick: "Mode", blurb: "Translate what was said, or answer it",
                     .enumeration(typeName: "GstParleyTranslatorMode", values: TranslatorMode.values, default: DEFAULT_MODE.rawValue)),
        PropertySpec("context-segments", nick: "Context segments",
                     blurb: "Earlier source/result pairs sent as context to chat providers (a translation is cached with its context)",
                     .int(default: DEFAULT_CONTEXT_SEGMENTS, range: 0...50)),
        PropertySpec("temperature", nick: "Temperature", blurb: "Sampling temperature for chat providers",
                     .double(default: DEFAULT_TEMPERATURE, range: 0...2)),
        PropertySpec("emit", nick: "Emit", blurb: "What goes downstream",
                     .enumeration(typeName: "GstParleyTranslationEmit", values: TranslationEmit.values, default: DEFAULT_EMIT.rawValue)),
        PropertySpec("max-hold-ms", nick: "Max hold",
                     blurb: "Join consecutive results until one ends a sentence, so a sentence cut by a pause is translated whole; a result that does not end one waits at most this long (ms, from the first held) for the rest; 0 = each result alone",
                     .int(default: DEFAULT_MAX_HOLD_MS, range: 0...60_000)),
        PropertySpec("cache", nick: "Cache", blurb: "Answer a text translated before from memory, without a request",
                     .bool(default: DEFAULT_CACHE)),
        PropertySpec("cache-dir", nick: "Cache folder",
                     blurb: "Where translations are kept between runs, 10,000 at most (the least recently used deleted first); empty = $XDG_CACHE_HOME/parley/translations (~/.cache/...); \"none\" = memory only",
                     .string(default: DEFAULT_CACHE_DIR)),
        PropertySpec("cache-ttl-s", nick: "Cache lifetime", blurb: "How long a cached translation is used, in seconds",
                     .int(default: DEFAULT_CACHE_TTL_S, range: 0...(365 * 86_400))),
        PropertySpec("cache-hits", nick: "Cache hits", blurb: "Segments answered from the cache (a text repeated while its request was out included)",
                     .uint64(default: 0, range: 0...UInt64.max), flags: .readOnly),
    ] + Settings.stageSpecs(final: "Segments translated", skipped: "Segments skipped (empty, skipped upstream, or dropped by queue-policy)",
                            failed: "Segments that could not be translated",
                            defaultMaxInFlight: DEFAULT_MAX_IN_FLIGHT, defaultLatencyMs: DEFAULT_LATENCY_MS)

    /// What is the element's own; the chain and the queue are ProviderSettings'.
    public struct OwnSettings: Sendable {
        var sourceLanguage = DEFAULT_SOURCE_LANGUAGE
        var targetLanguage = DEFAULT_TARGET_LANGUAGE
        var systemPrompt = DEFAULT_SYSTEM_PROMPT
        var mode = DEFAULT_MODE
        var contextSegments = DEFAULT_CONTEXT_SEGMENTS
        var temperature = DEFAULT_TEMPERATURE
        var emit = DEFAULT_EMIT
        var cache = DEFAULT_CACHE
        var cacheTTLs = DEFAULT_CACHE_TTL_S
        var cacheDir = DEFAULT_CACHE_DIR
        var maxHoldMs = DEFAULT_MAX_HOLD_MS
    }
    typealias Settings = ProviderSettings<OwnSettings>

    /// Streaming state, replaced whole on start.
    struct State {
        /// Numbers results that carry no meta.
        var received: UInt64 = 0
        /// Recent (source, result) pairs for context-segments.
        var context: [(source: String, result: String)] = []
        /// Texts held until their sentence ends (max-hold-ms > 0).
        var assembly: SentenceAssembly?
    }

    public let element: ElementHandle
    public let stage: AsyncStage
    public let settings = ProviderSettingsStore(Settings(OwnSettings(), defaultProvider: DEFAULT_PROVIDER,
                                                        defaultMaxInFlight: DEFAULT_MAX_IN_FLIGHT))
    let state = Mutex(State())
    let translators = Mutex<Translators?>(nil)
    let cache = TranslationCache(capacity: 1024)
    /// A text being translated is not sent again by a segment that repeats it meanwhile.
    let requests = RequestGate<TranslationCache.Key>()
    public let counters = ResultCounters()
    let cacheHits = Atomic<UInt64>(0)

    public init(element: ElementHandle) {
        self.element = element
        stage = AsyncStage(element: element, log: Self.log, defaultLatencyMs: Self.DEFAULT_LATENCY_MS)
    }

    public func ownProperty(_ name: String, of current: OwnSettings) -> PropertyValue {
        switch name {
        case "source-language": return .string(current.sourceLanguage)
        case "target-language": return .string(current.targetLanguage)
        case "system-prompt": return .string(current.systemPrompt)
        case "mode": return .enumeration(current.mode.rawValue)
        case "context-segments": return .int(current.contextSegments)
        case "temperature": return .double(current.temperature)
        case "emit": return .enumeration(current.emit.rawValue)
        case "cache": return .bool(current.cache)
        case "cache-ttl-s": return .int(current.cacheTTLs)
        case "cache-dir": return .string(current.cacheDir)
        case "max-hold-ms": return .int(current.maxHoldMs)
        case "cache-hits": return .uint64(cacheHits.load(ordering: .relaxed))
        default: Self.unhandledProperty(name)
        }
    }

    public func setOwnProperty(_ name: String, to value: PropertyValue, in settings: inout OwnSettings) {
        switch name {
        case "source-language": settings.sourceLanguage = value.string ?? ""
        case "target-language": settings.targetLanguage = value.string ?? ""
        case "system-prompt": settings.systemPrompt = value.string ?? ""
        case "mode": settings.mode = TranslatorMode(rawValue: value.int) ?? Self.DEFAULT_MODE
        case "context-segments": settings.contextSegments = value.int
        case "temperature": settings.temperature = value.double
        case "emit": settings.emit = TranslationEmit(rawValue: value.int) ?? Self.DEFAULT_EMIT
        case "cache": settings.cache = value.bool
        case "cache-ttl-s": settings.cacheTTLs = value.int
        case "cache-dir": settings.cacheDir = value.string ?? ""
        case "max-hold-ms": settings.maxHoldMs = max(0, value.int)
        default: Self.unhandledProperty(name)
        }
    }

    /// The disk cache's folder, or nil for memory only.
    static func cacheFolder(_ settings: Settings) -> URL? {
        switch settings.cacheDir {
        case "none": nil
        case "": TranslationCache.defaultFolder()
        default: URL(fileURLWithPath: settings.cacheDir)
        }
    }

    /// Whether the source language is each result's (source-language auto or empty).
    static func followsResults(_ settings: Settings) -> Bool {
        settings.sourceLanguage == "auto" || settings.sourceLanguage.isEmpty
    }

    /// The source language a provider is set up for when the property says auto.
    static func sourceLanguage(_ settings: Settings, meta: String?) -> String {
        if !followsResults(settings) { return settings.sourceLanguage }
        if let meta, !meta.isEmpty { return meta }
        return "en"
    }

    /// Who served text already in the target language (LanguageTag.isSameLanguage:
    /// en-US is en, zh-Hant is not zh): no one.
    static let sameLanguageProvider = "none (same language)"

    /// What is wrong with a target-language, or nil: checked at start, and
    /// by `parley validate` (the property's check).
    @Sendable static func targetLanguageProblem(_ value: String) -> String? {
        if value.isEmpty { return "target-language is empty: say which language to translate into, e.g. target-language=es" }
        // Providers are sent the tag in their own form (LanguageTag): refuse what is no tag at all.
        if LanguageTag(value) == nil { return "target-language '\(value)' is not a BCP-47 language tag: use e.g. es, pt-BR or zh-Hans" }
        return nil
    }

    public func open() throws(ElementMessageText) {
        let current = settings.withLock { $0 }
        if let problem = Self.targetLanguageProblem(current.targetLanguage) {
            throw .settings(problem, debug: "property target-language")
        }
        let source = Self.sourceLanguage(current, meta: nil)
        let detected = Self.followsResults(current)
        let environment = ProcessInfo.processInfo.environment
        let (made, chain) = try ProviderFallback.assemble(
            current.providers, known: TranslatorProvider.values, element: element,
            // Following each result's language, a provider is named by its kind
            // (local), not by the pair set up for the fallback language.
            name: { (position, translator: any TextTranslator) in detected ? position.provider : translator.name }
        ) { position in
            try TranslatorProvider(rawValue: position.provider)!
                .makeTranslator(position, settings: current, sourceLanguage: source, environment: environment,
                                trace: Self.log.providerTrace(for: element))
        }
        translators.withLock {
            $0 = Translators(positions: made.map(\.position), chain: chain, made: [source: made.map(\.member)])
        }
        let from = detected ? "each result's language (\(source) where it has none)" : source
        element.postInfo(.notice("provider \(chain.names.joined(separator: ", then ")), \(from) to \(current.targetLanguage)"))
    }

    public func start() throws(ElementMessageText) {
        counters.reset()
        cacheHits.store(0, ordering: .relaxed)
        let maxHoldMs = settings.withLock { $0.maxHoldMs }
        state.withLock { $0 = State(assembly: maxHoldMs > 0 ? SentenceAssembly(maxHoldMs: maxHoldMs) : nil) }
    }

    public func close() {
        let all = translators.withLock { translators in
            defer { translators = nil }
            return translators?.made.values.flatMap { $0.compactMap { $0 } } ?? []
        }
        for translator in all { translator.shutdown() }
    }

    /// The chain position `index`'s translator for `source`, made on first
    /// use when results arrive in a language the element was not set up for
    /// (source-language=auto).
    func translator(_ index: Int, for source: String) -> Result<any TextTranslator, ProviderFailure> {
        guard let positions = translators.withLock({ $0?.positions }) else {
            return .failure(ProviderFailure(.engine("no provider is set up"), attempts: 0))
        }
        if let existing = translators.withLock({ $0?.made[source]?[index] }) { return .success(existing) }
        let current = settings.withLock { $0 }
        let position = positions[index]
        do {
            let made = try TranslatorProvider(rawValue: position.provider)!
                .makeTranslator(position, settings: current, sourceLanguage: source, environment: ProcessInfo.processInfo.environment,
                                trace: Self.log.providerTrace(for: element))
            return .success(translators.withLock { translators in
                var row = translators?.made[source] ?? Array(repeating: nil, count: positions.count)
                if let raced = row[index] { made.shutdown(); return raced }
                row[index] = made
                translators?.made[source] = row
                return made
            })
        } catch {
            return .failure(ProviderFailure(.engine("\(error)"), attempts: 0))
        }
    }

    public func accept(_ buffer: Buffer) -> [StageWork] {
        let number = state.withLock { state in
            defer { state.received += 1 }
            return state.received
        }
        let meta = buffer.speechMeta ?? SpeechMeta(segmentID: number)
        if meta.status == .partial { return [] }
        let bytes = buffer.withBytes { Array($0) }
        let segment = TextSegment(meta: meta, pts: buffer.pts, duration: buffer.duration, bytes: bytes)
        let step = state.withLock { state in
            state.assembly?.receive(segment, text: Self.joinableText(segment), now: MonotonicClock.nanoseconds())
        }
        switch step {
        case nil: return [work(for: segment)]
        case .translate(let text)?: return [work(for: text)]
        case .hold(let generation)?: return [heldWork(generation, for: segment)]
        }
    }

    /// EOS: a text held for the rest of its sentence goes out now. A flush
    /// forgets it (its work was cancelled). A speech start tells the
    /// assembly the speaker goes on.
    public func sinkEvent(_ event: Event) -> [StageWork] {
        if case .start(let id, _)? = SpeechBoundary(event) { state.withLock { $0.assembly?.speechStarted(id) } }
        switch event.view {
        case .eos: state.withLock { $0.assembly?.releaseHeld() }
        case .flushStop: state.withLock { $0.assembly?.reset() }
        default: break
        }
        return []
    }
}

/// The chain's usable positions, its health, and the translators made for
/// each source language (apertium needs one per pair), by position.
struct Translators {
    var positions: [ChainPosition]
    var chain: FallbackChain
    var made: [String: [(any TextTranslator)?]]
}

/// One text result to translate, as it arrived (or several joined: SentenceAssembly).
struct TextSegment: Sendable, Equatable {
    var meta: SpeechMeta
    var pts: UInt64
    var duration: UInt64
    var bytes: [UInt8]
}
