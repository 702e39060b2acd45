import ParleyCore
import Testing

/// What Parley quotes of untrusted text (a provider's words, a client's
/// parameter, a job's file name) can neither forge a line nor run long.
@Suite struct SafeTextTests {
    @Test func oneLineFoldsEveryBreakAndEscapeIntoOneSpace() {
        #expect(SafeText.oneLine("  a\r\n\r\nb\u{1B}[31mc\td \u{85}e  ") == "a b [31mc d e")
        #expect(SafeText.oneLine("\n\r\t") == "")
    }

    @Test func anExcerptIsOneLineOfTheLimitAtMost() {
        #expect(SafeText.excerpt("short\nname", limit: 40) == "short name")
        let long = "whisper-1\r\n" + String(repeating: "x", count: 100_000)
        let excerpt = SafeText.excerpt(long, limit: 40)
        #expect(excerpt.count == 40 && excerpt.hasPrefix("whisper-1 xxx"))
        // Only the first 4 × limit characters are read: a run of line breaks there leaves less than the limit.
        #expect(SafeText.excerpt(String(repeating: "\n", count: 200) + "late", limit: 40) == "")
    }

    @Test func withoutControlsKeepsTheLines() {
        #expect(SafeText.withoutControls(keepingNewlines: "a\u{1B}[0m\nb\r") == "a[0m\nb")
    }
}
