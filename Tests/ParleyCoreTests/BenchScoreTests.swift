import Testing
@testable import ParleyCore

@Suite struct DistributionTests {
    @Test func percentilesInterpolateBetweenRanksLikeNumpy() throws {
        let values = (1...10).map(Double.init).shuffled()
        let summary = try #require(Distribution(values))
        #expect(summary.n == 10)
        #expect(summary.mean == 5.5)
        #expect(summary.p50 == 5.5)
        #expect(abs(summary.p90 - 9.1) < 1e-9)
        #expect(abs(summary.p95 - 9.55) < 1e-9)
        #expect(abs(summary.p99 - 9.91) < 1e-9)
        #expect(summary.max == 10 && summary.min == 1)
        // numpy.std(range(1, 11), ddof=1)
        #expect(abs((summary.standardDeviation ?? 0) - 3.0276503540974917) < 1e-9)
        #expect(Distribution([4])?.standardDeviation == 0)
        #expect(Distribution([]) == nil)
        #expect(Distribution([.nan, 3])?.n == 1)
        #expect(Distribution([7])?.p99 == 7)
    }
}

@Suite struct CharacterFScoreTests {
    /// Values from sacreBLEU 2.4.3's CHRF().sentence_score.
    @Test func matchesSacreBLEU() {
        #expect(abs(CharacterFScore.score(reference: "el gato se sentó en la alfombra",
                                          hypothesis: "el gato está en la alfombra") - 61.258953937286265) < 1e-9)
        #expect(abs(CharacterFScore.score(reference: "Por favor, introduzca su contraseña seguida de la tecla numeral.",
                                          hypothesis: "Por favor introduzca su contraseña") - 52.44529969813436) < 1e-9)
        #expect(CharacterFScore.score(reference: "xyz", hypothesis: "abc") == 0)
        #expect(CharacterFScore.score(reference: "a", hypothesis: "a") == 100)
        #expect(CharacterFScore.score(reference: "una frase", hypothesis: "") == 0)
    }
}
