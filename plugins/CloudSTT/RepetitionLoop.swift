/// Whisper's best-known failure on a short window: the decoder gets stuck
/// and repeats a phrase until its token budget runs out ("He was not he was
/// not he was not he was" for the first second of "He was not an ill
/// disposed young man"). A preview pass over an open segment's first
/// second or two meets it often; the final, over the whole segment, rarely.
///
/// `trimmed` keeps the phrase once when it repeats to the very end of the
/// text: at least three times in a row for a phrase of two to eight words,
/// four for a single word, the last time possibly cut short. A repetition
/// that the text goes on after ("no no no, not that") is speech, and kept.
/// Words are compared as LocalAgreement compares them (no case or punctuation).
enum RepetitionLoop {
    static let longestPhrase = 8

    static func trimmed(_ words: [String]) -> [String] {
        let plain = words.map(LocalAgreement.normalized)
        for start in plain.indices {
            for length in 1...longestPhrase where start + length <= plain.count {
                if loops(plain, from: start, length: length) { return Array(words[..<(start + length)]) }
            }
        }
        return words
    }

    /// Whether the phrase of `length` words at `start` repeats to the end of the text.
    private static func loops(_ words: [String], from start: Int, length: Int) -> Bool {
        let tail = words.count - start
        guard tail >= length * (length == 1 ? 4 : 3) else { return false }
        for offset in 0..<tail where words[start + offset] != words[start + offset % length] { return false }
        return true
    }
}
