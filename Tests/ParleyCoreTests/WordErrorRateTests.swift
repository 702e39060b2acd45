import Testing
@testable import ParleyCore

@Suite struct WordErrorRateTests {
    @Test func punctuationCaseHyphensAndDigitsDoNotCount() {
        let score = WordErrorRate.score(reference: "he was not an ill disposed young man",
                                        hypothesis: "He was not an ill-disposed young man.")
        #expect(score.errors == 0)
        #expect(WordErrorRate.words("Go forward 10 meters, party's 1234") ==
                ["go", "forward", "ten", "meters", "partys", "one", "thousand", "two", "hundred", "thirty", "four"])
    }

    /// An extension or a PIN said digit by digit is one number whichever
    /// way it is written; digits apart in a sentence stay apart.
    @Test func aNumberSaidDigitByDigitIsOneNumber() {
        #expect(WordErrorRate.score(reference: "If you dial 1234 you can", hypothesis: "If you dial 1 2 3 4, you can").errors == 0)
        #expect(WordErrorRate.score(reference: "you can dial 500 to attempt", hypothesis: "you can dial 5 00 to attempt").errors == 0)
        #expect(WordErrorRate.score(reference: "dial 500", hypothesis: "dial 5 0 0").errors == 0)
        #expect(WordErrorRate.words("press 4 or 6, a 28.8 modem") == ["press", "four", "or", "six", "a", "twenty", "eight", "eight", "modem"])
        #expect(WordErrorRate.score(reference: "dial 1234", hypothesis: "dial 1 2 3").errors > 0, "a digit missing is still an error")
    }

    @Test func substitutionsDeletionsAndInsertionsEachCountOnce() {
        // "cold" → "old" (substitution), "rather" dropped (deletion), "very" added (insertion).
        let score = WordErrorRate.score(reference: "rather cold hearted and rather selfish",
                                        hypothesis: "rather old hearted and selfish very")
        #expect(score == WordErrorRate.Score(errors: 3, referenceWords: 6))
        #expect(score.rate == 0.5)
        #expect(WordErrorRate.score(reference: "", hypothesis: "").rate == 0)
        #expect(WordErrorRate.score(reference: "a b", hypothesis: "").errors == 2)
    }
}
