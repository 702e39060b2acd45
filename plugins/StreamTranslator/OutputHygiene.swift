import Foundation

/// What LLMs wrap around a translation that the source did not have: a
/// preamble ("Sure, here is the translation:"), quotes around the whole
/// answer, a trailing note ("(Note: ...)"), runs of white space.
enum OutputHygiene {
    static let preambles = [
        #"^\s*(sure|certainly|of course|okay|ok)[,!.]?\s*"#,
        #"^\s*here(’|')?s?( is| are)? (the|your|my) (translation|translated text)[^:\n]*:\s*"#,
        #"^\s*(the )?translation( in [a-z]+)?\s*:\s*"#,
    ]
    static let notes = #"\n+\s*\(?\s*(note|nota|remarque|anmerkung)\s*:.*$"#

    static func clean(_ text: String, source: String) -> String {
        var result = text
        for pattern in preambles {
            result = result.replacingOccurrences(of: pattern, with: "", options: [.regularExpression, .caseInsensitive])
        }
        result = result.replacingOccurrences(of: notes, with: "", options: [.regularExpression, .caseInsensitive])
        result = result.replacingOccurrences(of: #"\s+"#, with: " ", options: .regularExpression)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let quotes: [(Character, Character)] = [("\"", "\""), ("“", "”"), ("«", "»"), ("'", "'")]
        let sourceTrimmed = source.trimmingCharacters(in: .whitespacesAndNewlines)
        for (open, close) in quotes where result.count >= 2 && result.first == open && result.last == close {
            if !(sourceTrimmed.first == open && sourceTrimmed.last == close) {
                result = String(result.dropFirst().dropLast()).trimmingCharacters(in: .whitespaces)
            }
        }
        return result
    }
}
