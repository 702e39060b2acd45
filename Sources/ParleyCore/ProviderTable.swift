/// What Parley knows of one provider an element can name in `provider`:
/// the one place its defaults are written. The elements' property blurbs,
/// gst-inspect's list of providers and the setup checks are made from it.
public struct ProviderInfo: Sendable, Equatable {
    /// What `provider` names it: "openai".
    public var name: String
    /// What it is, as gst-inspect lists it beside the name.
    public var summary: String
    /// Where requests go when `base-url` is empty; "" for a provider that
    /// runs on this machine, or one whose address the user must give.
    public var baseURL: String
    /// The variable the key is read from when `api-key-env` is empty; "" when it takes no key.
    public var keyVariable: String
    /// Whether a request without a key is refused at start (a self-hosted
    /// server may need none: its key is sent when the variable is set).
    public var keyRequired: Bool
    /// The model asked for when `model` is empty; "" where the provider chooses.
    public var model: String
    /// Runs on this machine: no address, no key, no network.
    public var runsLocally: Bool

    /// A provider on this machine.
    public static func local(_ summary: String) -> ProviderInfo {
        ProviderInfo(name: "local", summary: summary, baseURL: "", keyVariable: "", keyRequired: false, model: "", runsLocally: true)
    }

    /// A provider reached over HTTP; an empty `baseURL` makes `base-url` required.
    public static func remote(_ name: String, _ summary: String, baseURL: String = "", key: String, keyRequired: Bool = true,
                              model: String = "") -> ProviderInfo {
        ProviderInfo(name: name, summary: summary, baseURL: baseURL, keyVariable: key, keyRequired: keyRequired, model: model,
                     runsLocally: false)
    }
}

/// The providers of one kind (speech to text, translation, speech): an enum
/// whose cases are what `provider` may name, each with its `ProviderInfo`.
/// Adding a provider is a case, its row in `info`, and the adapter that
/// speaks its wire format.
public protocol ProviderKind: RawRepresentable, CaseIterable, Sendable where RawValue == String {
    var info: ProviderInfo { get }
}

extension ProviderKind {
    public var defaultBaseURL: String { info.baseURL }
    public var defaultKeyVariable: String { info.keyVariable }
    public var defaultModel: String { info.model }

    /// Every provider's row, in declaration order.
    public static var table: [ProviderInfo] { allCases.map(\.info) }

    /// The key variable a chain position uses: its own `api-key-env`, else the provider's.
    public func keyVariable(_ position: ChainPosition) -> String {
        position.apiKeyEnv.isEmpty ? info.keyVariable : position.apiKeyEnv
    }

    /// The model a chain position asks for: its own `model`, else the provider's.
    public func model(_ position: ChainPosition) -> String {
        position.model.isEmpty ? info.model : position.model
    }
}

/// Why a provider of a chain cannot be used, found at NULL→READY (a key not
/// set, an address missing, an engine not prepared): said before streaming,
/// never mid-stream. The one setup error of every provider element.
public struct ProviderSetupError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// A request a provider did not serve: the last error and how many attempts
/// were made (0: not sent at all). The one failure type of every provider
/// element's providers.
public struct ProviderFailure: Error, Sendable {
    public var error: ProviderError
    public var attempts: Int
    /// Audio had already left when a speech stream broke: it is not replayed
    /// (by this provider or the next). Always false for text.
    public var afterAudio: Bool

    public init(_ error: ProviderError, attempts: Int, afterAudio: Bool = false) {
        self.error = error
        self.attempts = attempts
        self.afterAudio = afterAudio
    }
}

/// A provider reached over the network. Its service names the key's
/// variable and host in messages (never the key).
public protocol RemoteProvider: Sendable {
    var service: RemoteService { get }
}
