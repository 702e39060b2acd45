import CNats

/// A failure of the NATS client or of a JetStream request, with what Parley was
/// doing when it happened. Never carries credentials: URLs are shown without
/// their user part.
public struct JetStreamError: Error, CustomStringConvertible, Sendable {
    /// What Parley was doing: "connecting to nats://127.0.0.1:4222", "publishing to parley.jobs".
    public let operation: String
    /// The client's status text ("Timeout", "Connection Closed", ...).
    public let status: String
    /// JetStream's own error code (10058 = stream name in use, ...), 0 when none.
    public let code: Int
    /// True when the server or the network did not answer in time or the
    /// connection is down for now: worth trying again.
    public let isTransient: Bool
    /// True when the message or entry asked for does not exist.
    public let isNotFound: Bool
    /// The TLS handshake failed: the server wants TLS, or its certificate
    /// is not trusted.
    public let isTLSFailure: Bool
    /// The server refused the credentials (or their absence).
    public let isAuthenticationFailure: Bool

    public var description: String {
        "\(operation): \(status)" + (code != 0 ? " (JetStream error \(code))" : "")
    }

    init(_ operation: String, _ status: natsStatus, _ code: jsErrCode = jsErrCode(rawValue: 0)) {
        self.operation = operation
        var text = String(cString: natsStatus_GetText(status))
        // The client keeps the server's own sentence as the thread's last error.
        if let last = nats_GetLastError(nil), case let detail = String(cString: last), !detail.isEmpty, detail != text {
            text += " — " + detail
        }
        self.status = text
        self.code = Int(code.rawValue)
        self.isNotFound = status == NATS_NOT_FOUND || code.rawValue == 10037 /* no message found */
        self.isTLSFailure = status == NATS_SSL_ERROR
        self.isAuthenticationFailure = status == NATS_CONNECTION_AUTH_FAILED
        self.isTransient = [NATS_TIMEOUT, NATS_CONNECTION_CLOSED, NATS_CONNECTION_DISCONNECTED, NATS_NO_SERVER,
                            NATS_STALE_CONNECTION, NATS_NO_RESPONDERS, NATS_IO_ERROR].contains(status)
    }

    init(_ operation: String, message: String) {
        self.operation = operation
        self.status = message
        self.code = 0
        self.isTransient = false
        self.isNotFound = false
        self.isTLSFailure = false
        self.isAuthenticationFailure = false
    }
}
