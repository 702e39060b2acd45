import GstKit
import ParleyCore

/// What every element with a provider chain (cloudstt, streamtranslator,
/// cloudtts) has alike: `provider` as a comma-separated chain with its
/// per-provider `base-url`, `model` and `api-key-env` (their values held in
/// `Settings`, read and written by `property`/`set`; each element declares
/// the specs, whose blurbs name its providers), `breaker-failures`,
/// `breaker-cooldown-ms`, the READY check that names why
/// each provider is unusable, and the `parley/fallback` message.
///
/// `parley/fallback` (element message, one per provider a segment went past):
/// `segment-id` (guint64), `from` (the provider passed over), `to` (the next
/// one asked, "" when none was left), `reason` (its error, or why it was
/// skipped: circuit open, key rejected).
public enum ProviderFallback {
    public static let DEFAULT_BREAKER_FAILURES = 3
    public static let DEFAULT_BREAKER_COOLDOWN_MS = 30_000

    public struct Settings: Sendable, Equatable {
        /// The chain as written: `provider`, and one entry per provider in the others.
        public var provider: String
        public var baseURL: String
        public var model: String
        public var apiKeyEnv: String
        public var breakerFailures = DEFAULT_BREAKER_FAILURES
        public var breakerCooldownMs = DEFAULT_BREAKER_COOLDOWN_MS
        /// What `provider` goes back to when set to NULL: the element's DEFAULT_PROVIDER.
        let defaultProvider: String
    }

    /// An element's chain settings, from its DEFAULT_* constants.
    public static func defaults(provider: String, baseURL: String, model: String, apiKeyEnv: String) -> Settings {
        Settings(provider: provider, baseURL: baseURL, model: model, apiKeyEnv: apiKeyEnv, defaultProvider: provider)
    }

    /// `provider`: a string, so it can name a chain; `values` are the names (and what each is) shown by gst-inspect.
    public static func providerSpec(blurb: String, values: [EnumValue], default defaultValue: String) -> PropertySpec {
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

    public static let specs = [
        PropertySpec("breaker-failures", nick: "Breaker failures",
                     blurb: "Consecutive failures after which a provider of a chain (not the last) is skipped for breaker-cooldown-ms",
                     .int(default: DEFAULT_BREAKER_FAILURES, range: 1...1000)),
        PropertySpec("breaker-cooldown-ms", nick: "Breaker cooldown",
                     blurb: "How long a failing provider is skipped before one probe request decides, in ms",
                     .int(default: DEFAULT_BREAKER_COOLDOWN_MS, range: 0...3_600_000)),
    ]

    public static func property(_ name: String, of settings: Settings) -> PropertyValue? {
        switch name {
        case "provider": .string(settings.provider)
        case "base-url": .string(settings.baseURL)
        case "model": .string(settings.model)
        case "api-key-env": .string(settings.apiKeyEnv)
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

    public static func message(segmentID: UInt64, _ move: FallbackChain.Move) -> Structure {
        Structure("parley/fallback", [
            ("segment-id", .uint64(segmentID)), ("from", .string(move.from)), ("to", .string(move.to)),
            ("reason", .string(move.reason)),
        ])
    }

    /// What an element says, once, when a run disabled providers of its chain
    /// (naming each key's variable, never the key); nil when it disabled none.
    /// Like every element message, it does not name the element: the bus
    /// message's source does.
    public static func disabledWarning(_ chain: FallbackChain, _ disabled: [Int],
                                       keyVariable: (Int) -> String?) -> ElementMessageText? {
        guard !disabled.isEmpty else { return nil }
        let texts = disabled.map { index in
            let reason = chain.disabledReason(index) ?? "it failed"
            let key = keyVariable(index).map { " (key from \($0))" } ?? ""
            return "provider \(chain.names[index])\(key) is skipped for the rest of the run: \(reason)"
        }
        return ElementMessageText(texts.joined(separator: "; "))
    }
}
