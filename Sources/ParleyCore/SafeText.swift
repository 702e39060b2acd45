/// Text from providers and users made safe to write where a reader parses
/// lines (plain-text transcripts, subtitles) or a terminal shows them.
public enum SafeText {
    /// Whether `scalar` is a C0 or C1 control character or DEL.
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value)
    }

    /// Whether `scalar` is a bidirectional embedding, override or isolate
    /// (U+202A–U+202E, U+2066–U+2069): text after it is shown reordered, so
    /// a provider's answer could make a line read as something else
    /// ("Trojan Source"). The marks U+200E/U+200F only hint and are kept.
    public static func isBidiControl(_ scalar: Unicode.Scalar) -> Bool {
        (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
    }

    /// Whether `scalar` must not reach a terminal or a text file as it is:
    /// a control character or a bidi control.
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool { isControl(scalar) || isBidiControl(scalar) }

    /// One line: every run of whitespace and control characters (newlines,
    /// escape sequences' ESC, carriage returns, NUL, bidi overrides) becomes
    /// one space; trimmed. A result written as one line can then never
    /// forge another or drive the terminal.
    public static func oneLine(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        var pendingSpace = false
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar) || scalar.properties.isWhitespace {
                pendingSpace = !out.isEmpty
                continue
            }
            if pendingSpace { out.append(" ") }
            pendingSpace = false
            out.append(scalar)
        }
        return String(out)
    }

    /// What an error or a log line may quote of untrusted text: one line
    /// (`oneLine`) of at most `limit` characters, read from the text's first
    /// 4 × `limit` only, however long it is.
    public static func excerpt(_ text: String, limit: Int) -> String {
        String(oneLine(String(text.prefix(4 * limit))).prefix(limit))
    }

    /// Lines kept, control characters other than the newline (and bidi controls) removed.
    public static func withoutControls(keepingNewlines text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { $0 == "\n" || !isUnsafe($0) }))
    }
}
