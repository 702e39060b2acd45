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

    /// More parts than any OpenAI request has are refused: a body of
    /// thousands of tiny parts is an attack, not a request.
    public static let maxParts = 64

    /// Parses the body in one pass: each search starts where the last ended.
    public static func parse(_ body: Data, contentType: String) throws(ParseError) -> [Part] {
        guard let boundary = boundary(contentType: contentType), !boundary.isEmpty else { throw .notMultipart }
        let bytes = [UInt8](body)
        let delimiter = Array("--\(boundary)".utf8)
        let closing = Array("\r\n--\(boundary)".utf8)
        let headerEnd = Array("\r\n\r\n".utf8)
        guard let first = find(delimiter, in: bytes, from: 0) else { throw .malformed("no boundary in the body") }
        var parts: [Part] = []
        var cursor = first + delimiter.count
        while true {
            // After a delimiter: "--" ends the body, CRLF starts a part.
            if bytes.count >= cursor + 2, bytes[cursor] == 0x2D, bytes[cursor + 1] == 0x2D { return parts }
            guard bytes.count >= cursor + 2, bytes[cursor] == 0x0D, bytes[cursor + 1] == 0x0A else {
                throw .malformed("expected CRLF after the boundary")
            }
            guard parts.count < maxParts else { throw .malformed("more than \(maxParts) parts") }
            cursor += 2
            guard let headersEnd = find(headerEnd, in: bytes, from: cursor) else { throw .malformed("a part has no end of headers") }
            let headers = String(decoding: bytes[cursor..<headersEnd], as: UTF8.self)
            let dataStart = headersEnd + headerEnd.count
            guard let next = find(closing, in: bytes, from: dataStart) else { throw .malformed("a part is not closed by the boundary") }
            parts.append(try part(headers: headers, data: Data(bytes[dataStart..<next])))
            cursor = next + closing.count
        }
    }

    /// The first index at or after `start` where `needle` begins: memchr to
    /// each candidate first byte, then a compare; linear for a needle of
    /// bounded length (a boundary is at most 70 bytes).
    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard let first = needle.first, start <= haystack.count else { return nil }
        return haystack.withUnsafeBytes { hay -> Int? in
            guard let base = hay.baseAddress else { return nil }
            var position = start
            while position + needle.count <= hay.count {
                guard let hit = memchr(base + position, Int32(first), hay.count - position - needle.count + 1) else { return nil }
                let index = base.distance(to: UnsafeRawPointer(hit))
                if memcmp(base + index, needle, needle.count) == 0 { return index }
                position = index + 1
            }
            return nil
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
