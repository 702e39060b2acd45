import Foundation
import Testing
@testable import CloudSTT

/// Google Cloud Speech-to-Text's request and answer, as `speech:recognize` takes and gives them.
@Suite struct GoogleTranscriberTests {
    @Test func theRequestCarriesTheSamplesAsLinear16AtTheirRate() throws {
        let samples: [Int16] = [0, 1, -1, 32_767, -32_768, 1234]
        let request = TranscriptionRequest(samples: samples, rate: 16_000, languageTag: "en-GB", prompt: "ignored",
                                           temperature: 0, responseFormat: "json")
        let body = GoogleTranscriber.body(request, model: "latest_short")
        let config = try #require(body["config"] as? [String: Any])
        #expect(config["encoding"] as? String == "LINEAR16" && config["sampleRateHertz"] as? Int == 16_000)
        #expect(config["languageCode"] as? String == "en-GB" && config["model"] as? String == "latest_short")
        #expect(config["enableAutomaticPunctuation"] as? Bool == true)
        let content = try #require((body["audio"] as? [String: Any])?["content"] as? String)
        let bytes = try #require(Data(base64Encoded: content))
        #expect(bytes == samples.withUnsafeBytes { Data($0) }, "raw little-endian 16-bit samples")
        #expect(GoogleTranscriber.body(request, model: "")["config"].flatMap { ($0 as? [String: Any])?["model"] } == nil,
                "no model: Google chooses")
        var flac = request
        flac.uploadFormat = "flac"
        #expect((GoogleTranscriber.body(flac, model: "")["config"] as? [String: Any])?["encoding"] as? String == "FLAC")
    }

    @Test func eachResultsFirstAlternativeIsJoinedAndNoResultsIsNoSpeech() throws {
        let answer = #"{"results": [{"alternatives": [{"transcript": "He was not", "confidence": 0.93}, {"transcript": "he was knot"}], "resultEndTime": "1.2s", "languageCode": "en-us"}, {"alternatives": [{"transcript": " an ill-disposed young man.", "confidence": 0.9}]}], "totalBilledTime": "3s"}"#
        let spoken = try GoogleTranscriber.parse(Data(answer.utf8))
        #expect(spoken.text == "He was not an ill-disposed young man." && !spoken.noSpeech)
        let silent = try GoogleTranscriber.parse(Data(#"{"totalBilledTime": "2s", "requestId": "1"}"#.utf8))
        #expect(silent.text.isEmpty && silent.noSpeech)
        #expect(throws: (any Error).self) { try GoogleTranscriber.parse(Data("<html>".utf8)) }
    }
}
