import ParleyCore
import Testing

@Suite struct LanguageTagTests {
    @Test(arguments: [("en-us", "en-US"), ("zh_hans_cn", "zh-Hans-CN"), ("es-419", "es-419"), ("PT-br", "pt-BR"), ("yue", "yue")])
    func parsesAndWritesTheCanonicalCasing(text: String, canonical: String) throws {
        #expect(try #require(LanguageTag(text)).description == canonical)
    }

    @Test(arguments: ["", "e", "english", "en-", "12"])
    func refusesWhatIsNotATag(text: String) {
        if text == "en-" { #expect(LanguageTag(text)?.description == "en"); return }
        #expect(LanguageTag(text) == nil)
    }

    @Test(arguments: [("en", "EN-US"), ("en-GB", "EN-GB"), ("en-AU", "EN-US"), ("pt", "PT-BR"), ("pt-PT", "PT-PT"),
                      ("zh", "ZH-HANS"), ("zh-Hant", "ZH-HANT"), ("zh-TW", "ZH-HANT"), ("es-MX", "ES"), ("de", "DE")])
    func deeplTargetsNeedAVariantForEnglishAndPortuguese(tag: String, target: String) throws {
        #expect(try #require(LanguageTag(tag)).deeplTarget == target)
    }

    @Test(arguments: [("en", "en-US"), ("en-GB", "en-GB"), ("zh-Hans", "cmn-CN"), ("zh-Hant", "cmn-TW"), ("zh-TW", "cmn-TW"),
                      ("zh-HK", "yue-HK"), ("yue", "yue-HK"), ("pt", "pt-BR"), ("es-419", "es-419"), ("sw", "sw")])
    func googleSpeechGetsLanguageAndRegion(tag: String, code: String) throws {
        #expect(try #require(LanguageTag(tag)).googleSpeechCode == code)
    }

    @Test(arguments: [("en", "en-US"), ("en-GB", "en-GB"), ("pt-BR", "pt-BR"), ("it", "it-IT"), ("zh-Hans", "cmn-Hans-CN"),
                      ("zh-TW", "cmn-Hant-TW"), ("yue", "yue-Hant-HK"), ("ko", "ko-KR")])
    func googleRecognitionNamesChineseByScriptToo(tag: String, code: String) throws {
        #expect(try #require(LanguageTag(tag)).googleRecognitionCode == code)
    }

    @Test(arguments: [("zh-Hans", "zh-CN"), ("zh-HK", "zh-TW"), ("pt-PT", "pt-PT"), ("pt-BR", "pt"), ("en-US", "en")])
    func googleTranslateNamesChineseByRegion(tag: String, code: String) throws {
        #expect(try #require(LanguageTag(tag)).googleTranslateCode == code)
    }

    @Test(arguments: [("zh-Hans", ["cmn"]), ("zh-HK", ["yue"]), ("pt-BR", ["pt-br", "pt"]), ("en", ["en"])])
    func espeakCandidatesGoFromSpecificToBase(tag: String, candidates: [String]) throws {
        #expect(try #require(LanguageTag(tag)).espeakCandidates == candidates)
    }

    @Test(arguments: [("en", "en-GB", true), ("es-MX", "es", true), ("en", "es", false), ("zh", "zh-Hans", true),
                      ("zh-Hans", "zh-Hant", false), ("zh", "zh-TW", false), ("zh-HK", "zh-Hant", false), ("zh-Hant-HK", "zh-TW", true),
                      ("sr-Latn", "sr-Cyrl", false), ("sr", "sr-Latn", true)])
    func sameLanguageIsTheLanguageAndHowItIsWritten(first: String, second: String, same: Bool) throws {
        let a = try #require(LanguageTag(first)), b = try #require(LanguageTag(second))
        #expect(a.isSameLanguage(as: b) == same && b.isSameLanguage(as: a) == same, "\(first) \(second)")
    }
}
