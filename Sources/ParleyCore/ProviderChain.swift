/// One position of a provider chain (`provider=openai,groq,local`) with the
/// options given for it position by position (`base-url`, `model` and
/// `api-key-env` take comma-separated lists; an empty item, or a list
/// shorter than the chain, leaves that position at its provider's default).
public struct ChainPosition: Sendable, Equatable {
    public var provider: String
    public var baseURL: String
    public var model: String
    public var apiKeyEnv: String
    /// An element's own per-position lists (cloudtts: `voice`), by property name.
    public var options: [String: String]

    public init(provider: String, baseURL: String = "", model: String = "", apiKeyEnv: String = "", options: [String: String] = [:]) {
        self.provider = provider
        self.baseURL = baseURL
        self.model = model
        self.apiKeyEnv = apiKeyEnv
        self.options = options
    }

    /// What a bad chain property says: which property, which position, what was wrong.
    public struct SpecError: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// Reads an element's chain properties. `known` lists the provider
    /// names the element has; `more` are the element's own list properties.
    public static func parse(provider: String, baseURL: String, model: String, apiKeyEnv: String,
                             more: [(property: String, value: String)] = [],
                             known: [String]) throws(SpecError) -> [ChainPosition] {
        let names = items(provider)
        guard !names.allSatisfy(\.isEmpty) else {
            throw SpecError(description: "provider is empty: name one of \(known.joined(separator: ", ")), or a comma-separated chain of them")
        }
        for (index, name) in names.enumerated() where !known.contains(name) {
            let hint = Suggestions.closest(to: name, in: known).map { " (did you mean \($0)?)" } ?? ""
            let what = name.isEmpty ? "an empty name" : "\"\(name)\""
            throw SpecError(description: "provider has \(what) at position \(index + 1) of \"\(provider)\"\(hint): the providers are \(known.joined(separator: ", "))")
        }
        var lists: [String: [String]] = [:]
        for (property, value) in [("base-url", baseURL), ("model", model), ("api-key-env", apiKeyEnv)] + more {
            let values = value.isEmpty ? [] : items(value)
            if values.count > names.count {
                throw SpecError(description: "\(property) has \(values.count) comma-separated entries but provider names \(names.count): give one per provider, in order (an empty entry keeps that provider's default)")
            }
            lists[property] = values
        }
        func at(_ property: String, _ index: Int) -> String {
            let values = lists[property] ?? []
            return index < values.count ? values[index] : ""
        }
        return names.indices.map { index in
            ChainPosition(provider: names[index], baseURL: at("base-url", index), model: at("model", index),
                          apiKeyEnv: at("api-key-env", index),
                          options: Dictionary(uniqueKeysWithValues: more.map { ($0.property, at($0.property, index)) }))
        }
    }

    private static func items(_ list: String) -> [String] {
        list.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
    }
}

/// Whether a provider may take a request: after `threshold` consecutive
/// failures it is skipped for `cooldown`, then one probe request decides
/// (success closes it, failure opens it again). A pure state machine; the
/// caller passes the time (monotonic ns).
public struct CircuitBreaker: Sendable, Equatable {
    public enum State: Sendable, Equatable {
        case closed(failures: Int)
        case open(until: UInt64)
        /// One probe request is out; everyone else skips until it answers.
        case probing
    }

    public enum Permit: Sendable, Equatable {
        case request
        case probe
        /// Skip this provider; it may be probed again `reopensIn` ns from now (nil: a probe is out).
        case skip(reopensIn: UInt64?)
    }

    public let threshold: Int
    public let cooldown: UInt64
    public private(set) var state = State.closed(failures: 0)

    public init(threshold: Int, cooldown: UInt64) {
        self.threshold = max(1, threshold)
        self.cooldown = cooldown
    }

    public mutating func permit(now: UInt64) -> Permit {
        switch state {
        case .closed: return .request
        case .open(let until) where now >= until:
            state = .probing
            return .probe
        case .open(let until): return .skip(reopensIn: until - now)
        case .probing: return .skip(reopensIn: nil)
        }
    }

    public mutating func succeeded() { state = .closed(failures: 0) }

    /// Counts a failure; true when it opened the breaker.
    @discardableResult
    public mutating func failed(now: UInt64) -> Bool {
        switch state {
        case .probing:
            state = .open(until: now + cooldown)
            return true
        case .closed(let failures) where failures + 1 >= threshold:
            state = .open(until: now + cooldown)
            return true
        case .closed(let failures):
            state = .closed(failures: failures + 1)
            return false
        case .open:
            return false
        }
    }

    /// A request that ended without a verdict (cancelled, or the input's fault):
    /// a probe gives its turn to the next request.
    public mutating func released(now: UInt64) {
        if state == .probing { state = .open(until: now) }
    }
}
