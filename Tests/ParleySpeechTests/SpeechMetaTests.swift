import GstKit
import ParleyCore
import ParleySpeech
import Testing

/// ParleySpeechMeta's fields as they travel in its custom meta's structure.
@Suite struct SpeechMetaTests {
    @Test func aMetaComesBackFromItsFieldsAsItWent() throws {
        var meta = SpeechMeta(segmentID: 7, status: .partial, language: "pt-BR", speechEndAudioTime: 1_500_000_000,
                              stamps: [.speechEnd: 10, .firstByte: 30])
        meta.revision = 2
        meta.provider = "local (apertium eng-spa)"
        meta.detail = "why"
        meta.speculativeRequests = 2
        meta.speculationUsed = true
        meta.speculationKeptMs = 7930
        let fields = meta.metaFields
        #expect(fields["status"] == .string("partial"))
        #expect(fields["speculation-used"] == .bool(true))
        #expect(fields["stamp-first-byte"] == .uint64(30))
        #expect(fields["stamp-request-sent"] == nil, "an unstamped stage has no field")
        #expect(SpeechMeta(metaFields: fields) == meta)
    }

    @Test func anUnknownSpeechEndHasNoFieldAndProviderTextsAreBoundedAtACharacter() throws {
        var meta = SpeechMeta(segmentID: 1)
        meta.provider = String(repeating: "é", count: 40)  // 80 bytes
        let fields = meta.metaFields
        #expect(fields["speech-end"] == nil)
        #expect(fields["speculative-requests"] == nil && fields["speculation-used"] == nil && fields["speculation-kept-ms"] == nil,
                "nothing speculated, no fields")
        let back = try #require(SpeechMeta(metaFields: fields))
        #expect(back.speechEndAudioTime == Gst.clockTimeNone)
        #expect(back.provider == String(repeating: "é", count: 31), "63 bytes at most, cut between characters")
    }

    @Test func fieldsThatAreNotASpeechMetaAreRefused() {
        #expect(SpeechMeta(metaFields: Structure("ParleySpeechMeta", [("segment-id", .uint64(1))])) == nil)
        #expect(SpeechMeta(metaFields: Structure("ParleySpeechMeta", [("segment-id", .uint64(1)), ("status", .string("maybe"))])) == nil)
    }
}
