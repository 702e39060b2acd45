import Foundation
import Testing
@testable import StreamTranslator

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

    @Test func saysWhatItCannotDoInsteadOfMakingSomethingUp() {
        let answer = assistant.answer("Who wrote Sense and Sensibility?", previous: [])
        #expect(answer.hasPrefix("I heard: Who wrote Sense and Sensibility?"))
        #expect(answer.contains("provider=openai,local"))
    }
}
