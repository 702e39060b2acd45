import EspeakEngine
import GstKit

/// The speech properties espeaktts and espeaksrc share, as gst-inspect shows them.
public struct EspeakSettings: Sendable {
    public static let DEFAULT_VOICE = ""
    public static let DEFAULT_RATE = 175
    public static let DEFAULT_PITCH = 50
    public static let DEFAULT_VOLUME = 100
    public static let DEFAULT_GAP = 0
    public static let DEFAULT_SSML = false

    public var parameters = SpeechParameters(voice: DEFAULT_VOICE, rate: DEFAULT_RATE, pitch: DEFAULT_PITCH,
                                             volume: DEFAULT_VOLUME, wordGap: DEFAULT_GAP, ssml: DEFAULT_SSML)
    public init() {}

    public static let specs = [
        PropertySpec("voice", nick: "Voice",
                     blurb: "espeak-ng voice name or language (e.g. en-us, es, fr-fr); empty = from the text's language",
                     .string(default: DEFAULT_VOICE)),
        PropertySpec("rate", nick: "Rate", blurb: "Speaking rate in words per minute",
                     .int(default: DEFAULT_RATE, range: EspeakEngine.rates), flags: [.readWrite, .mutablePlaying]),
        PropertySpec("pitch", nick: "Pitch", blurb: "Base pitch, 0 to 100",
                     .int(default: DEFAULT_PITCH, range: 0...100), flags: [.readWrite, .mutablePlaying]),
        PropertySpec("volume", nick: "Volume", blurb: "Volume, 0 to 200 (100 = normal)",
                     .int(default: DEFAULT_VOLUME, range: 0...200), flags: [.readWrite, .mutablePlaying]),
        PropertySpec("gap", nick: "Word gap", blurb: "Extra pause between words, in units of 10 ms",
                     .int(default: DEFAULT_GAP, range: 0...100), flags: [.readWrite, .mutablePlaying]),
        PropertySpec("ssml", nick: "SSML", blurb: "Interpret the text as SSML",
                     .bool(default: DEFAULT_SSML)),
        PropertySpec("voices", nick: "Voices", blurb: "Installed voices, as \"language name\" pairs separated by commas",
                     .string(default: nil), flags: .readOnly),
    ]

    public func property(named name: String) -> PropertyValue {
        switch name {
        case "voice": return .string(parameters.voice)
        case "rate": return .int(parameters.rate)
        case "pitch": return .int(parameters.pitch)
        case "volume": return .int(parameters.volume)
        case "gap": return .int(parameters.wordGap)
        case "ssml": return .bool(parameters.ssml)
        case "voices":
            return .string(EspeakEngine.shared.voices
                .map { "\($0.languages.first ?? "?") \($0.name)" }.joined(separator: ", "))
        default: propertyNotHandled(name, by: "espeak-ng's settings")
        }
    }

    public mutating func set(_ name: String, _ value: PropertyValue) {
        switch name {
        case "voice": parameters.voice = value.string ?? ""
        case "rate": parameters.rate = value.int
        case "pitch": parameters.pitch = value.int
        case "volume": parameters.volume = value.int
        case "gap": parameters.wordGap = value.int
        case "ssml": parameters.ssml = value.bool
        default: propertyNotHandled(name, by: "espeak-ng's settings")
        }
    }

    /// The NULL→READY check: the engine runs and the voice exists.
    public static func checkEngine(voice: String) throws(EspeakError) {
        guard EspeakEngine.shared.isAvailable else { throw .initializationFailed }
        try EspeakEngine.shared.checkVoice(voice)
    }
}
