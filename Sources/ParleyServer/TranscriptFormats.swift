import Foundation
import Hummingbird
import NIOCore
import ParleyCore

/// The response formats of /v1/audio/transcriptions.
enum TranscriptFormats {
    static func response(text: String, duration: Double, format: String) -> Response {
        switch format {
        case "text":
            return plain(text + "\n", type: "text/plain; charset=utf-8")
        case "srt":
            return plain("1\n00:00:00,000 --> \(timestamp(duration, separator: ","))\n\(text)\n\n", type: "application/x-subrip")
        case "vtt":
            return plain("WEBVTT\n\n00:00:00.000 --> \(timestamp(duration, separator: "."))\n\(text)\n\n", type: "text/vtt")
        case "verbose_json":
            return TranscriptionHandler.json([
                "task": "transcribe", "language": "english", "duration": duration, "text": text,
                "segments": [["id": 0, "start": 0.0, "end": duration, "text": text,
                              "no_speech_prob": text.isEmpty ? 0.9 : 0.0]],
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
