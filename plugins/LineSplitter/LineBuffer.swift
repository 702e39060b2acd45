/// Text arriving in arbitrary chunks (a file read in blocks, a pipe, a
/// socket), cut into lines: the state machine behind `linesplitter`.
///
/// A line ends at `\n` (a `\r` before it is dropped) or at the end of the
/// stream. Bytes are kept until their line is complete, so a chunk may end
/// in the middle of a line or of a character. A line longer than `maxBytes`
/// is cut on a character boundary into pieces of at most `maxBytes`: input is
/// untrusted, and a line without end must not grow memory without bound.
/// Invalid UTF-8 becomes U+FFFD. Blank lines are skipped when `skipBlank`.
public struct LineBuffer: Sendable {
    public let maxBytes: Int
    public let skipBlank: Bool
    private var pending: [UInt8] = []
    /// Lines cut because they were longer than `maxBytes`.
    public private(set) var cutLines = 0

    public init(maxBytes: Int, skipBlank: Bool = true) {
        precondition(maxBytes >= 4, "a line must hold at least one character")
        self.maxBytes = maxBytes
        self.skipBlank = skipBlank
    }

    /// The lines `chunk` completes, in order.
    public mutating func push(_ chunk: some Collection<UInt8>) -> [String] {
        var lines: [String] = []
        for byte in chunk {
            if byte == UInt8(ascii: "\n") {
                emit(&lines)
                continue
            }
            pending.append(byte)
            if pending.count > maxBytes {
                // Cut before the character that does not fit: back off over
                // continuation bytes (10xxxxxx) to where a character starts.
                var cut = maxBytes
                while cut > 0, pending[cut] & 0xC0 == 0x80 { cut -= 1 }
                if cut == 0 { cut = maxBytes }
                let rest = Array(pending[cut...])
                pending.removeSubrange(cut...)
                emit(&lines, whole: false)
                pending = rest
                cutLines += 1
            }
        }
        return lines
    }

    /// The last line if the stream ended without a newline.
    public mutating func finish() -> [String] {
        var lines: [String] = []
        if !pending.isEmpty { emit(&lines) }
        return lines
    }

    private mutating func emit(_ lines: inout [String], whole: Bool = true) {
        if whole, pending.last == UInt8(ascii: "\r") { pending.removeLast() }
        let line = String(decoding: pending, as: UTF8.self)
        pending.removeAll(keepingCapacity: true)
        if skipBlank, line.allSatisfy(\.isWhitespace) { return }
        lines.append(line)
    }
}
