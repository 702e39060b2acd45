import Foundation

/// A multipart/form-data body (RFC 7578), as the transcription APIs take it.
public struct MultipartForm: Sendable {
    public let boundary: String
    private var body = Data()

    public init(boundary: String = "parley-\(UUID().uuidString)") { self.boundary = boundary }

    public var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    public mutating func add(field name: String, value: String) {
        body.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(Self.escape(name))\"\r\n\r\n".utf8))
        body.append(Data(value.utf8))
        body.append(Data("\r\n".utf8))
    }

    public mutating func add(file name: String, filename: String, contentType: String, data: Data) {
        body.append(Data(("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(Self.escape(name))\"; "
            + "filename=\"\(Self.escape(filename))\"\r\nContent-Type: \(contentType)\r\n\r\n").utf8))
        body.append(data)
        body.append(Data("\r\n".utf8))
    }

    /// The finished body.
    public var data: Data { body + Data("--\(boundary)--\r\n".utf8) }

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\r", with: "").replacingOccurrences(of: "\n", with: "")
    }
}
