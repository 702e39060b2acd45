import Foundation
import Testing
@testable import CloudSTT

/// gpt-4o transcription events, fed in two pieces split at every byte.
@Suite struct StreamStateTests {
    static let wire = """
        data: {"type":"transcript.text.delta","delta":"He was "}

        data: {"type":"transcript.text.delta","delta":"not ill-"}

        data: {"type":"transcript.text.delta","delta":"disposed."}

        data: {"type":"transcript.text.done","text":"He was not ill-disposed."}


        """

    @Test func deltasAddUpAndTheDoneEventGivesTheFinalText() {
        let bytes = Array(Self.wire.utf8)
        for cut in 0...bytes.count {
            let stream = StreamState()
            let updates = stream.feed(Data(bytes[..<cut])) + stream.feed(Data(bytes[cut...]))
            #expect(updates == ["He was ", "He was not ill-", "He was not ill-disposed."], "cut at \(cut)")
            #expect(stream.finalText == "He was not ill-disposed.")
        }
    }

    @Test func withoutADoneEventTheDeltasAreTheText() {
        let stream = StreamState()
        _ = stream.feed(Data("data: {\"type\":\"transcript.text.delta\",\"delta\":\"Hola\"}\n\n".utf8))
        #expect(stream.finalText == "Hola")
        #expect(StreamState().finalText == nil)
    }
}
