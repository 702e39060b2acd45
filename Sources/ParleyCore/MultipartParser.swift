import Foundation

/// Reads a multipart/form-data body (RFC 7578), strictly: CRLF line breaks,
/// the boundary from the Content-Type, a Content-Disposition on every part.
public struct MultipartParser {
    public struct Part: Sendable {
        public var name: String
        public var filename: String?
        public var contentType: String?
        public var data: Data
        public var text: String { String(decoding: data, as: UTF8.self) }
    }

    public enum ParseError: Error, Sendable, CustomStringConvertible, Equatable {
        case notMultipart
        case malformed(String)

        public var description: String {
            switch self {
            case .notMultipart: "the request must be multipart/form-data with a boundary"
            case .malformed(let why): "malformed multipart body: \(why)"
            }
        }
    }

    /// The boundary named in a Content-Type header.
    public static func boundary(contentType: String) -> String? {
        guard contentType.lowercased().hasPrefix("multipart/form-data") else { return nil }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2, pair[0].lowercased() == "boundary" {
                return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            }
        }
        return nil
    }

    public static func parse(_ body: Data, contentType: String) throws(ParseError) -> [Part] {
        guard let boundary = boundary(contentType: contentType), !boundary.isEmpty else { throw .notMultipart }
        let delimiter = Data("--\(boundary)".utf8)
        let crlf = Data("\r\n".utf8)
        guard let first = body.range(of: delimiter) else { throw .malformed("no boundary in the body") }
        var parts: [Part] = []
        var cursor = first.upperBound
        while true {
            // After a delimiter: "--" ends the body, CRLF starts a part.
            if body[cursor...].starts(with: Data("--".utf8)) { return parts }
            guard body[cursor...].starts(with: crlf) else { throw .malformed("expected CRLF after the boundary") }
            cursor += 2
            guard let headerEnd = body.range(of: Data("\r\n\r\n".utf8), in: cursor..<body.endIndex) else {
                throw .malformed("a part has no end of headers")
            }
            let headers = String(decoding: body[cursor..<headerEnd.lowerBound], as: UTF8.self)
            guard let next = body.range(of: crlf + delimiter, in: headerEnd.upperBound..<body.endIndex) else {
                throw .malformed("a part is not closed by the boundary")
            }
            parts.append(try part(headers: headers, data: body[headerEnd.upperBound..<next.lowerBound]))
            cursor = next.upperBound
        }
    }

    private static func part(headers: String, data: Data) throws(ParseError) -> Part {
        var name: String?, filename: String?, contentType: String?
        for line in headers.components(separatedBy: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { throw .malformed("header line without a colon") }
            let field = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if field == "content-type" { contentType = value }
            if field == "content-disposition" {
                for parameter in value.split(separator: ";").dropFirst() {
                    let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                    guard pair.count == 2 else { continue }
                    let unquoted = pair[1].hasPrefix("\"") && pair[1].hasSuffix("\"") && pair[1].count >= 2
                        ? String(pair[1].dropFirst().dropLast()) : pair[1]
                    if pair[0] == "name" { name = unquoted }
                    if pair[0] == "filename" { filename = unquoted }
                }
            }
        }
        guard let name else { throw .malformed("a part has no Content-Disposition name") }
        return Part(name: name, filename: filename, contentType: contentType, data: Data(data))
    }
}
