import Foundation

/// Reads SubRip and WebVTT as a player would, independently of the code
/// that writes them: a cue is a timing line ("00:00:01,000 --> 00:00:02,500",
/// "." in WebVTT) followed by at least one line of text.
public enum SubtitleCheck {
    public struct Cue: Equatable {
        public var start: Double
        public var end: Double
        public var text: String
    }

    /// The cues of a file; a malformed timing line or a cue without text makes it unreadable (empty).
    public static func cues(_ file: String) -> [Cue] {
        var cues: [Cue] = []
        let blocks = file.replacingOccurrences(of: "\r\n", with: "\n").components(separatedBy: "\n\n")
        for block in blocks {
            let lines = block.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
            guard let timing = lines.firstIndex(where: { $0.contains("-->") }) else { continue }
            let parts = lines[timing].components(separatedBy: " --> ")
            guard parts.count == 2, let start = seconds(parts[0]), let end = seconds(parts[1]), start <= end,
                  timing + 1 < lines.count else { return [] }
            cues.append(Cue(start: start, end: end, text: lines[(timing + 1)...].joined(separator: "\n")))
        }
        return cues
    }

    static func seconds(_ text: String) -> Double? {
        let fields = text.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: ",", with: ".").split(separator: ":")
        guard fields.count == 3, let h = Double(fields[0]), let m = Double(fields[1]), let s = Double(fields[2]) else { return nil }
        return h * 3600 + m * 60 + s
    }
}

/// Whether a text reads as Spanish rather than English: its function words.
public enum SpanishCheck {
    static let spanish: Set<String> = ["el", "la", "los", "las", "un", "una", "de", "del", "que", "y", "en", "es", "no", "por",
                                       "para", "con", "se", "su", "más", "fue", "era", "ser", "al", "lo", "como", "pero"]
    static let english: Set<String> = ["the", "and", "was", "is", "of", "to", "he", "she", "an", "that", "with", "for", "not"]

    public static func isSpanish(_ text: String) -> Bool {
        let words = text.lowercased().split { !$0.isLetter }.map(String.init)
        let es = words.filter(spanish.contains).count, en = words.filter(english.contains).count
        return !words.isEmpty && es > en
    }
}
