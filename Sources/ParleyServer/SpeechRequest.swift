import Foundation
import ParleyCore

/// A `POST /v1/audio/speech` body as parley serve reads it, checked:
/// untrusted JSON in, what to say and how out, or a refusal that names the
/// parameter that is wrong (the fuzzer's `speech` target feeds it mutants).
/// Which languages espeak-ng speaks is the handler's to check.
public struct SpeechRequest: Sendable, Equatable {
    public struct Refusal: Error, Sendable, Equatable {
        public let message: String
        /// The request field it is about, for OpenAI's error `param`.
        public let param: String
    }

    /// The longest input spoken in one request, in characters (OpenAI's).
    public static let maxInput = 4096
    /// OpenAI's voices, each an espeak-ng variant of the language's voice.
    public static let variants = [
        "alloy": "", "ash": "m3", "ballad": "m5", "coral": "f2", "echo": "m1", "fable": "m4",
        "nova": "f3", "onyx": "m7", "sage": "f4", "shimmer": "f5", "verse": "m2",
    ]

    /// The text, NULs made spaces, trimmed.
    public var input: String
    public var format: SpeechFormat
    /// The espeak-ng variant ("" for the voice's own).
    public var variant: String
    /// 0.25 to 4.
    public var speed: Double
    /// BCP-47, as sent (default en).
    public var language: String

    public init(json: Data) throws(Refusal) {
        guard let body = try? JSONDecoder().decode(Body.self, from: json) else {
            throw Refusal(message: "The body must be JSON with an input string.", param: "input")
        }
        input = body.input.replacingOccurrences(of: "\0", with: " ").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !input.isEmpty, input.count <= Self.maxInput else {
            throw Refusal(message: "input must hold 1 to \(Self.maxInput) characters.", param: "input")
        }
        let formatName = body.response_format ?? SpeechFormat.mp3.rawValue
        guard let format = SpeechFormat(rawValue: formatName) else {
            throw Refusal(message: "response_format \"\(RequestParameters.shown(formatName))\" is not one of \(SpeechFormat.allCases.map(\.rawValue).joined(separator: ", ")).",
                          param: "response_format")
        }
        self.format = format
        let voiceName = (body.voice ?? "alloy").lowercased()
        guard let variant = Self.variants[voiceName] else {
            throw Refusal(message: "voice \"\(RequestParameters.shown(voiceName))\" is not one of \(Self.variants.keys.sorted().joined(separator: ", ")).",
                          param: "voice")
        }
        self.variant = variant
        speed = body.speed ?? 1
        guard speed.isFinite, (0.25...4).contains(speed) else {
            throw Refusal(message: "speed must be between 0.25 and 4.", param: "speed")
        }
        language = body.language ?? "en"
    }

    private struct Body: Decodable {
        var model: String?
        var input: String
        var voice: String?
        var response_format: String?
        var speed: Double?
        var language: String?
    }
}
