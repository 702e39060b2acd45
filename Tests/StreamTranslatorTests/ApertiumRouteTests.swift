import Testing
import ApertiumEngine

/// Which apertium modes translate between two languages: a pair, else two
/// through a language in between.
@Suite struct ApertiumRouteTests {
    // Debian 12 with apertium-eng-spa, -eng-cat, -en-gl, -fr-es and -spa-ita installed.
    let debian = ["cat-eng", "cat-eng_US", "eco-es-fr", "eco-fr-es", "en-gl", "eng-cat", "eng-cat_valencia",
                  "eng-spa", "es-fr", "fr-es", "gl-en", "ita-spa", "spa-eng", "spa-eng_US", "spa-ita"]

    @Test func aPairIsTakenWhereThereIsOne() {
        #expect(ApertiumTranslator.mode(from: "en-US", to: "es", installed: debian) == "eng-spa")
        #expect(ApertiumTranslator.mode(from: "en", to: "gl", installed: debian) == "en-gl")
        #expect(ApertiumTranslator.mode(from: "en", to: "it", installed: debian + ["eng-ita"]) == "eng-ita")
    }

    @Test func otherwiseTwoPairsThroughSpanish() {
        #expect(ApertiumTranslator.mode(from: "en", to: "it", installed: debian) == "eng-spa+spa-ita")
        #expect(ApertiumTranslator.mode(from: "en", to: "fr", installed: debian) == "eng-spa+es-fr")
        #expect(ApertiumTranslator.mode(from: "fr", to: "en", installed: debian) == "fr-es+spa-eng")
        #expect(ApertiumTranslator.mode(from: "it", to: "ca", installed: debian) == nil, "no spa-cat installed")
        #expect(ApertiumTranslator.mode(from: "it", to: "ca", installed: debian + ["spa-cat"]) == "ita-spa+spa-cat")
    }

    @Test func spanishIsPreferredInBetweenThenTheOthersInOrder() {
        let both = ["eng-cat", "cat-ita", "eng-spa", "spa-ita"]
        #expect(ApertiumTranslator.mode(from: "en", to: "it", installed: both) == "eng-spa+spa-ita")
        #expect(ApertiumTranslator.mode(from: "en", to: "it", installed: ["eng-cat", "cat-ita", "eng-por", "por-ita"]) == "eng-cat+cat-ita")
    }

    @Test func aLanguageHasNoRouteToItself() {
        // eng-spa+spa-eng would garble English into English.
        #expect(ApertiumTranslator.mode(from: "en", to: "en-GB", installed: debian) == nil)
        #expect(ApertiumTranslator.mode(from: "es", to: "es", installed: debian) == nil)
    }

    @Test func dialectsAndOtherShapesAreNeverPartOfARoute() {
        #expect(ApertiumTranslator.mode(from: "en", to: "it", installed: ["eng-cat_valencia", "cat-ita"]) == nil)
        #expect(ApertiumTranslator.mode(from: "es", to: "fr", installed: ["eco-es-fr"]) == nil)
        #expect(ApertiumTranslator.mode(from: "en", to: "ko", installed: debian) == nil)
    }
}
