import Testing
@testable import CloudSTT

/// Partial transcripts of an open segment settle as consecutive passes agree.
@Suite struct LocalAgreementTests {
    func words(_ text: String) -> [String] { text.split(separator: " ").map(String.init) }

    @Test func wordsTwoPassesAgreeOnFromTheStartAreStable() {
        var agreement = LocalAgreement()
        #expect(agreement.pass(words("please press")) == 0, "one pass settles nothing")
        #expect(agreement.text == "please press")
        #expect(agreement.pass(words("Please press one to")) == 2, "case and punctuation do not count")
        #expect(agreement.stable == ["Please", "press"] && agreement.tentative == ["one", "to"])
        #expect(agreement.pass(words("Please press 1 to mute")) == 2, "one → 1 disagrees: nothing after it settles")
        #expect(agreement.pass(words("Please press 1 to mute or")) == 5)
        #expect(agreement.text == "Please press 1 to mute or")
    }

    @Test func aStableWordIsNeverTakenBack() {
        var agreement = LocalAgreement()
        agreement.pass(words("log in incorrect"))
        agreement.pass(words("log in incorrect please"))
        #expect(agreement.stable == words("log in incorrect"))
        // A later pass writes the settled words otherwise: they stay as they were.
        #expect(agreement.pass(words("login, incorrect. Please try")) == 4, "the same letters: Please agrees")
        #expect(agreement.text == "log in incorrect Please try", "\(agreement.text)")
        #expect(agreement.pass(words("login, incorrect. Please try again")) == 5)
        // One that hears them otherwise changes only the words after them.
        #expect(agreement.pass(words("log on incorrect please try again now")) == 6, "word for word after the five settled")
        #expect(agreement.text == "log in incorrect Please try again now", "\(agreement.text)")
    }

    @Test func aShorterPassKeepsTheStableWords() {
        var agreement = LocalAgreement()
        agreement.pass(words("the conference is now locked"))
        agreement.pass(words("the conference is now locked"))
        #expect(agreement.pass(words("the conference")) == 5)
        #expect(agreement.tentative.isEmpty && agreement.text == "the conference is now locked")
    }
}

/// A preview pass stuck repeating a phrase shows the phrase once.
@Suite struct RepetitionLoopTests {
    func words(_ text: String) -> [String] { text.split(separator: " ").map(String.init) }

    @Test func aPhraseRepeatedToTheEndIsKeptOnce() {
        #expect(RepetitionLoop.trimmed(words("He was not he was not he was not he was")) == words("He was not"))
        #expect(RepetitionLoop.trimmed(words("Please press one. Press one. Press one. Press one.")) == words("Please press one."))
        #expect(RepetitionLoop.trimmed(words("the the the the")) == words("the"))
        // Heard through gst-launch on LibriVox: a sentence started again, cut short mid-word.
        #expect(RepetitionLoop.trimmed(words("He was not an ill-sposed young man, he was not an ill-sp"))
                == words("He was not an ill-sposed young man,"))
        #expect(RepetitionLoop.trimmed(words("Unless to be rather cold-hearted, and unless to be rather cold-hearted, and"))
                == words("Unless to be rather cold-hearted, and"))
    }

    @Test func speechThatRepeatsButGoesOnIsKept() {
        for text in ["no no no, not that", "he was not he was not he was not an ill disposed young man",
                     "very very very", "bye bye", "one two one two", "He was not an ill disposed young man",
                     "I said it, I said", "please press one to mute, please press"] {
            #expect(RepetitionLoop.trimmed(words(text)) == words(text), "\(text)")
        }
        #expect(RepetitionLoop.trimmed([]) == [])
    }
}
