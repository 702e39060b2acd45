/// Word error rate, the usual way: (substitutions + deletions + insertions)
/// / reference words, after normalising both sides alike (lower case, no
/// punctuation, hyphens as spaces, digits as words, a number said digit by
/// digit as one number), so "ill-disposed," and "ill disposed", "10" and
/// "ten", or "1234" and "1 2 3 4" are not counted as errors.
public enum WordErrorRate {
    public struct Score: Sendable, Equatable {
        public var errors: Int
        public var referenceWords: Int
        public init(errors: Int, referenceWords: Int) {
            self.errors = errors
            self.referenceWords = referenceWords
        }

        public var rate: Double { referenceWords == 0 ? (errors == 0 ? 0 : 1) : Double(errors) / Double(referenceWords) }

        public static func + (a: Score, b: Score) -> Score {
            Score(errors: a.errors + b.errors, referenceWords: a.referenceWords + b.referenceWords)
        }
    }

    public static func score(reference: String, hypothesis: String) -> Score {
        let reference = words(reference), hypothesis = words(hypothesis)
        return Score(errors: editDistance(reference, hypothesis), referenceWords: reference.count)
    }

    public static func words(_ text: String) -> [String] {
        var cleaned = ""
        for character in text.lowercased() {
            if character.isLetter || character.isNumber { cleaned.append(character) }
            else if character == "'" || character == "’" { continue }  // "party's" = "partys" on both sides
            else { cleaned.append(" ") }
        }
        return digitsJoined(cleaned.split(separator: " ").map(String.init)).flatMap { word -> [String] in
            guard let number = Int(word), number < 1_000_000 else { return [word] }
            return spelled(number)
        }
    }

    /// A number said digit by digit is one number however it was written:
    /// "1 2 3 4" = "1234", "5 0 0" and "5 00" = "500" (an extension, a PIN,
    /// a phone number; Whisper writes it either way, and so do references).
    /// A run of two or more single digits, or of a digit and zeros, becomes
    /// one token; "28 8" (from "28.8", on both sides alike) is left as it is.
    static func digitsJoined(_ tokens: [String]) -> [String] {
        func isDigitPiece(_ token: String) -> Bool {
            !token.isEmpty && token.allSatisfy(\.isASCII) && token.allSatisfy(\.isNumber)
                && (token.count == 1 || token.allSatisfy { $0 == "0" })
        }
        var joined: [String] = []
        var run: [String] = []
        func flush() {
            if run.count > 1 { joined.append(run.joined()) } else { joined += run }
            run = []
        }
        for token in tokens {
            if isDigitPiece(token) { run.append(token) } else { flush(); joined.append(token) }
        }
        flush()
        return joined
    }

    /// Levenshtein distance over words.
    static func editDistance(_ a: [String], _ b: [String]) -> Int {
        guard !a.isEmpty else { return b.count }
        var previous = Array(0...b.count), current = previous
        for i in 1...a.count {
            current[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }

    private static let ones = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                               "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
                               "nineteen"]
    private static let tens = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]

    /// 1234 → one thousand two hundred thirty four.
    static func spelled(_ number: Int) -> [String] {
        if number < 20 { return [ones[number]] }
        if number < 100 { return [tens[number / 10]] + (number % 10 == 0 ? [] : [ones[number % 10]]) }
        if number < 1000 { return [ones[number / 100], "hundred"] + (number % 100 == 0 ? [] : spelled(number % 100)) }
        return spelled(number / 1000) + ["thousand"] + (number % 1000 == 0 ? [] : spelled(number % 1000))
    }
}
