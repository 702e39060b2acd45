import Foundation
import Hummingbird
import NIOCore
import ParleyCore
import WhisperEngine

/// `response_format` of /v1/audio/transcriptions and /v1/audio/translations.
enum TranscriptFormat: String, CaseIterable, Sendable {
    case json, text, srt, verbose_json, vtt
}

/// `timestamp_granularities[]`: what verbose_json carries times for.
enum TimestampGranularity: String, CaseIterable, Sendable {
    case segment, word
}

/// The answers in each response format.
enum TranscriptFormats {
    /// verbose_json holds `segments` when `granularities` has `.segment`
    /// (the default) and `words` when it has `.word`, as OpenAI's does.
    static func response(_ transcript: EngineTranscript, format: TranscriptFormat, task: WhisperTask,
                         granularities: Set<TimestampGranularity> = [.segment]) -> Response {
        let text = transcript.text
        // Cues per engine segment; one cue over the whole file when the engine has none.
        let cues = transcript.segments.isEmpty
            ? [(start: 0.0, end: transcript.duration, text: text)]
            : transcript.segments.map { (start: $0.start, end: $0.end, text: $0.text) }
        switch format {
        case .text:
            return plain(text + "\n", type: "text/plain; charset=utf-8")
        case .srt:
            let body = cues.enumerated().map { index, cue in
                "\(index + 1)\n\(timestamp(cue.start, separator: ",")) --> \(timestamp(cue.end, separator: ","))\n\(cue.text)\n\n"
            }.joined()
            return plain(body, type: "application/x-subrip")
        case .vtt:
            let body = cues.map { cue in
                "\(timestamp(cue.start, separator: ".")) --> \(timestamp(cue.end, separator: "."))\n\(cue.text)\n\n"
            }.joined()
            return plain("WEBVTT\n\n" + body, type: "text/vtt")
        case .verbose_json:
            // A translation's language is its output's, always English (OpenAI's
            // spec); a transcription's is the language heard.
            let language = task == .translate ? "english" : LanguageNames.name(transcript.language)
            var body: [String: Any] = ["task": task.rawValue, "language": language,
                                       "duration": transcript.duration, "text": text]
            if granularities.contains(.segment) {
                body["segments"] = transcript.segments.enumerated().map { index, segment -> [String: Any] in
                    ["id": index, "start": segment.start, "end": segment.end, "text": segment.text,
                     "no_speech_prob": segment.noSpeechProbability, "avg_logprob": segment.averageLogProbability]
                }
            }
            if granularities.contains(.word) {
                body["words"] = transcript.words.map { ["word": $0.word, "start": $0.start, "end": $0.end] as [String: Any] }
            }
            return TranscriptionHandler.json(body)
        case .json:
            return TranscriptionHandler.json(["text": text])
        }
    }

    static func plain(_ text: String, type: String) -> Response {
        Response(status: .ok, headers: [.contentType: type], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    static func timestamp(_ seconds: Double, separator: Character) -> String {
        SubtitleTime.format(milliseconds: Int((seconds * 1000).rounded()), separator: separator)
    }
}
