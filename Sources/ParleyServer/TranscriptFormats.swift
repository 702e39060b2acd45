import Foundation
import Hummingbird
import NIOCore
import ParleyCore

/// The response formats of /v1/audio/transcriptions.
enum TranscriptFormats {
    static func response(_ transcript: EngineTranscript, format: String) -> Response {
        let text = transcript.text
        // Cues per engine segment; one cue over the whole file when the engine has none.
        let cues = transcript.segments.isEmpty
            ? [(start: 0.0, end: transcript.duration, text: text)]
            : transcript.segments.map { (start: $0.start, end: $0.end, text: $0.text) }
        switch format {
        case "text":
            return plain(text + "\n", type: "text/plain; charset=utf-8")
        case "srt":
            let body = cues.enumerated().map { index, cue in
                "\(index + 1)\n\(timestamp(cue.start, separator: ",")) --> \(timestamp(cue.end, separator: ","))\n\(cue.text)\n\n"
            }.joined()
            return plain(body, type: "application/x-subrip")
        case "vtt":
            let body = cues.map { cue in
                "\(timestamp(cue.start, separator: ".")) --> \(timestamp(cue.end, separator: "."))\n\(cue.text)\n\n"
            }.joined()
            return plain("WEBVTT\n\n" + body, type: "text/vtt")
        case "verbose_json":
            let segments: [[String: Any]] = transcript.segments.enumerated().map { index, segment in
                ["id": index, "start": segment.start, "end": segment.end, "text": segment.text,
                 "no_speech_prob": segment.noSpeechProbability, "avg_logprob": segment.averageLogProbability]
            }
            return TranscriptionHandler.json([
                "task": "transcribe", "language": LanguageNames.name(transcript.language),
                "duration": transcript.duration, "text": text, "segments": segments,
            ])
        default:
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
