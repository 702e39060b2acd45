/// Whisper's verbose_json names languages ("english"); the meta and requests
/// use ISO-639-1 codes ("en"). The languages the apps serve, and their neighbours.
public enum LanguageNames {
    static let byCode = [
        "en": "english", "es": "spanish", "fr": "french", "de": "german", "it": "italian", "nl": "dutch",
        "zh": "chinese", "ko": "korean", "ja": "japanese", "ca": "catalan", "pt": "portuguese", "ru": "russian",
        "pl": "polish", "sv": "swedish", "tr": "turkish", "ar": "arabic", "hi": "hindi", "uk": "ukrainian",
    ]
    static let byName = Dictionary(uniqueKeysWithValues: byCode.map { ($0.value, $0.key) })

    /// The primary language subtag of a BCP-47 tag: "en-US" → "en", "zh-Hans" → "zh".
    public static func primary(_ tag: String) -> String {
        String(tag.lowercased().split(whereSeparator: { $0 == "-" || $0 == "_" }).first ?? "")
    }

    /// Every language name known ("english", "spanish", ...).
    public static var allNames: [String] { Array(byName.keys) }

    /// "english" → "en"; a code stays a code; unknown names pass through.
    public static func code(_ name: String) -> String { byName[name.lowercased()] ?? name }

    /// "en" → "english"; unknown codes pass through.
    public static func name(_ code: String) -> String { byCode[code.lowercased()] ?? code }
}
