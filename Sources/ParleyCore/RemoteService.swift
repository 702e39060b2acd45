import Foundation

/// Where a network provider is and how it is reached: base URL, key (and
/// the variable it came from, named in errors, never the key itself),
/// retrying sender and timeout. Shared by the translator's and the speech
/// element's providers.
public struct RemoteService: Sendable {
    public var baseURL: String
    public var apiKey: String
    public var sender: RetryingSender
    public var timeout: Duration
    public var keyVariable: String

    public init(baseURL: String, apiKey: String, sender: RetryingSender, timeout: Duration, keyVariable: String) {
        self.baseURL = baseURL
        self.apiKey = apiKey
        self.sender = sender
        self.timeout = timeout
        self.keyVariable = keyVariable
    }

    /// Host (and port, when the URL gives one): what messages name the server by.
    public var host: String { HTTPClient.hostAndPort(baseURL) ?? baseURL }
    /// The base URL without a trailing slash, to append paths to.
    public var root: String { baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL }

    /// Builds a provider's service for one position of a chain: the key
    /// from the position's `api-key-env` or the provider's variable in
    /// `environment` (required when the provider says so), the base URL from
    /// the position or else the provider's (`baseURLForKey` when it depends
    /// on the key, as DeepL's free keys do), http or https only, retries up
    /// to `maxRetries` with delays bounded by the timeout.
    public static func make(_ provider: ProviderInfo, at position: ChainPosition, maxRetries: Int, timeoutMs: Int,
                            environment: [String: String], baseURLForKey: ((_ key: String) -> String)? = nil,
                            trace: ProviderTrace? = nil) throws(ProviderSetupError) -> RemoteService {
        let keyVariable = position.apiKeyEnv.isEmpty ? provider.keyVariable : position.apiKeyEnv
        let key = environment[keyVariable] ?? ""
        if key.isEmpty && provider.keyRequired {
            throw ProviderSetupError("\(keyVariable) is not set: export your \(provider.name) API key in it, or use provider=local")
        }
        let url = position.baseURL.isEmpty ? (baseURLForKey?(key) ?? provider.baseURL) : position.baseURL
        guard !url.isEmpty else {
            throw ProviderSetupError("provider=\(provider.name) needs base-url, e.g. base-url=http://127.0.0.1:8080/v1")
        }
        guard let scheme = URLComponents(string: url)?.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw ProviderSetupError("base-url must be an http or https URL, not \"\(url)\"")
        }
        var policy = RetryPolicy(maxAttempts: maxRetries + 1)
        policy.maxDelay = .milliseconds(Int64(timeoutMs))
        var sender = RetryingSender(client: HTTPClient(), policy: policy)
        // The provider's words in a trace may quote the key back: never logged.
        sender.trace = trace?.map { Redaction.redact($0, secrets: [key]) }
        return RemoteService(baseURL: url, apiKey: key, sender: sender,
                             timeout: .milliseconds(Int64(timeoutMs)), keyVariable: keyVariable)
    }
}
