import ArgumentParser
import Foundation
import ParleyJobs

/// `--nats URL` and `--allow-plaintext`, shared by worker, submit and jobs.
struct NatsOptions: ParsableArguments {
    @Option(name: .customLong("nats"),
            help: "The NATS server with JetStream: nats://HOST:4222, or tls://HOST:4222 to encrypt. Default: $NATS_URL, else nats://127.0.0.1:4222. Credentials come from NATS_TOKEN, or NATS_USER and NATS_PASSWORD; NATS_CA names a PEM file of CAs for tls://.")
    var url: String?

    @Flag(help: "Allow nats:// (no encryption) to a host other than this one.")
    var allowPlaintext = false

    /// Connects and makes the streams, or exits: 2 for a bad URL, 1 when the
    /// server cannot be reached.
    func board(as client: String) throws -> JobBoard {
        let text = url ?? ProcessInfo.processInfo.environment["NATS_URL"] ?? "nats://127.0.0.1:4222"
        let address: ServerAddress
        do {
            address = try ServerAddress(text, allowPlaintext: allowPlaintext)
        } catch {
            printError("error: \(error)")
            throw ExitCode(ExitStatus.invalidInput)
        }
        do {
            let board = JobBoard(try JetStream(address, name: client))
            try board.prepare()
            return board
        } catch {
            printError("error: \(error)")
            printError("  " + Self.hint(for: error, address: address))
            throw ExitCode(ExitStatus.failed)
        }
    }
}

extension NatsOptions {
    /// What the user can do about a failed connection.
    static func hint(for error: any Error, address: ServerAddress) -> String {
        let failure = error as? JetStreamError
        if failure?.isTLSFailure == true {
            if !address.secure {
                return "the server speaks TLS: connect with tls://\(address.host):\(address.port), and name its CA's PEM file in NATS_CA unless the system trusts it"
            }
            if address.trustedCAFile == nil {
                return "the server's certificate is not signed by a CA this system trusts: name its CA's PEM file in NATS_CA"
            }
            return "the server's certificate is not signed by the CA in NATS_CA, or is not made out for \(address.host)"
        }
        if failure?.isAuthenticationFailure == true {
            return "the server wants credentials: set NATS_TOKEN, or NATS_USER and NATS_PASSWORD"
        }
        return "is nats-server running there with JetStream on (nats-server -js)?"
    }
}

/// This process's name in job events and results: `host:pid`.
func workerName() -> String {
    "\(ProcessInfo.processInfo.hostName):\(getpid())"
}
