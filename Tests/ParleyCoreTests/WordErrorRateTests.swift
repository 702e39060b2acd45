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
