/// Cuts streamed text into sentences as they complete, so speech can start
/// before a translation ends. A sentence ends at `.`, `!`, `?`, `…` (and the
/// CJK `。！？`) followed by white space or the end of the text; a full stop
/// inside a number ("3.5"), after a known abbreviation ("Mr.", "Sra.") or an
/// initial ("J.") does not end one. CJK full stops end one at once.
public enum SentenceSplitter {
    static let abbreviations: Set<String> = [
        "mr", "mrs", "ms", "dr", "prof", "sr", "sra", "srta", "st", "vs", "etc", "e.g", "i.e", "no", "approx",
        "mme", "mlle", "m", "dott", "sig", "sig.ra", "hr", "fr", "nr", "bzw", "usw", "z.b", "ca", "jr", "inc", "ltd",
    ]

    /// The sentences completed in `text` and where the unfinished rest
    /// starts. With `final`, the rest is a sentence too.
    public static func split(_ text: String, final: Bool) -> (sentences: [String], rest: Substring) {
        var sentences: [String] = []
        var start = text.startIndex
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            let next = text.index(after: index)
            if "。！？".contains(character) {
                appendSentence(text[start..<next], to: &sentences)
                start = next
            } else if ".!?…".contains(character) {
                // Closing quotes and brackets belong to the sentence.
                var end = next
                while end < text.endIndex, "\"'”’»)]".contains(text[end]) { end = text.index(after: end) }
                let followedBySpace = end < text.endIndex && text[end].isWhitespace
                if followedBySpace && !(character == "." && isAbbreviation(before: index, in: text, from: start)) {
                    appendSentence(text[start..<end], to: &sentences)
                    start = end
                    index = end
                    continue
                }
            }
            index = next
        }
        if final {
            appendSentence(text[start...], to: &sentences)
            return (sentences, text[text.endIndex...])
        }
        return (sentences, text[start...])
    }

    private static func appendSentence(_ piece: Substring, to sentences: inout [String]) {
        let trimmed = piece.trimmingCharacters(in: .whitespacesAndNewlines)
        if !trimmed.isEmpty { sentences.append(trimmed) }
    }

    /// The word before a full stop is an abbreviation or a single-letter initial.
    private static func isAbbreviation(before dot: String.Index, in text: String, from start: String.Index) -> Bool {
        var wordStart = dot
        while wordStart > start {
            let previous = text.index(before: wordStart)
            if text[previous].isWhitespace { break }
            wordStart = previous
        }
        let word = text[wordStart..<dot].lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "\"'(«“"))
        if word.count == 1 && text[wordStart].isUppercase { return true }  // an initial: "J."

        return abbreviations.contains(word)
    }
}

import Foundation
