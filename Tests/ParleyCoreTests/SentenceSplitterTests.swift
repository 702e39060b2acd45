import ParleyCore
import Testing

@Suite struct SentenceSplitterTests {
    @Test func splitsAtSentenceEndsAndKeepsTheUnfinishedRest() {
        let (sentences, rest) = SentenceSplitter.split("Hola. ¿Qué tal? Bien", final: false)
        #expect(sentences == ["Hola.", "¿Qué tal?"])
        #expect(rest.trimmingCharacters(in: .whitespaces) == "Bien")
        #expect(SentenceSplitter.split("Hola. ¿Qué tal? Bien", final: true).sentences == ["Hola.", "¿Qué tal?", "Bien"])
    }

    @Test func abbreviationsDecimalsAndInitialsDoNotEndASentence() {
        let text = "Mr. Smith paid 3.5 dollars to J. Austen. Then he left. "
        #expect(SentenceSplitter.split(text, final: false).sentences == ["Mr. Smith paid 3.5 dollars to J. Austen.", "Then he left."])
        #expect(SentenceSplitter.split("La Sra. García llegó. Fin", final: false).sentences == ["La Sra. García llegó."])
    }

    @Test func cjkFullStopsEndASentenceWithoutASpace() {
        #expect(SentenceSplitter.split("你好。我很好！还有", final: false).sentences == ["你好。", "我很好！"])
    }

    @Test func closingQuotesStayWithTheirSentence() {
        #expect(SentenceSplitter.split("He said \"stop.\" Then", final: false).sentences == ["He said \"stop.\""])
    }

    @Test func aSentenceNotYetFollowedBySpaceMayStillGrow() {
        #expect(SentenceSplitter.split("It costs 3.", final: false).sentences.isEmpty, "3. may become 3.5")
    }
}
