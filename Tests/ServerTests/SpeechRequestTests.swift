import Foundation
import ParleyServer
import Testing

/// What parley serve makes of a /v1/audio/speech body before any synthesis:
/// OpenAI's defaults, and a refusal naming the field that is wrong.
@Suite struct SpeechRequestTests {
    func read(_ json: String) throws(SpeechRequest.Refusal) -> SpeechRequest { try SpeechRequest(json: Data(json.utf8)) }

    @Test func openAIsDefaultsFillWhatIsLeftOut() throws {
        let request = try read(#"{"model":"tts-1","input":"  Hello\u0000there "}"#)
        #expect(request.input == "Hello there")
        #expect(request.format == .mp3 && request.variant == "" && request.speed == 1 && request.language == "en")
        let chosen = try read(#"{"input":"Hola","voice":"NOVA","response_format":"pcm","speed":0.25,"language":"es"}"#)
        #expect(chosen.variant == "f3" && chosen.format == .pcm && chosen.speed == 0.25 && chosen.language == "es")
    }

    @Test(arguments: [
        (#"{"voice":"alloy"}"#, "input"),
        (#"{"input":"   "}"#, "input"),
        (#"{"input":"hi","response_format":"ogg"}"#, "response_format"),
        (#"{"input":"hi","voice":"bogus\u001b[31m"}"#, "voice"),
        (#"{"input":"hi","speed":4.5}"#, "speed"),
        (#"not json"#, "input"),
    ])
    func eachRefusalNamesItsField(body: String, param: String) {
        do {
            _ = try read(body)
            Issue.record("\(body) was accepted")
        } catch {
            #expect(error.param == param, "\(error.message)")
            #expect(!error.message.contains("\u{1B}"), "what the client sent is shown safely")
        }
    }

    @Test func anInputOverOpenAIsLimitIsRefused() {
        let long = String(repeating: "a", count: SpeechRequest.maxInput + 1)
        #expect(throws: SpeechRequest.Refusal.self) { try read(#"{"input":"\#(long)"}"#) }
        #expect((try? read(#"{"input":"\#(long.dropLast())"}"#)) != nil)
    }
}
