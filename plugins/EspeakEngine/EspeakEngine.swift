// The espeak-ng provider shared by espeaktts and espeaksrc.
//
// espeak-ng keeps its state in globals and is not reentrant, so every call
// goes through one process-wide lock. Synthesis streams: espeak-ng calls back
// with a few milliseconds of audio at a time, and each chunk is handed on
// while the rest is still being made.
import CEspeakNG
import Foundation
import ParleyCore
import Synchronization

/// One installed voice.
public struct EspeakVoice: Sendable, Equatable {
    /// e.g. "Spanish_(Spain)".
    public var name: String
    /// e.g. "es", "en-us"; the first is the main one.
    public var languages: [String]
    /// e.g. "roa/es".
    public var identifier: String
}

/// How to speak.
public struct SpeechParameters: Sendable, Equatable {
    /// A voice name, language or identifier; empty = by `language`.
    public var voice: String
    /// BCP-47 language used when `voice` is empty.
    public var language = "en"
    public var rate: Int
    public var pitch: Int
    public var volume: Int
    /// Pause between words, in units of 10 ms at the default rate.
    public var wordGap: Int
    public var ssml: Bool
    /// No defaults here: the elements' `DEFAULT_*` constants (EspeakSettings) are the one place they are stated.
    public init(voice: String, rate: Int, pitch: Int, volume: Int, wordGap: Int, ssml: Bool) {
        self.voice = voice
        self.rate = rate
        self.pitch = pitch
        self.volume = volume
        self.wordGap = wordGap
        self.ssml = ssml
    }
}

/// What synthesis reports besides audio.
public enum SpeechMark: Sendable, Equatable {
    /// A word starts `audioOffsetMs` into the utterance, at character
    /// `textPosition` (1-based, as espeak-ng counts) and `length` characters long.
    case word(audioOffsetMs: Int, textPosition: Int, length: Int)
    case sentence(audioOffsetMs: Int, textPosition: Int)
}

public enum EspeakError: Error, Sendable, CustomStringConvertible, Equatable {
    case initializationFailed
    case unknownVoice(String, suggestions: [String])
    case synthesisFailed(String)

    public var description: String {
        switch self {
        case .initializationFailed:
            "espeak-ng could not start (is espeak-ng-data installed?)"
        case .unknownVoice(let voice, let suggestions):
            "espeak-ng has no voice \"\(voice)\"" + (suggestions.isEmpty ? "; `espeak-ng --voices` lists them"
                : "; close matches: \(suggestions.joined(separator: ", "))")
        case .synthesisFailed(let why):
            "espeak-ng could not synthesize: \(why)"
        }
    }
}

/// The process-wide espeak-ng engine.
public final class EspeakEngine: Sendable {
    /// The one engine of the process: espeak-ng itself is a global.
    public static let shared = EspeakEngine()
    /// The speaking rates espeak-ng takes, in words per minute.
    public static let rates = 80...450

    /// espeak-ng's output rate (22050 Hz for its own voices).
    public let sampleRate: Int
    public let voices: [EspeakVoice]
    private let lock = Mutex(())

    private init() {
        // Synchronous: synthesis runs on the calling thread and streams
        // through the callback; 20 ms chunks keep first audio early.
        let rate = espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 20, nil, 0)
        sampleRate = rate > 0 ? Int(rate) : 0
        espeak_SetSynthCallback(synthCallback)
        voices = Self.listVoices()
    }

    public var isAvailable: Bool { sampleRate > 0 }

    private static func listVoices() -> [EspeakVoice] {
        guard let list = espeak_ListVoices(nil) else { return [] }
        var voices: [EspeakVoice] = []
        var index = 0
        while let voice = list[index] {
            voices.append(EspeakVoice(
                name: String(cString: voice.pointee.name), languages: languages(voice.pointee.languages),
                identifier: voice.pointee.identifier.map { String(cString: $0) } ?? ""))
            index += 1
        }
        return voices
    }

    /// espeak-ng's language list: (priority byte, NUL-terminated string) pairs, ended by a 0 byte.
    private static func languages(_ pointer: UnsafePointer<CChar>?) -> [String] {
        guard var cursor = pointer else { return [] }
        var result: [String] = []
        while cursor.pointee != 0 {
            cursor += 1  // priority
            let language = String(cString: cursor)
            result.append(language)
            cursor += language.utf8.count + 1
        }
        return result
    }

    /// Whether `name` names an installed voice (by name, language or identifier).
    public func hasVoice(_ name: String) -> Bool {
        let wanted = name.lowercased()
        return voices.contains { voice in
            voice.name.lowercased() == wanted || voice.identifier.lowercased() == wanted
                || voice.languages.contains { $0.lowercased() == wanted }
        }
    }

    public func checkVoice(_ name: String) throws(EspeakError) {
        guard !name.isEmpty, !hasVoice(name) else { return }
        let candidates = voices.flatMap { [$0.name] + $0.languages }
        throw .unknownVoice(name, suggestions: Suggestions.nearest(to: name, in: candidates, count: 3))
    }

    /// The voice espeak-ng will use for `language`, falling back to the base
    /// language ("es-MX" → "es") and from Chinese to its spoken language
    /// ("zh-Hans" → cmn, "zh-HK" → yue); nil if there is none.
    public func voice(forLanguage language: String) -> String? {
        let wanted = language.lowercased()
        let fromTag = LanguageTag(language)?.espeakCandidates ?? []
        // "zh" alone is ambiguous in espeak-ng (cmn and yue both list it): the tag decides.
        let candidates = fromTag.contains(where: { $0 == "cmn" || $0 == "yue" }) ? fromTag : [wanted] + fromTag
        for candidate in candidates {
            // espeak_SetVoiceByName knows a voice by its own language, not by
            // aliases like "zh" for cmn: answer with that.
            if let voice = voices.first(where: { $0.languages.contains { $0.lowercased() == candidate } }) {
                return voice.languages.first ?? voice.name
            }
        }
        return nil
    }

    /// Speaks `text`, calling `onAudio` with each chunk of samples and the
    /// marks that fall in it, on this thread, as espeak-ng produces them.
    /// `onAudio` returns false to stop early (barge-in). Holds the engine lock
    /// for the whole synthesis: do not push downstream from `onAudio`.
    public func synthesize(_ text: String, parameters: SpeechParameters,
                           onAudio: (UnsafeBufferPointer<Int16>, [SpeechMark]) -> Bool) throws(EspeakError) {
        guard isAvailable else { throw .initializationFailed }
        let result: EspeakError? = lock.withLock { _ in
            // Another espeak-ng user in the process may have set its own.
            espeak_SetSynthCallback(synthCallback)
            let voice = parameters.voice.isEmpty ? (voice(forLanguage: parameters.language) ?? "en") : parameters.voice
            guard espeak_SetVoiceByName(voice) == EE_OK else { return .unknownVoice(voice, suggestions: []) }
            espeak_SetParameter(espeakRATE, Int32(parameters.rate), 0)
            espeak_SetParameter(espeakPITCH, Int32(parameters.pitch), 0)
            espeak_SetParameter(espeakVOLUME, Int32(parameters.volume), 0)
            espeak_SetParameter(espeakWORDGAP, Int32(parameters.wordGap), 0)
            return withoutActuallyEscaping(onAudio) { onAudio in
                let context = SynthContext(onAudio: onAudio)
                let flags = UInt32(espeakCHARS_UTF8) | (parameters.ssml ? UInt32(espeakSSML) : 0)
                let status = withExtendedLifetime(context) {
                    text.withCString { pointer in
                        espeak_Synth(pointer, text.utf8.count + 1, 0, POS_CHARACTER, 0, flags, nil,
                                     Unmanaged.passUnretained(context).toOpaque())
                    }
                }
                if status != EE_OK && !context.stopped { return .synthesisFailed("status \(status.rawValue)") }
                return nil
            }
        }
        if let result { throw result }
    }
}

/// Carries the Swift closure through espeak-ng's C callback (user_data).
private final class SynthContext {
    let onAudio: (UnsafeBufferPointer<Int16>, [SpeechMark]) -> Bool
    var stopped = false
    init(onAudio: @escaping (UnsafeBufferPointer<Int16>, [SpeechMark]) -> Bool) { self.onAudio = onAudio }
}

private func synthCallback(_ wav: UnsafeMutablePointer<Int16>?, _ count: Int32,
                           _ events: UnsafeMutablePointer<espeak_EVENT>?) -> Int32 {
    guard let events, let userData = events.pointee.user_data else { return 0 }
    let context = Unmanaged<SynthContext>.fromOpaque(userData).takeUnretainedValue()
    if context.stopped { return 1 }
    var marks: [SpeechMark] = []
    var event = events
    while event.pointee.type != espeakEVENT_LIST_TERMINATED {
        switch event.pointee.type {
        case espeakEVENT_WORD:
            marks.append(.word(audioOffsetMs: Int(event.pointee.audio_position),
                               textPosition: Int(event.pointee.text_position), length: Int(event.pointee.length)))
        case espeakEVENT_SENTENCE:
            marks.append(.sentence(audioOffsetMs: Int(event.pointee.audio_position),
                                   textPosition: Int(event.pointee.text_position)))
        default:
            break
        }
        event += 1
    }
    let samples = UnsafeBufferPointer(start: wav, count: wav == nil ? 0 : Int(count))
    if samples.isEmpty && marks.isEmpty { return 0 }
    if !context.onAudio(samples, marks) {
        context.stopped = true
        return 1
    }
    return 0
}
