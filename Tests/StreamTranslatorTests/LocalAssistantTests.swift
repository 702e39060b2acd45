import Foundation
import Testing
@testable import AssistantEngine

@Suite struct LocalAssistantTests {
    let assistant = LocalAssistant()
    // 23 November 2026, 14:05 UTC.
    let now = Date(timeIntervalSince1970: 1_795_442_700)
    let utc = TimeZone(identifier: "UTC")!

    @Test func tellsTheTimeAndTheDate() {
        #expect(assistant.answer("What time is it?", previous: [], now: now, timeZone: utc) == "It is 14:05.")
        #expect(assistant.answer("what's the date today", previous: [], now: now, timeZone: utc) == "Today is Monday, 23 November 2026.")
        #expect(assistant.answer("What day is it?", previous: [], now: now, timeZone: utc) == "Today is Monday, 23 November 2026.")
    }

    @Test func doesSumsWithDigitsOrWords() {
        #expect(assistant.answer("What is 12 times 7?", previous: []) == "12 times 7 is 84.")
        #expect(assistant.answer("fifteen... no, 15 divided by 4", previous: []) == "15 divided by 4 is 3.75.")
        #expect(assistant.answer("three plus four", previous: []) == "3 plus 4 is 7.")
        #expect(assistant.answer("what's 2 minus 9", previous: []) == "2 minus 9 is -7.")
        #expect(assistant.answer("5 divided by 0", previous: []) == "5 divided by zero has no answer.")
    }

    @Test func repeatsWhatWasSaidFromTheContext() {
        #expect(assistant.answer("What did I just say?", previous: ["Book a table for two."]) == "You said: Book a table for two.")
        #expect(assistant.answer("Repeat that.", previous: []) == "You have not said anything before this.")
    }

    @Test func answersEveryQuestionOfATurnInOrder() {
        // Whisper's transcript of one turn with three questions and no pause long enough to cut it.
        let turn = "What time is it? What is 12 plus 30? What did I say?"
        #expect(assistant.answer(turn, previous: ["Hola."], now: now, timeZone: utc)
                == "It is 14:05. 12 plus 30 is 42. You said: Hola.")
        #expect(assistant.answer("Hello! What's the date? What day is it today?", previous: [], now: now, timeZone: utc)
                == "Today is Monday, 23 November 2026.")
        #expect(assistant.answer("Hi there.", previous: []) == "Hello! Ask me the time, the date or a sum.")
        #expect(assistant.answer("Who are you? And 2.5 times 4?", previous: []) == "2.5 times 4 is 10. Offline I cannot answer: Who are you?")
    }

    @Test func cutsSentencesAtTheirEndsNotAtDecimalPoints() {
        #expect(LocalAssistant.sentences(of: "Well... 2.5 times 4. Thanks!  ") == ["Well...", "2.5 times 4.", "Thanks!"])
        #expect(LocalAssistant.sentences(of: "no end") == ["no end"])
        #expect(LocalAssistant.sentences(of: " ?! ") == ["?", "!"])
    }

    @Test func saysWhatItCannotDoInsteadOfMakingSomethingUp() {
        let answer = assistant.answer("Who wrote Sense and Sensibility?", previous: [])
        #expect(answer.hasPrefix("I heard: Who wrote Sense and Sensibility?"))
        #expect(answer.contains("provider=openai,local"))
    }
}
