/// A BCP-47 language tag as the apps write them ("en-US", "zh-Hans",
/// "pt_BR", "es-419"), and the form each provider and engine wants.
///
/// Only what the mapping needs is parsed: the language, an optional script
/// (four letters) and an optional region (two letters or three digits);
/// variants and extensions are kept out of the provider forms.
public struct LanguageTag: Sendable, Equatable, CustomStringConvertible {
    /// Lower case: "en", "zh", "yue".
    public let language: String
    /// Title case: "Hans", "Latn".
    public let script: String?
    /// Upper case: "US", "419".
    public let region: String?

    /// Nil for an empty or malformed tag. Underscores count as hyphens.
    public init?(_ text: String) {
        let parts = text.split(whereSeparator: { $0 == "-" || $0 == "_" }).map(String.init)
        guard let first = parts.first, (2...3).contains(first.count), first.allSatisfy(\.isASCIILetter) else { return nil }
        language = first.lowercased()
        var rest = parts.dropFirst()
        if let next = rest.first, next.count == 4, next.allSatisfy(\.isASCIILetter) {
            script = next.prefix(1).uppercased() + next.dropFirst().lowercased()
            rest = rest.dropFirst()
        } else {
            script = nil
        }
        if let next = rest.first, (next.count == 2 && next.allSatisfy(\.isASCIILetter)) || (next.count == 3 && next.allSatisfy(\.isASCIIDigit)) {
            region = next.uppercased()
        } else {
            region = nil
        }
    }

    /// Canonical casing: "zh-Hans-CN".
    public var description: String { ([language] + [script, region].compactMap { $0 }).joined(separator: "-") }

    /// Text in `self` needs no translation into `other`: the same language
    /// written the same way. A region alone does not make another language
    /// (en-US and en-GB, es and es-MX are the same); two scripts do (sr-Latn
    /// and sr-Cyrl), and for Chinese so do traditional and simplified
    /// characters however they are named (zh-Hant, zh-TW against zh, zh-Hans),
    /// and Cantonese against Mandarin.
    public func isSameLanguage(as other: LanguageTag) -> Bool {
        guard language == other.language else { return false }
        if language == "zh" {
            return isTraditionalChinese == other.isTraditionalChinese && isCantonese == other.isCantonese
        }
        return script == nil || other.script == nil || script == other.script
    }

    /// The same for two tags as written ("en-US", "en"); false when either is no tag.
    public static func isSameLanguage(_ first: String, _ second: String) -> Bool {
        guard let a = LanguageTag(first), let b = LanguageTag(second) else { return false }
        return a.isSameLanguage(as: b)
    }

    /// Chinese written in traditional characters (zh-Hant, zh-TW, zh-HK, zh-MO).
    public var isTraditionalChinese: Bool {
        language == "zh" && (script == "Hant" || (script == nil && ["TW", "HK", "MO"].contains(region ?? "")))
    }

    /// Cantonese: "yue", or Chinese of Hong Kong without a script.
    public var isCantonese: Bool { language == "yue" || (language == "zh" && script == nil && region == "HK") }

    /// DeepL's `target_lang`: English and Portuguese need a variant (bare
    /// EN and PT are deprecated): EN-US unless the region is GB, PT-BR unless
    /// it is PT; Chinese is ZH-HANS or ZH-HANT; the rest the language alone.
    public var deeplTarget: String {
        switch language {
        case "en": region == "GB" ? "EN-GB" : "EN-US"
        case "pt": region == "PT" ? "PT-PT" : "PT-BR"
        case "zh": isTraditionalChinese ? "ZH-HANT" : "ZH-HANS"
        default: language.uppercased()
        }
    }

    /// Google Translate's code: zh-CN or zh-TW for Chinese, pt-PT for
    /// European Portuguese, else the language.
    public var googleTranslateCode: String {
        switch language {
        case "zh": isTraditionalChinese ? "zh-TW" : "zh-CN"
        case "pt" where region == "PT": "pt-PT"
        default: language
        }
    }

    /// Google Text-to-Speech's `languageCode` (language-REGION): Mandarin is
    /// cmn-CN or cmn-TW, Cantonese yue-HK; without a region, the one the
    /// apps' users most often mean.
    public var googleSpeechCode: String {
        if isCantonese { return "yue-HK" }
        if language == "zh" || language == "cmn" { return isTraditionalChinese || region == "TW" ? "cmn-TW" : "cmn-CN" }
        if let region { return "\(language)-\(region)" }
        return Self.usualRegions[language].map { "\(language)-\($0)" } ?? language
    }

    /// Google Speech-to-Text's `languageCode`: as Text-to-Speech's, but
    /// Chinese names its script too (cmn-Hans-CN, cmn-Hant-TW, yue-Hant-HK).
    public var googleRecognitionCode: String {
        if isCantonese { return "yue-Hant-HK" }
        if language == "zh" || language == "cmn" { return isTraditionalChinese || region == "TW" ? "cmn-Hant-TW" : "cmn-Hans-CN" }
        return googleSpeechCode
    }

    static let usualRegions = ["en": "US", "es": "ES", "fr": "FR", "de": "DE", "it": "IT", "nl": "NL", "ja": "JP",
                               "ko": "KR", "pt": "BR", "ca": "ES", "ru": "RU", "pl": "PL", "sv": "SE", "tr": "TR"]

    /// espeak-ng language names to try, most specific first ("pt-br", "pt");
    /// Chinese goes to its spoken language (cmn for Mandarin, yue for Cantonese).
    public var espeakCandidates: [String] {
        if isCantonese { return ["yue"] }
        if language == "zh" { return ["cmn"] }
        return (region.map { ["\(language)-\($0.lowercased())"] } ?? []) + [language]
    }
}

extension Character {
    var isASCIILetter: Bool { isASCII && isLetter }
    var isASCIIDigit: Bool { isASCII && isNumber }
}
