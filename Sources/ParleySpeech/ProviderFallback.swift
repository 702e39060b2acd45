import GstKit
import ParleyCore

/// What every element with a provider chain (cloudstt, streamtranslator,
/// cloudtts) has alike, declared once: `provider` as a comma-separated
/// chain with its per-provider `base-url`, `model` and `api-key-env`,
/// `timeout-ms`, `max-retries`, `breaker-failures` and
/// `breaker-cooldown-ms` (one spec list, `specs(for:)`, made from the
/// element's `ProviderKind` table; one value, `Settings`; one get/set), the
/// READY check that names why each provider is unusable, and the
/// `parley/fallback` message. An element declares only its own properties
/// beside these.
/// Each provider a segment went past is a `parley/fallback` message (FallbackMessage).
public enum ProviderFallback {
    public static let DEFAULT_BASE_URL = ""
    public static let DEFAULT_MODEL = ""
    public static let DEFAULT_API_KEY_ENV = ""
    public static let DEFAULT_TIMEOUT_MS = 30_000
    public static let DEFAULT_MAX_RETRIES = 2
    public static let DEFAULT_BREAKER_FAILURES = 3
    public static let DEFAULT_BREAKER_COOLDOWN_MS = 30_000

    public struct Settings: Sendable, Equatable {
        /// The chain as written: `provider`, and one entry per provider in the others.
        public var provider: String
        public var baseURL = DEFAULT_BASE_URL
        public var model = DEFAULT_MODEL
        public var apiKeyEnv = DEFAULT_API_KEY_ENV
        public var timeoutMs = DEFAULT_TIMEOUT_MS
        public var maxRetries = DEFAULT_MAX_RETRIES
        public var breakerFailures = DEFAULT_BREAKER_FAILURES
        public var breakerCooldownMs = DEFAULT_BREAKER_COOLDOWN_MS
        /// What `provider` goes back to when set to NULL: the element's DEFAULT_PROVIDER.
        let defaultProvider: String

        /// An element's chain settings: its DEFAULT_PROVIDER, and the chain's own defaults for the rest.
        public init(provider: String) {
            self.provider = provider
            defaultProvider = provider
        }
    }

    /// How an element words its chain properties: what its providers do
    /// ("Who transcribes"), what its `model` is ("Model name"), anything to
    /// add about models, and what a retry is for it.
    public struct Wording: Sendable {
        public var who: String
        public var model: String
        public var modelNote: String
        public var retries: String

        public init(who: String, model: String, modelNote: String = "",
                    retries: String = "Retries after a 429, 5xx, timeout or reset (never after 401/403)") {
            self.who = who
            self.model = model
            self.modelNote = modelNote
            self.retries = retries
        }
    }

    /// The chain's properties for an element whose providers are `Kind`,
    /// their blurbs made from `Kind`'s table (so a provider added to the
    /// table is listed everywhere it should be).
    public static func specs<Kind: ProviderKind>(for kind: Kind.Type, default defaultProvider: String, wording: Wording) -> [PropertySpec] {
        let table = Kind.table
        let remote = table.filter { !$0.runsLocally }
        let hosted = remote.filter { !$0.baseURL.isEmpty }.map { "\($0.name): \($0.baseURL)" }
        let addressed = remote.filter { $0.baseURL.isEmpty }.map(\.name)
        let baseURLBlurb = "API base URL; empty = the provider's (\(hosted.joined(separator: ", ")))"
            + (addressed.isEmpty ? "" : "; required for \(addressed.joined(separator: " and "))")
        let models = grouped(remote.filter { !$0.model.isEmpty }, by: \.model)
        let modelBlurb = "\(wording.model); empty = " + (models.isEmpty ? "the provider's own" : models)
            + (wording.modelNote.isEmpty ? "" : "; \(wording.modelNote)")
        let keyless = remote.filter { !$0.keyRequired }.map(\.name)
        let keyBlurb = "Environment variable holding the API key; empty = \(grouped(remote.filter { !$0.keyVariable.isEmpty }, by: \.keyVariable))"
            + (keyless.isEmpty ? "" : ", sent to \(keyless.joined(separator: " and ")) only when set")
        return [
            providerSpec(blurb: wording.who, values: Kind.values, default: defaultProvider),
            perProvider("base-url", nick: "Base URL", blurb: baseURLBlurb, default: DEFAULT_BASE_URL),
            perProvider("model", nick: "Model", blurb: modelBlurb, default: DEFAULT_MODEL),
            perProvider("api-key-env", nick: "API key variable", blurb: keyBlurb, default: DEFAULT_API_KEY_ENV),
            PropertySpec("timeout-ms", nick: "Timeout", blurb: "Longest a request may take, in ms",
                         .int(default: DEFAULT_TIMEOUT_MS, range: 100...600_000)),
            PropertySpec("max-retries", nick: "Max retries", blurb: wording.retries,
                         .int(default: DEFAULT_MAX_RETRIES, range: 0...10)),
            PropertySpec("breaker-failures", nick: "Breaker failures",
                         blurb: "Consecutive failures after which a provider of a chain (not the last) is skipped for breaker-cooldown-ms",
                         .int(default: DEFAULT_BREAKER_FAILURES, range: 1...1000)),
            PropertySpec("breaker-cooldown-ms", nick: "Breaker cooldown",
                         blurb: "How long a failing provider is skipped before one probe request decides, in ms",
                         .int(default: DEFAULT_BREAKER_COOLDOWN_MS, range: 0...3_600_000)),
        ]
    }

    /// "X (a, b), Y (c) or Z (d)": providers grouped by a value they share, in table order.
    static func grouped(_ providers: [ProviderInfo], by value: KeyPath<ProviderInfo, String>) -> String {
        var order: [String] = []
        var names: [String: [String]] = [:]
        for provider in providers {
            let key = provider[keyPath: value]
            if names[key] == nil { order.append(key) }
            names[key, default: []].append(provider.name)
        }
        let parts = order.map { "\($0) (\(names[$0]!.joined(separator: ", ")))" }
        guard parts.count > 1 else { return parts.first ?? "" }
        return parts.dropLast().joined(separator: ", ") + " or " + parts.last!
    }

    /// `provider`: a string, so it can name a chain; `values` are the names (and what each is) shown by gst-inspect.
    static func providerSpec(blurb: String, values: [EnumValue], default defaultValue: String) -> PropertySpec {
        let known = values.map(\.nick)
        return PropertySpec("provider", nick: "Provider",
                            blurb: "\(blurb): one of \(known.joined(separator: ", ")), or a comma-separated fallback chain of them (e.g. \(values.count > 1 ? values[1].nick : defaultValue),\(defaultValue)); base-url, model and api-key-env then take one entry per provider",
                            .string(default: defaultValue),
                            check: { value in
                                // The chain's names, as the element reads them at start.
                                do throws(ChainPosition.SpecError) {
                                    _ = try ChainPosition.parse(provider: value, baseURL: "", model: "", apiKeyEnv: "", known: known)
                                    return nil
                                } catch {
                                    return error.description
                                }
                            })
    }

    /// A property that takes one comma-separated entry per provider of a
    /// chain (`base-url`, `model`, `api-key-env`, cloudtts's `voice`): its
    /// blurb says so, the same way on every element.
    public static func perProvider(_ name: String, nick: String, blurb: String, default value: String) -> PropertySpec {
        PropertySpec(name, nick: nick, blurb: blurb + "; for a chain, one comma-separated entry per provider, in order",
                     .string(default: value))
    }

    public static func property(_ name: String, of settings: Settings) -> PropertyValue? {
        switch name {
        case "provider": .string(settings.provider)
        case "base-url": .string(settings.baseURL)
        case "model": .string(settings.model)
        case "api-key-env": .string(settings.apiKeyEnv)
        case "timeout-ms": .int(settings.timeoutMs)
        case "max-retries": .int(settings.maxRetries)
        case "breaker-failures": .int(settings.breakerFailures)
        case "breaker-cooldown-ms": .int(settings.breakerCooldownMs)
        default: nil
        }
    }

    /// Sets one of them; false if `name` is not a chain setting.
    public static func set(_ name: String, _ value: PropertyValue, in settings: inout Settings) -> Bool {
        switch name {
        case "provider": settings.provider = value.string ?? settings.defaultProvider
        case "base-url": settings.baseURL = value.string ?? ""
        case "model": settings.model = value.string ?? ""
        case "api-key-env": settings.apiKeyEnv = value.string ?? ""
        case "timeout-ms": settings.timeoutMs = value.int
        case "max-retries": settings.maxRetries = value.int
        case "breaker-failures": settings.breakerFailures = max(1, value.int)
        case "breaker-cooldown-ms": settings.breakerCooldownMs = max(0, value.int)
        default: return false
        }
        return true
    }

    /// The usable providers of a chain, built at NULL→READY by `make`, and
    /// why the others are unusable. No usable provider is an error listing
    /// each one's reason.
    static func build<Member>(_ positions: [ChainPosition],
                                     make: (ChainPosition) throws -> Member) throws(ElementMessageText) -> (members: [Member], unusable: [String]) {
        var members: [Member] = []
        var unusable: [String] = []
        for position in positions {
            do { members.append(try make(position)) } catch {
                unusable.append(positions.count == 1 ? "\(error)" : "\(position.provider): \(error)")
            }
        }
        guard !members.isEmpty else {
            let text = positions.count == 1 ? unusable[0] : "no provider of \"\(positions.map(\.provider).joined(separator: ","))\" is usable: " + unusable.joined(separator: "; ")
            throw .settings(text, debug: "property provider")
        }
        return (members, unusable)
    }

    /// What an element's NULL→READY does with its chain properties: parse
    /// them, make each usable provider with `make`, warn about the ones left
    /// out, and set up the chain's breakers. Returns the members with their positions.
    public static func assemble<Member>(_ settings: Settings, more: [(property: String, value: String)] = [], known: [EnumValue],
                                        element: ElementHandle, name: (ChainPosition, Member) -> String,
                                        make: (ChainPosition) throws -> Member) throws(ElementMessageText)
        -> (members: [(position: ChainPosition, member: Member)], chain: FallbackChain) {
        let chainPositions = try positions(provider: settings.provider, baseURL: settings.baseURL, model: settings.model,
                                           apiKeyEnv: settings.apiKeyEnv, more: more, known: known)
        let (members, unusable) = try build(chainPositions) { position in (position, try make(position)) }
        for reason in unusable { element.postWarning(ElementMessageText("provider unusable, left out of the chain: \(reason)")) }
        let chain = FallbackChain(names: members.map { name($0.0, $0.1) }, breakerFailures: settings.breakerFailures,
                                  breakerCooldownMs: settings.breakerCooldownMs)
        return (members.map { (position: $0.0, member: $0.1) }, chain)
    }

    /// What `assemble` would find wrong with the chain properties in
    /// `values` (by property name, as an element's `settingsProblem` gets
    /// them), without making any provider: the element's static check.
    public static func problem(in values: [String: String], more: [String] = [], known: [EnumValue]) -> String? {
        do throws(ElementMessageText) {
            _ = try positions(provider: values["provider"] ?? "", baseURL: values["base-url"] ?? "", model: values["model"] ?? "",
                              apiKeyEnv: values["api-key-env"] ?? "", more: more.map { ($0, values[$0] ?? "") }, known: known)
            return nil
        } catch {
            return error.text
        }
    }

    /// Parses the chain properties, as a settings error naming the property.
    static func positions(provider: String, baseURL: String, model: String, apiKeyEnv: String,
                                 more: [(property: String, value: String)] = [],
                                 known: [EnumValue]) throws(ElementMessageText) -> [ChainPosition] {
        do {
            return try ChainPosition.parse(provider: provider, baseURL: baseURL, model: model, apiKeyEnv: apiKeyEnv,
                                           more: more, known: known.map(\.nick))
        } catch {
            throw .settings(error.description, debug: "property provider")
        }
    }

}

extension ProviderKind {
    /// The providers as gst-inspect lists them under `provider`: name and what it is, from the table.
    public static var values: [EnumValue] {
        table.enumerated().map { EnumValue($0.offset, $0.element.name, $0.element.summary) }
    }
}
