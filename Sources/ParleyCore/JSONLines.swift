import Foundation

/// JSON Lines as Parley writes them (session logs, corpus manifests, bench
/// records): one object per line, keys sorted, slashes left as they are.
public enum JSONLines {
    /// One value as one line, without its newline.
    public static func line<T: Encodable>(_ value: T) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }

    /// The values, a line each, every line ending in a newline.
    public static func text<T: Encodable>(_ values: [T]) throws -> String {
        try values.map { String(decoding: try line($0), as: UTF8.self) + "\n" }.joined()
    }
}
