/// Text from providers and users made safe to write where a reader parses
/// lines (plain-text transcripts, subtitles) or a terminal shows them.
public enum SafeText {
    /// Whether `scalar` is a C0 or C1 control character or DEL.
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value)
    }

    /// One line: every run of whitespace and control characters (newlines,
    /// escape sequences' ESC, carriage returns) becomes one space; trimmed.
    /// A result written as one line can then never forge another.
    public static func oneLine(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        var pendingSpace = false
        for scalar in text.unicodeScalars {
            if isControl(scalar) || scalar.properties.isWhitespace {
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

    /// Lines kept, control characters other than the newline removed.
    public static func withoutControls(keepingNewlines text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { $0 == "\n" || !isControl($0) }))
    }
}
