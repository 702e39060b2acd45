/// Whisper's best-known failure on a short window: the decoder gets stuck
/// and repeats what it wrote until its token budget runs out. Heard through
/// `gst-launch-1.0 … cloudstt local-engine=whisper partials-every-ms=500` on
/// LibriVox's "He was not an ill disposed young man": "He was not he was not
/// he was not he was" over its first second, "He was not an ill-sposed young
/// man, he was not an ill-sp" over its first 2.5 s. A preview pass over an
/// open segment's first seconds meets it often; the final, over the whole
/// segment, rarely.
///
/// `trimmed` keeps the phrase once when it repeats to the very end of the
/// text (the last word possibly cut short) for long enough that speech
/// would hardly do it: a single word three more times, a phrase of two or
/// three words twice more, a longer phrase (up to `longestPhrase` words) for
/// four more words. A repetition that the text goes on after ("no no no,
/// not that") is speech, and kept. Words are compared as LocalAgreement
/// compares them (no case or punctuation).
enum RepetitionLoop {
    static let longestPhrase = 16

    static func trimmed(_ words: [String]) -> [String] {
        let plain = words.map(LocalAgreement.normalized)
        for start in plain.indices {
            for length in 1...longestPhrase where start + length <= plain.count {
                if loops(plain, from: start, length: length) { return Array(words[..<(start + length)]) }
            }
        }
        return words
    }

    /// How many words after a phrase of `length` words must repeat it for a loop.
    static func repeatsNeeded(_ length: Int) -> Int {
        switch length {
        case 1: 3
        case 2, 3: 2 * length
        default: 4
        }
    }

    /// Whether the phrase of `length` words at `start` repeats to the end of the text.
    private static func loops(_ words: [String], from start: Int, length: Int) -> Bool {
        let repeated = words.count - start - length
        guard repeated >= repeatsNeeded(length) else { return false }
        for offset in length..<(length + repeated) {
            let word = words[start + offset], phrase = words[start + offset % length]
            let last = offset == length + repeated - 1
            guard word == phrase || (last && !word.isEmpty && phrase.hasPrefix(word)) else { return false }
        }
        return true
    }
}
