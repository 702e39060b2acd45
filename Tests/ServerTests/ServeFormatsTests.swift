import Foundation
import Parley
import ParleyCore
import ParleyTestSupport
import Testing

/// `parley serve` reads every format OpenAI lists, through GStreamer, within
/// the hardening limits: real speech encoded as MP3, Ogg Vorbis, WebM Opus, M4A (AAC),
/// µ-law, A-law and float WAV by GStreamer's own encoders is transcribed like the WAV it came from.
@Suite struct ServeFormatsTests {
    let scratch = TestSupport.temporaryFolder()

    /// `source` encoded with a gst-launch encoder chain.
    func encode(_ source: String, _ chain: [String], to name: String, seconds: Int? = nil) async throws -> Data {
        let output = scratch.appendingPathComponent(name).path
        let input = seconds.map { ["audiotestsrc", "wave=silence", "num-buffers=\($0 * 10)", "samplesperbuffer=4800"] }
            ?? ["filesrc", "location=\(source)", "!", "wavparse"]
        let result = try await TestSupport.run("/usr/bin/gst-launch-1.0", ["-q"] + input + [
            "!", "audioconvert", "!", "audioresample", "!", "audio/x-raw,rate=48000,channels=1", "!",
        ] + chain + ["!", "filesink", "location=\(output)"])
        #expect(result.status == 0, "\(result.stderr)")
        return try Data(contentsOf: URL(fileURLWithPath: output))
    }

    func transcribe(_ server: ServeProcess, _ file: Data, filename: String) async throws -> (status: Int, json: [String: Any]) {
        var form = MultipartForm()
        form.add(file: "file", filename: filename, contentType: "application/octet-stream", data: file)
        form.add(field: "model", value: "whisper-1")
        var request = HTTPRequest(method: "POST", url: server.url + "/v1/audio/transcriptions",
                                  headers: [("Content-Type", form.contentType)], body: form.data)
        // The suite runs beside builds and other servers on two cores.
        request.timeout = .seconds(120)
        let response = try await HTTPClient().send(request)
        return (response.status, (try? JSONSerialization.jsonObject(with: response.body) as? [String: Any]) ?? [:])
    }

    /// A server that thinks 25 s before answering (a first Whisper request on
    /// a busy machine did) is waited for as `timeout-ms` says: cloudstt once
    /// gave up on every attempt after about 20 s without a byte, whatever
    /// `timeout-ms` said (libcurl's low-speed limit counted the thinking).
    @Test func aProviderThinkingLongerThanTheStallLimitIsWaitedForUpToTimeoutMs() async throws {
        let server = try await ServeProcess(["--engine", "pocketsphinx", "--delay-ms", "25000"])
        defer { server.stop() }
        let pipeline = try Pipeline(launch: "filesrc location=\(SpeechFixtures.clips[0]) ! wavparse ! vadsegmenter ! "
                                    + "cloudstt provider=compatible base-url=\(server.url)/v1 timeout-ms=120000 max-retries=0 ! fakesink")
        var results: [TextResult] = [], warnings: [String] = []
        try await pipeline.run { event in
            switch event {
            case .transcript(let result): results.append(result)
            case .warning(_, let message, _): warnings.append(message)
            default: break
            }
        }
        #expect(results.count == 1)
        #expect(results.allSatisfy { $0.status == .final && !$0.text.isEmpty }, "\(results); \(warnings)")
    }

    @Test func compressedUploadsAreTranscribedLikeTheWAV() async throws {
        let server = try await ServeProcess(["--engine", "pocketsphinx", "--max-audio-seconds", "60"])
        defer { server.stop() }
        let clip = SpeechFixtures.clips[1]
        let reference = try await transcribe(server, try Data(contentsOf: URL(fileURLWithPath: clip)), filename: "clip.wav")
        let expected = try #require(reference.json["text"] as? String)
        #expect(expected.contains("selfish"), "\(expected)")
        let encodings: [(String, [String])] = [
            ("clip.mp3", ["lamemp3enc", "bitrate=64"]),
            ("clip.ogg", ["vorbisenc", "!", "oggmux"]),
            ("clip.webm", ["opusenc", "!", "webmmux"]),
            ("clip.m4a", ["avenc_aac", "!", "mp4mux"]),
            // Telephony's WAVs (Asterisk, call flows) and float WAV: decodebin's, not the server's own reader.
            ("ulaw.wav", ["audioresample", "!", "audio/x-raw,rate=8000", "!", "mulawenc", "!", "wavenc"]),
            ("alaw.wav", ["audioresample", "!", "audio/x-raw,rate=16000", "!", "alawenc", "!", "wavenc"]),
            ("float.wav", ["audioconvert", "!", "audio/x-raw,format=F32LE", "!", "wavenc"]),
        ]
        for (name, chain) in encodings {
            let answer = try await transcribe(server, try await encode(clip, chain, to: name), filename: name)
            #expect(answer.status == 200, "\(name): \(answer.json)")
            let text = answer.json["text"] as? String ?? ""
            let words = Set(text.split(separator: " ")), reference = Set(expected.split(separator: " "))
            #expect(Double(words.intersection(reference).count) >= 0.7 * Double(reference.count), "\(name): \(text) vs \(expected)")
        }
    }

    @Test func aLongCompressedFileIsRefusedAndGarbageIsNamedUnsupported() async throws {
        let server = try await ServeProcess(["--engine", "pocketsphinx", "--max-audio-seconds", "60"])
        defer { server.stop() }
        // Ten minutes of Opus silence, a few hundred kB, against a 60 s limit.
        let long = try await encode("", ["opusenc", "!", "oggmux"], to: "long.ogg", seconds: 600)
        let refused = try await transcribe(server, long, filename: "long.ogg")
        #expect(refused.status == 400, "\(refused.json)")
        let refusal = (refused.json["error"] as? [String: Any])?["message"] as? String ?? ""
        #expect(refusal.contains("longer than 60 s"), "\(refused.json)")
        let garbage = try await transcribe(server, Data("not audio at all".utf8), filename: "clip.mp3")
        #expect(garbage.status == 415, "\(garbage.json)")
        let message = (garbage.json["error"] as? [String: Any])?["message"] as? String ?? ""
        #expect(message.contains("clip.mp3") && message.contains("mp3, mp4"), "\(message)")
        // Where the server kept the upload is its own business, not the client's.
        #expect(!message.contains("parley-decode") && !message.contains(FileManager.default.temporaryDirectory.path), "\(message)")
    }
}
