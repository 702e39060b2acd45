import GstKit
import ParleyCore
import ParleySpeech
import Testing

/// Each message and custom event is one type: what it builds is what its
/// doc lists (the field names and their types), and it reads back what it built.
@Suite struct SpeechMessagesTests {
    /// The documented type of a value as it travels.
    static func type(of value: PropertyValue) -> StructureDoc.FieldType {
        switch value {
        case .bool: .boolean
        case .int, .enumeration: .int64
        case .uint64: .uint64
        case .double: .double
        case .string: .string
        case .structure: .structure
        }
    }

    /// Every field built is documented with its type; every field the doc
    /// says is always there is built.
    func expectMatchesItsDoc<C: StructureContract & Equatable>(_ value: C, whenAll: Bool = true) throws {
        let structure = value.structure
        #expect(structure.name == C.name)
        for field in structure.fields {
            let documented = try #require(C.doc.field(named: field.name), "\(C.name) builds \(field.name), which its doc does not list")
            #expect(documented.type == Self.type(of: field.value), "\(C.name).\(field.name)")
        }
        for field in C.doc.fields where field.onlyWhen == nil || whenAll {
            #expect(structure[field.name] != nil, "\(C.name) documents \(field.name) but does not build it")
        }
        #expect(C(structure) == value, "\(C.name) reads back what it built")
        #expect(C(Structure("parley/other", structure.fields.map { ($0.name, $0.value) })) == nil, "another name is not this contract")
    }

    @Test func transcriptTranslationFallbackAndSpokenMessages() throws {
        try expectMatchesItsDoc(TranscriptMessage(segmentID: 3, text: "hello there", status: .partial, language: "en",
                                                  start: 10, duration: 20, provider: "", stable: "hello"))
        try expectMatchesItsDoc(TranscriptMessage(segmentID: 3, text: "hello", status: .final, language: "en",
                                                  start: 10, duration: 20, provider: "local (pocketsphinx)"), whenAll: false)
        try expectMatchesItsDoc(TranslationMessage(segmentID: 3, text: "hola", status: .final, language: "es",
                                                   sourceLanguage: "en", sourceText: "hello", provider: "cache", start: 10, duration: 20,
                                                   firstSegmentID: 2))
        try expectMatchesItsDoc(TranslationMessage(segmentID: 3, text: "hola", status: .final, language: "es",
                                                   sourceLanguage: "en", sourceText: "hello", provider: "cache", start: 10, duration: 20),
                                whenAll: false)
        try expectMatchesItsDoc(FallbackMessage(segmentID: 1, from: "openai (api.openai.com)", to: "local", reason: "HTTP 500"))
        try expectMatchesItsDoc(SpokenMessage(segmentID: 2, status: .failed, provider: "", audioSeconds: 1.5))
    }

    /// parley/latency as every stage builds it and every reader reads it.
    @Test func aLatencyMessageKeepsItsFiguresInOrderAndReadsBack() throws {
        var latency = LatencyMessage(segmentID: 4, stage: "stt", figures: [.init("processing-ms", 120)])
        latency[figure: "ttfs-ms"] = 80
        latency[figure: "processing-ms"] = 125  // replaced in place
        latency.speculativeRequests = 2
        latency.speculationUsed = true
        let structure = latency.structure
        #expect(structure.name == "parley/latency")
        #expect(structure.fields.map(\.name) == ["segment-id", "stage", "processing-ms", "ttfs-ms", "speculative-requests", "speculation-used"])
        #expect(LatencyMessage(structure) == latency)
        #expect(LatencyMessage(Structure("parley/transcript", structure.fields.map { ($0.name, $0.value) })) == nil)
        // A stage that does not say which it is takes its source's name.
        let unnamed = try #require(LatencyMessage(Structure("parley/latency", [("segment-id", .uint64(1)), ("x-ms", .double(3))]), source: "tts0"))
        #expect(unnamed.stage == "tts0" && unnamed[figure: "x-ms"] == 3)
    }

    @Test func speechOutputEventsAndAFailedEnd() throws {
        try expectMatchesItsDoc(SpeechOutputStart(segmentID: 4, start: 5_000))
        try expectMatchesItsDoc(SpeechOutputEnd(segmentID: 4, end: 9_000, failure: "HTTP 500"))
        let spoken = SpeechOutputEnd(segmentID: 4, end: 9_000)
        try expectMatchesItsDoc(spoken, whenAll: false)
        #expect(spoken.structure["status"] == nil, "a spoken result's end carries no status")
    }

    @Test func vadSessionRecordingAndSpeechMarkMessages() throws {
        try expectMatchesItsDoc(VADSegmentMessage(segmentID: 2, start: 100, end: 900, speechEnd: 400, reason: .maxDuration,
                                                  meanProbability: 0.8))
        try expectMatchesItsDoc(VADLevelMessage(start: 0, duration: 50_000_000, probability: 0.9, levelDB: -20, peakDB: -3,
                                                speaking: true))
        try expectMatchesItsDoc(SessionMessage(phase: .ended, id: "2026-11-28-ab", location: "/tmp/s", segments: 3, failures: 1))
        try expectMatchesItsDoc(RecordingMessage.started(startedAt: 12, duration: 3_000_000_000, paced: false), whenAll: false)
        try expectMatchesItsDoc(RecordingMessage.ended(position: 3_000_000_000), whenAll: false)
        try expectMatchesItsDoc(SpokenSentenceMessage(segmentID: 1, offset: 20, textPosition: 0))
        try expectMatchesItsDoc(SpokenWordMessage(segmentID: 1, offset: 20, textPosition: 6, length: 5, word: "mundo"))
        // Between them the recording's two forms build every field the doc lists.
        let names = Set(RecordingMessage.started(startedAt: 1, duration: 2, paced: true).structure.fields.map(\.name))
            .union(RecordingMessage.ended(position: 3).structure.fields.map(\.name))
        #expect(names == Set(RecordingMessage.doc.fields.map(\.name)))
    }

    /// The speech boundary events build exactly the fields their docs list, and read back.
    @Test func speechBoundaryEventsMatchTheirDocs() throws {
        let cases: [(SpeechBoundary, StructureDoc)] = [
            (.start(segmentID: 1, pts: 10), SpeechBoundary.startDoc),
            (.likelyEnd(segmentID: 1, position: 20, speechEnd: 15, decidedAt: 99), SpeechBoundary.likelyEndDoc),
            (.resumed(segmentID: 1, at: 25), SpeechBoundary.resumedDoc),
            (.end(segmentID: 1, start: 10, end: 40, speechEnd: 30, reason: .pttRelease, decidedAt: 100), SpeechBoundary.endDoc),
        ]
        for (boundary, doc) in cases {
            let structure = boundary.structure
            #expect(structure.name == doc.name)
            #expect(structure.fields.map(\.name) == doc.fields.map(\.name), "\(doc.name)")
            for field in structure.fields {
                #expect(doc.field(named: field.name)?.type == Self.type(of: field.value), "\(doc.name).\(field.name)")
            }
            #expect(SpeechBoundary(structure) == boundary)
        }
    }

    @Test func aStructureWithoutItsRequiredFieldsIsNotRead() {
        #expect(VADSegmentMessage(Structure(VADSegmentMessage.name, [("segment-id", .uint64(1)), ("reason", .string("boredom"))])) == nil)
        #expect(SessionMessage(Structure(SessionMessage.name, [("event", .string("paused")), ("location", .string("/tmp"))])) == nil)
        #expect(RecordingMessage(Structure(RecordingMessage.name, [("event", .string("started"))])) == nil)
        #expect(TranscriptMessage(Structure(TranscriptMessage.name, [("text", .string("no id"))])) == nil)
        #expect(TranscriptMessage(Structure(TranscriptMessage.name, [("segment-id", .uint64(1)), ("status", .string("perhaps"))])) == nil)
    }
}
