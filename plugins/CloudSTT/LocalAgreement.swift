/// Which words of an open segment's partial transcripts have settled:
/// whisper_streaming's LocalAgreement-2. Each pass transcribes the segment
/// as heard so far; the words that two consecutive passes agree on, from
/// the start, are stable — later audio no longer changes them, in practice
/// — and stay stable: a later pass that hears them otherwise changes only
/// the words after them. A caption can show the stable words as written
/// and the rest as tentative. The segment's final (at its end) is a
/// transcription of its own, which may still differ.
///
/// Words are compared without case or punctuation ("yourself," = "yourself").
struct LocalAgreement: Sendable, Equatable {
    /// The words settled so far, as the pass that settled them wrote them.
    private(set) var stable: [String] = []
    /// The last pass's words after the stable ones.
    private(set) var tentative: [String] = []

    /// A pass's words (the whole segment so far); returns how many of the
    /// words now written (stable + tentative) are stable.
    @discardableResult
    mutating func pass(_ words: [String]) -> Int {
        let newer = Array(words.dropFirst(Self.wordsSaying(stable, in: words)))
        var agreed = 0
        while agreed < newer.count, agreed < tentative.count, Self.same(newer[agreed], tentative[agreed]) { agreed += 1 }
        stable += newer.prefix(agreed)
        tentative = Array(newer.dropFirst(agreed))
        return stable.count
    }

    /// The text a partial shows: the stable words, then the tentative ones.
    var text: String { (stable + tentative).joined(separator: " ") }

    static func same(_ a: String, _ b: String) -> Bool { normalized(a) == normalized(b) }

    /// How many of a pass's first words say what the stable words say,
    /// letter for letter whatever the word boundaries ("login," for "log
    /// in"); when they say something else, as many as there are stable words.
    static func wordsSaying(_ stable: [String], in words: [String]) -> Int {
        let target = stable.map(normalized).joined()
        var heard = ""
        for (index, word) in words.enumerated() {
            if heard == target { return index }
            heard += normalized(word)
            guard target.hasPrefix(heard) else { break }
        }
        return heard == target ? words.count : min(stable.count, words.count)
    }

    /// A word as compared: lower case, letters and digits only.
    static func normalized(_ word: String) -> String {
        String(word.lowercased().filter { $0.isLetter || $0.isNumber })
    }
}
