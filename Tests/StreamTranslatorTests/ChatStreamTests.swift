import Foundation
import Testing
@testable import StreamTranslator

/// The chat completion stream parser on the exact wire format, fed in
/// pieces split at every possible byte boundary.
@Suite struct ChatStreamTests {
    static let wire = """
        : keep-alive\r
        \r
        data: {"id":"c1","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}

        data: {"id":"c1","choices":[{"index":0,"delta":{"content":"Hola, "},"finish_reason":null}]}

        data: {"id":"c1","choices":[{"index":0,"delta":{"content":"¿qué "},"finish_reason":null}]}

        data: {"id":"c1","choices":[{"index":0,"delta":{"content":"tal?"},"finish_reason":null}]}

        data: {"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}

        data: {"id":"c1","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":4,"total_tokens":13}}

        data: [DONE]


        """

    @Test func everySplitOfTheStreamGivesTheSameTextAndPartialsThatArePrefixes() {
        let bytes = Array(Self.wire.utf8)
        for cut in 0...bytes.count {
            let stream = ChatStream()
            let partials = stream.feed(Data(bytes[..<cut])) + stream.feed(Data(bytes[cut...]))
            let outcome = stream.outcome
            #expect(outcome.text == "Hola, ¿qué tal?", "cut at \(cut)")
            #expect(outcome.finishReason == .stop && outcome.done)
            #expect(partials.last == "Hola, ¿qué tal?")
            for partial in partials { #expect(outcome.text.hasPrefix(partial)) }
        }
    }

    @Test func aLengthFinishIsNotAPlainStop() {
        let stream = ChatStream()
        _ = stream.feed(Data("""
            data: {"choices":[{"delta":{"content":"Hola"},"finish_reason":null}]}

            data: {"choices":[{"delta":{},"finish_reason":"length"}]}


            """.utf8))
        #expect(stream.outcome.finishReason == .length)
    }

    @Test func aSecondRoleChunkRetractsTheBrokenAttempt() {
        let stream = ChatStream()
        let first = stream.feed(Data("""
            data: {"choices":[{"delta":{"role":"assistant"}}]}

            data: {"choices":[{"delta":{"content":"Hol"}}]}

            data: {"choices":[{"delta":{"role":"assistant"}}]}

            data: {"choices":[{"delta":{"content":"Hola"}}]}


            """.utf8))
        #expect(first == ["Hol", "", "Hola"])
        #expect(stream.outcome.text == "Hola")
    }

    @Test func anErrorEventIsAnError() {
        let stream = ChatStream()
        _ = stream.feed(Data("event: error\ndata: {\"error\":{\"message\":\"overloaded\"}}\n\n".utf8))
        #expect(stream.outcome.error == "overloaded")
    }

    @Test func outputHygieneTakesOffWhatTheSourceDidNotHave() {
        #expect(OutputHygiene.clean("Sure, here is the translation: \"Hola, ¿qué tal?\"", source: "Hello, how are you?") == "Hola, ¿qué tal?")
        #expect(OutputHygiene.clean("Hola.\n\n(Note: informal register)", source: "Hi.") == "Hola.")
        #expect(OutputHygiene.clean("  Hola   mundo \n", source: "Hello world") == "Hola mundo")
        #expect(OutputHygiene.clean("\"Hola\"", source: "\"Hello\"") == "\"Hola\"", "quotes the source had stay")
    }
}
