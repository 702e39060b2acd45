import LineSplitter
import Testing

@Suite struct LineBufferTests {
    @Test func linesAreCompletedAcrossChunks() {
        var buffer = LineBuffer(maxBytes: 100)
        #expect(buffer.push(Array("good mor".utf8)) == [])
        #expect(buffer.push(Array("ning\r\nthank".utf8)) == ["good morning"])
        #expect(buffer.push(Array(" you\n\n   \nbye".utf8)) == ["thank you"], "blank lines are skipped")
        #expect(buffer.finish() == ["bye"], "the last line needs no newline")
        #expect(buffer.finish() == [])
    }

    @Test func blankLinesCanBeKept() {
        var buffer = LineBuffer(maxBytes: 100, skipBlank: false)
        #expect(buffer.push(Array("a\n\nb\n".utf8)) == ["a", "", "b"])
    }

    @Test func aCharacterSplitBetweenChunksIsWhole() {
        var buffer = LineBuffer(maxBytes: 100)
        let bytes = Array("año\n".utf8)
        #expect(buffer.push(bytes[0..<2]) == [])
        #expect(buffer.push(bytes[2...]) == ["año"])
    }

    @Test func longLinesAreCutOnCharacterBoundaries() {
        var buffer = LineBuffer(maxBytes: 5)
        // "ñ" is two bytes: "aaññ" is 6 bytes, so the cut comes before the second ñ.
        let lines = buffer.push(Array("aaññb\n".utf8))
        #expect(lines == ["aañ", "ñb"])
        #expect(lines.allSatisfy { $0.utf8.count <= 5 })
        #expect(buffer.cutLines == 1)
        // A line with no end at all stays bounded.
        var endless = LineBuffer(maxBytes: 8)
        let pieces = endless.push([UInt8](repeating: UInt8(ascii: "x"), count: 100))
        #expect(pieces.count == 12 && pieces.allSatisfy { $0.count == 8 })
        #expect(endless.finish() == ["xxxx"])
    }

    @Test func invalidUTF8BecomesReplacementCharacters() {
        var buffer = LineBuffer(maxBytes: 100)
        #expect(buffer.push([0x61, 0xFF, 0x62, 0x0A]) == ["a\u{FFFD}b"])
    }
}
