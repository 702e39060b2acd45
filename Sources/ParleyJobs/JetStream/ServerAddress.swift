import Foundation

/// Where the NATS server is and how to log in, from `--nats URL` and the
/// environment.
///
/// Credentials never come from the command line (argv is visible to every
/// user of the machine): `NATS_TOKEN`, or `NATS_USER` and `NATS_PASSWORD`. A URL
/// that carries a user part is refused for the same reason.
///
/// Nothing crosses a network in clear unless the user asks: a `nats://` URL
/// whose host is not loopback is refused without `allowPlaintext`
/// (`--allow-plaintext`); `tls://` (or `nats://` with `NATS_TLS=1`) encrypts,
/// checking the server against the system's CAs or `NATS_CA` (a PEM file).
public struct ServerAddress: Sendable, CustomStringConvertible {
    public enum Credentials: Sendable, Equatable {
        case none
        case token(String)
        case user(String, password: String)
    }

    /// The URL the client connects to (scheme, host, port; no credentials).
    public let url: String
    public let host: String
    public let port: Int
    public let secure: Bool
    public let credentials: Credentials
    /// A PEM file of CAs to trust instead of the system's, for `tls://`.
    public let trustedCAFile: String?

    public var description: String { url }

    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
    }

    public init(_ text: String, allowPlaintext: Bool = false,
                environment: [String: String] = ProcessInfo.processInfo.environment) throws(Invalid) {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
              let host = components.host, !host.isEmpty else {
            throw Invalid(description: "--nats \(text.contains("@") ? "(a URL with credentials)" : "'\(text)'"): not a URL; expected nats://HOST:4222 or tls://HOST:4222")
        }
        guard components.user == nil, components.password == nil else {
            throw Invalid(description: "--nats: credentials in the URL would show in the process list; set NATS_TOKEN, or NATS_USER and NATS_PASSWORD, instead")
        }
        guard scheme == "nats" || scheme == "tls" else {
            throw Invalid(description: "--nats \(text): unknown scheme '\(scheme)'; expected nats:// or tls://")
        }
        let secure = scheme == "tls" || environment["NATS_TLS"] == "1"
        let loopback = host == "localhost" || host.hasPrefix("127.") || host == "::1" || host == "[::1]"
        if !secure && !loopback && !allowPlaintext {
            throw Invalid(description: "--nats \(text): \(host) is not this machine, and nats:// sends jobs, audio and credentials in clear; use tls://\(host):\(components.port ?? 4222), or pass --allow-plaintext on a network you trust")
        }
        self.host = host
        self.port = components.port ?? 4222
        self.secure = secure
        self.url = "\(secure ? "tls" : "nats")://\(host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host):\(port)"
        if let token = environment["NATS_TOKEN"], !token.isEmpty {
            credentials = .token(token)
        } else if let user = environment["NATS_USER"], !user.isEmpty {
            credentials = .user(user, password: environment["NATS_PASSWORD"] ?? "")
        } else {
            credentials = .none
        }
        trustedCAFile = environment["NATS_CA"].flatMap { $0.isEmpty ? nil : $0 }
    }
}
