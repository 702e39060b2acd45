import GstKit

// espeaktts's word and sentence marks, one type each (see SpeechMessages.swift):
// what a caption UI highlights as the voice reaches it.

/// `parley/tts-sentence` (espeaktts): as espeak-ng starts each sentence.
public struct SpokenSentenceMessage: StructureContract, Equatable {
    public var segmentID: UInt64
    /// Stream time where the sentence starts (ns).
    public var offset: UInt64
    /// Its first character's index in the text.
    public var textPosition: Int

    public init(segmentID: UInt64, offset: UInt64, textPosition: Int) {
        self.segmentID = segmentID
        self.offset = offset
        self.textPosition = textPosition
    }

    public static let doc = StructureDoc(.message, "parley/tts-sentence", when: "as espeak-ng starts each sentence", fields: [
        SpeechDocs.segmentID,
        .init("offset", .uint64, "Stream time where the sentence starts (ns)"),
        .init("text-position", .int64, "Its first character's index in the text"),
    ])

    public var structure: Structure {
        Structure(Self.name, [("segment-id", .uint64(segmentID)), ("offset", .uint64(offset)), ("text-position", .int(textPosition))])
    }

    public init?(_ structure: Structure) {
        guard structure.name == Self.name, let fields = SegmentFields(structure, statusRequired: false) else { return nil }
        self.init(segmentID: fields.id, offset: fields.time("offset"), textPosition: structure["text-position"]?.int ?? 0)
    }
}

/// `parley/tts-word` (espeaktts): as espeak-ng starts each word.
public struct SpokenWordMessage: StructureContract, Equatable {
    public var segmentID: UInt64
    /// Stream time where the word starts (ns).
    public var offset: UInt64
    /// Its first character's index in the text, and its length in characters.
    public var textPosition: Int
    public var length: Int
    public var word: String

    public init(segmentID: UInt64, offset: UInt64, textPosition: Int, length: Int, word: String) {
        self.segmentID = segmentID
        self.offset = offset
        self.textPosition = textPosition
        self.length = length
        self.word = word
    }

    public static let doc = StructureDoc(.message, "parley/tts-word", when: "as espeak-ng starts each word", fields: [
        SpeechDocs.segmentID,
        .init("offset", .uint64, "Stream time where the word starts (ns)"),
        .init("text-position", .int64, "Its first character's index in the text"),
        .init("length", .int64, "Its length in characters"),
        .init("word", .string, "The word"),
    ])

    public var structure: Structure {
        Structure(Self.name, [
            ("segment-id", .uint64(segmentID)), ("offset", .uint64(offset)), ("text-position", .int(textPosition)),
            ("length", .int(length)), ("word", .string(word)),
        ])
    }

    public init?(_ structure: Structure) {
        guard structure.name == Self.name, let fields = SegmentFields(structure, statusRequired: false),
              let word = structure["word"]?.string else { return nil }
        self.init(segmentID: fields.id, offset: fields.time("offset"), textPosition: structure["text-position"]?.int ?? 0,
                  length: structure["length"]?.int ?? 0, word: word)
    }
}
