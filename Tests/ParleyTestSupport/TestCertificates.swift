import Foundation

/// A throwaway certificate authority and a server certificate it signed for
/// 127.0.0.1, made with Debian's `openssl` in a folder of the test's: what a
/// TLS server in a test presents and what its clients are told to trust.
public struct TestCertificates: Sendable {
    public static let openssl = "/usr/bin/openssl"
    public static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: openssl) }

    /// The authority's certificate (PEM): the file to trust.
    public let authority: URL
    /// The server's certificate (PEM), valid for IP 127.0.0.1 and localhost.
    public let certificate: URL
    /// The server's private key (PEM).
    public let key: URL

    public init(in folder: URL) async throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        authority = folder.appendingPathComponent("ca.pem")
        certificate = folder.appendingPathComponent("server.pem")
        key = folder.appendingPathComponent("server.key")
        let authorityKey = folder.appendingPathComponent("ca.key").path
        let request = folder.appendingPathComponent("server.csr").path
        let extensions = folder.appendingPathComponent("server.ext")
        try "subjectAltName=IP:127.0.0.1,DNS:localhost\n".write(to: extensions, atomically: true, encoding: .utf8)
        let curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        for arguments in [
            ["req", "-x509"] + curve + ["-keyout", authorityKey, "-out", authority.path, "-days", "2", "-subj", "/CN=Parley test CA"],
            ["req"] + curve + ["-keyout", key.path, "-out", request, "-subj", "/CN=127.0.0.1"],
            ["x509", "-req", "-in", request, "-CA", authority.path, "-CAkey", authorityKey, "-CAcreateserial",
             "-out", certificate.path, "-days", "2", "-extfile", extensions.path],
        ] {
            let made = try await TestSupport.run(Self.openssl, arguments)
            guard made.status == 0 else {
                throw HelperFailure(description: "openssl \(arguments[0]) failed: \(made.stderr)")
            }
        }
    }
}
