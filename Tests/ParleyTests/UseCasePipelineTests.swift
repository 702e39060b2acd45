import Foundation
import Parley
import ParleyCore
import ParleyTestSupport
import Testing

/// The use-case pipeline files, run end to end by `parley run` on real recorded speech.
@Suite(.serialized) struct UseCasePipelineTests {
    let root = TestSupport.packageRoot
    let scratch = TestSupport.temporaryFolder()

    @Test func conversationFanoutGivesEachListenerTheirLanguageInOneSession() async throws {
        let recording = try SpeechFixtures.threeUtterances(in: scratch)
        let session = scratch.appendingPathComponent("room")
        let result = try await TestSupport.run(TestSupport.parleyExecutable, [
            "run", root.appendingPathComponent("pipelines/conversation-fanout.pipeline").path, "--quiet",
            "--set", "INPUT=\(recording.path)", "--set", "SESSION=\(session.path)", "--set", "TARGETS=es,ca,gl",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let recorded = SessionFolder(url: session)
        #expect(recorded.records.map(\.segment) == [0, 1, 2], "\(recorded.records)")
        for record in recorded.records {
            let byLanguage = Dictionary(uniqueKeysWithValues: record.translations.map { ($0.language, $0.text) })
            #expect(record.translations.map(\.language) == ["es", "ca", "gl"], "TARGETS made three branches, listed in its order: \(record.translations)")
            #expect(SpanishCheck.isSpanish(byLanguage["es"] ?? ""), "\(byLanguage)")
            #expect(!(byLanguage["ca"] ?? "").isEmpty && byLanguage["ca"] != byLanguage["es"])
            #expect(!(byLanguage["gl"] ?? "").isEmpty && byLanguage["gl"] != byLanguage["ca"])
            let number = String(format: "%04d", record.segment)
            #expect(Set(record.audio) == ["audio/\(number).es.wav", "audio/\(number).ca.wav", "audio/\(number).gl.wav"])
            for file in record.audio {
                let wav = try WAVDecoder.decode(try Data(contentsOf: session.appendingPathComponent(file)))
                #expect(wav.samples.count > wav.rate / 2 && wav.samples.contains { abs(Int($0)) > 2000 }, "\(file) is speech")
            }
        }
        for name in ["source.srt", "translation.es.srt", "translation.ca.srt", "translation.gl.srt"] {
            #expect(SubtitleCheck.cues(try String(contentsOf: session.appendingPathComponent(name), encoding: .utf8)).count == 3, "\(name)")
        }

        // Listed with each column as wide as its widest cell: four languages do not run into the count.
        let list = try await TestSupport.run(TestSupport.parleyExecutable, ["sessions", "list", "--dir", scratch.path])
        let row = try #require(list.stdout.split(separator: "\n").first { $0.hasPrefix("room ") }, "\(list.stdout)")
        let cells = row.split(separator: "  ").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        #expect(cells.count == 6 && Set(cells[3].split(separator: ",")) == ["en", "es", "ca", "gl"] && cells[4] == "3", "\(row)")

        // Replayed for one listener, or for all in turn.
        func samples(_ files: [String]) throws -> Int {
            try files.reduce(0) { $0 + (try WAVDecoder.decode(try Data(contentsOf: session.appendingPathComponent($1))).samples.count) }
        }
        let dir = ["--dir", scratch.path]
        let catalan = scratch.appendingPathComponent("catalan.wav")
        let one = try await TestSupport.run(TestSupport.parleyExecutable, ["sessions", "play", "room", "--language", "ca", "--to", catalan.path] + dir)
        #expect(one.status == 0 && !one.stderr.contains("in turn"), "\(one.stderr)")
        let caFiles = recorded.records.flatMap(\.audio).filter { $0.hasSuffix(".ca.wav") }
        #expect(try WAVDecoder.decode(try Data(contentsOf: catalan)).samples.count == (try samples(caFiles)), "the three Catalan utterances, nothing else")
        let everyone = scratch.appendingPathComponent("all.wav")
        let all = try await TestSupport.run(TestSupport.parleyExecutable, ["sessions", "play", "room", "--to", everyone.path] + dir)
        #expect(all.status == 0 && all.stderr.contains("playing ca, es, gl in turn; --language picks one"), "\(all.stderr)")
        #expect(try WAVDecoder.decode(try Data(contentsOf: everyone)).samples.count == (try samples(recorded.records.flatMap(\.audio))))
        let none = try await TestSupport.run(TestSupport.parleyExecutable, ["sessions", "play", "room", "--language", "fr", "--to", everyone.path] + dir)
        #expect(none.status == 2 && none.stderr.contains("has no fr audio; it has ca, es, gl"), "\(none.stderr)")
    }

    @Test func textTranslateTurnsEachLineIntoATranslatedLine() async throws {
        let pipeline = root.appendingPathComponent("pipelines/text-translate.pipeline").path
        let lines = ["good morning", "thank you very much", "", "where is the station", "good morning"]
        let result = try await TestSupport.run(TestSupport.parleyExecutable, ["run", pipeline, "--quiet"],
                                               environment: TestSupport.gstEnvironment(registry: scratch), input: lines.joined(separator: "\n"))
        #expect(result.status == 0, "\(result.stderr)")
        let translated = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(translated.count == 5 && translated.last == "", "one line per non-blank line, nothing else: \(result.stdout)")
        #expect(translated[0] == translated[3], "a repeated line translates the same")
        #expect(translated[0].lowercased().contains("buenos") && translated[1].lowercased().contains("gracias"), "\(translated)")
        #expect(translated[2].lowercased().contains("estación") || SpanishCheck.isSpanish(translated[2]), "\(translated)")
        #expect(result.stderr.contains("translation 1 (es): \(translated[1])"), "parley's own lines go to standard error")

        // From a file, into Catalan, to a file.
        let input = scratch.appendingPathComponent("notes.txt"), output = scratch.appendingPathComponent("notes.ca.txt")
        try "thank you very much\r\ngood night\r\n".write(to: input, atomically: true, encoding: .utf8)
        let fromFile = try await TestSupport.run(TestSupport.parleyExecutable, [
            "run", pipeline, "--quiet", "--set", "SOURCE=filesrc location=\"\(input.path)\"", "--set", "TARGET=ca",
            "--set", "OUTPUT=\(output.path)",
        ], environment: TestSupport.gstEnvironment(registry: scratch))
        #expect(fromFile.status == 0, "\(fromFile.stderr)")
        let catalan = try String(contentsOf: output, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(catalan.count == 2 && catalan[0].lowercased().contains("gràcies"), "\(catalan)")
        #expect(fromFile.stdout.contains("translation 1 (ca): \(catalan[1])"), "with OUTPUT a file, results print on standard output")
    }

    @Test func hostileProviderTextCannotForgeLinesOrDriveTheTerminal() async throws {
        // A provider (here a scripted OpenAI-compatible server: no real one answers like this
        // on demand) returns escape sequences and a forged subtitle cue.
        let hostile = "Hola\u{1B}]0;pwned\u{07}\u{1B}[2J\n\n99\n00:00:00,000 --> 00:09:00,000\nFORGED"
        let encoded = String(decoding: try JSONSerialization.data(withJSONObject: ["content": hostile]), as: UTF8.self)
        let stream = "data: {\"choices\":[{\"delta\":\(encoded)}]}\n\ndata: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
        let server = try ScriptedHTTPServer([.stream(pieces: [(stream, 0)])])
        let srt = scratch.appendingPathComponent("out.srt")
        let pipeline = root.appendingPathComponent("pipelines/text-translate.pipeline").path
        let result = try await TestSupport.run(TestSupport.parleyExecutable, [
            "run", pipeline, "--quiet", "--set", "PROVIDER=compatible", "--set", "BASE_URL=\(server.url)/v1",
        ], environment: TestSupport.gstEnvironment(registry: scratch), input: "hello\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stdout.contains("\u{1B}") && !result.stderr.contains("\u{1B}"), "no escape sequence reaches the terminal")
        #expect(result.stdout.split(separator: "\n").count == 1, "one result is one line: \(result.stdout)")
        #expect(result.stdout.hasPrefix("Hola"))
        // The same text as a subtitle stays one cue.
        let file = scratch.appendingPathComponent("hostile.txt")
        try hostile.write(to: file, atomically: true, encoding: .utf8)
        let launched = try await TestSupport.run("/usr/bin/gst-launch-1.0", [
            "-q", "filesrc", "location=\(file.path)", "!", "text/x-raw,format=utf8", "!", "transcriptsink", "format=srt", "location=\(srt.path)",
        ], environment: TestSupport.gstEnvironment(registry: scratch))
        #expect(launched.status == 0, "\(launched.stderr)")
        let written = try String(contentsOf: srt, encoding: .utf8)
        #expect(SubtitleCheck.cues(written).count == 1, "\(written)")
        #expect(!written.contains("\u{1B}") && !written.contains("--> 00:09:00,000"))
    }

    /// One LibriVox reading, then `silence` seconds of silence, then optionally the reading again.
    func reading(then silence: Double, again: Bool = false, named name: String) throws -> String {
        let clip = try SpeechFixtures.samples(ofWAV: SpeechFixtures.clips[0])
        let samples = clip + [Int16](repeating: 0, count: Int(silence * 16_000)) + (again ? clip : [])
        let path = scratch.appendingPathComponent("\(name).wav").path
        try SpeechFixtures.writeWAV(samples, rate: 16_000, to: path)
        return path
    }

    /// Telephony's WAVs (µ-law, A-law) and float WAV are cut like 16-bit PCM:
    /// segment-file decodes whatever GStreamer can.
    @Test func segmentFileCutsAMuLawOrFloatRecordingLikeItsPCM() async throws {
        let recording = try SpeechFixtures.threeUtterances(in: scratch)
        func segments(_ path: String) async throws -> [Substring] {
            let result = try await TestSupport.run(TestSupport.parleyExecutable, [
                "run", root.appendingPathComponent("pipelines/segment-file.pipeline").path, "--set", "INPUT=\(path)",
            ], environment: TestSupport.gstEnvironment(registry: scratch))
            #expect(result.status == 0, "\(path): \(result.stderr)")
            return result.stdout.split(separator: "\n").filter { $0.hasPrefix("segment ") }
        }
        let pcm = try await segments(recording.path)
        #expect(pcm.count == 3, "\(pcm)")
        for (name, encoder) in [("ulaw", "audioresample ! audio/x-raw,rate=8000 ! mulawenc"), ("alaw", "alawenc"),
                                ("float", "audioconvert ! audio/x-raw,format=F32LE")] {
            let path = scratch.appendingPathComponent("\(name).wav").path
            let made = try await TestSupport.run("/usr/bin/gst-launch-1.0", ["-q"] + """
                filesrc location=\(recording.path) ! wavparse ! audioconvert ! \(encoder) ! wavenc ! filesink location=\(path)
                """.split(separator: " ").map(String.init))
            #expect(made.status == 0, "\(made.stderr)")
            #expect(try await segments(path).count == pcm.count, "\(name)")
        }
    }

    /// `parley run pipelines/NAME.pipeline` with the microphone replaced by
    /// `source`, the speakers by a WAV at `spoken`, its session at `session`.
    /// Runs a pipeline with its sink a WAV file; `source` replaces SOURCE,
    /// or `set` gives any variable (`INPUT=talk.wav`).
    func runLive(_ name: String, source: String? = nil, set: String? = nil, spoken: URL, session: URL) async throws -> TestSupport.Result {
        let input = (source.map { ["--set", "SOURCE=\($0)"] } ?? []) + (set.map { ["--set", $0] } ?? [])
        return try await TestSupport.run(TestSupport.parleyExecutable, [
            "run", root.appendingPathComponent("pipelines/\(name).pipeline").path, "--quiet"] + input + [
            "--set", "SINK=wavenc ! filesink location=\"\(spoken.path)\"", "--set", "SESSION=\(session.path)",
        ], environment: TestSupport.gstEnvironment(registry: scratch))
    }

    /// A talk with no pause long enough for the 500 ms rule (8 prompts,
    /// 150-280 ms apart), given as `--set INPUT=`: interpret cuts it at breaths into several
    /// utterances, each transcribed, translated and spoken while the talk
    /// goes on, none lost, all in one session.
    @Test func interpretTranslatesATalkWithoutPausesPieceByPiece() async throws {
        let corpus = scratch.appendingPathComponent("talk")
        let built = try await TestSupport.run(TestSupport.parleyExecutable, [
            "bench", "corpus", "talk", "--to", corpus.path, "--limit", "8", "--per-conversation", "8", "--min-words", "4"])
        #expect(built.status == 0, "\(built.stderr)")
        let talk = corpus.appendingPathComponent("talk-01.wav")
        let spoken = scratch.appendingPathComponent("interpreted.wav"), session = scratch.appendingPathComponent("lecture")
        let result = try await runLive("interpret", set: "INPUT=\(talk.path)", spoken: spoken, session: session)
        #expect(result.status == 0, "\(result.stderr)")
        let recorded = SessionFolder(url: session)
        // live-translate hears this talk as one utterance (cut only at max-segment-ms); interpret at its breaths.
        #expect(recorded.records.count >= 4, "\(recorded.records.map(\.source))")
        #expect(recorded.records.map(\.segment) == recorded.records.map(\.segment).sorted())
        let heard = recorded.records.compactMap { $0.source?.text }.joined(separator: " ").lowercased()
        #expect(heard.contains("agent") && heard.contains("pound"), "\(heard)")
        let translated = recorded.records.flatMap(\.translations).filter { !$0.text.isEmpty }
        #expect(translated.filter { SpanishCheck.isSpanish($0.text) }.count >= 3, "\(translated)")
        let wav = try WAVDecoder.decode(try Data(contentsOf: spoken))
        #expect(wav.samples.contains { abs(Int($0)) > 2000 }, "the translation was spoken")
    }

    @Test func liveTranslateSpeaksEachUtteranceWithTheMicrophoneAndSpeakersReplaced() async throws {
        let recording = try SpeechFixtures.threeUtterances(in: scratch)
        let spoken = scratch.appendingPathComponent("speakers.wav"), session = scratch.appendingPathComponent("live")
        // LIKELY_END_MS=300, above the first sentence's weak stretch (judged
        // silent for up to 200 ms; CloudSTTPipelineTests' aLikelyEndStarts...):
        // each segment's one likely end is its sentence's end, whatever the host's load.
        let result = try await runLive("live-translate", source: "recordingsrc location=\"\(recording.path)\"",
                                       set: "LIKELY_END_MS=300", spoken: spoken, session: session)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("transcript ") }.count == 3, "\(result.stdout)")
        let recorded = SessionFolder(url: session)
        #expect(recorded.records.map(\.segment) == [0, 1, 2])
        #expect(recorded.records.allSatisfy { SpanishCheck.isSpanish($0.translations.first?.text ?? "") }, "\(recorded.records)")
        // Each transcript was begun at its pause's likely end, and the log says so.
        #expect(recorded.records.map(\.speculation) == Array(repeating: SessionSpeculation(requests: 1, used: true), count: 3),
                "\(recorded.records.map(\.speculation))")
        let wav = try WAVDecoder.decode(try Data(contentsOf: spoken))
        #expect(Double(wav.samples.count) / Double(wav.rate) > 2, "the speakers got the Spanish speech")
        #expect(wav.samples.contains { abs(Int($0)) > 2000 }, "not silent")
    }

    @Test func theVoiceAssistantAnswersEachUtteranceOfflineAndSpeaksTheAnswer() async throws {
        let recording = try SpeechFixtures.threeUtterances(in: scratch)
        let spoken = scratch.appendingPathComponent("answers.wav"), session = scratch.appendingPathComponent("assistant")
        var environment = TestSupport.gstEnvironment(registry: scratch)
        environment["OPENAI_API_KEY"] = nil  // the chain openai,local without a key: the offline assistant answers
        let result = try await TestSupport.run(TestSupport.parleyExecutable, [
            "run", root.appendingPathComponent("pipelines/voice-assistant.pipeline").path, "--quiet",
            "--set", "SOURCE=filesrc location=\"\(recording.path)\" ! wavparse",
            "--set", "SINK=wavenc ! filesink location=\"\(spoken.path)\"", "--set", "SESSION=\(session.path)",
        ], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("openai") && result.stderr.contains("OPENAI_API_KEY"), "the left-out provider is named: \(result.stderr)")
        let recorded = SessionFolder(url: session)
        #expect(recorded.records.map(\.segment) == [0, 1, 2])
        for record in recorded.records {
            let question = record.source?.text ?? "", answer = record.translations.map(\.text).joined(separator: " ")
            #expect(answer.hasPrefix("I heard: \(question)") && answer.contains("Offline I can"), "\(question) → \(answer)")
            #expect(record.translations.first?.provider?.hasPrefix("local (offline assistant") == true, "\(record.translations)")
        }
        let wav = try WAVDecoder.decode(try Data(contentsOf: spoken))
        #expect(Double(wav.samples.count) / Double(wav.rate) > 3 && wav.samples.contains { abs(Int($0)) > 2000 }, "the answers were spoken")
    }

    @Test func dictationWritesWhatWasSaidWhileTheSpaceBarWasOn() async throws {
        signal(SIGPIPE, SIG_IGN)  // a child that died early must fail the test, not end it
        // Real time: 3.3 s of speech, then 3 s of silence. Space at the start, space again in the silence.
        let recording = try reading(then: 3.0, named: "dictated")
        let output = scratch.appendingPathComponent("notes.txt")
        try "an earlier note\n".write(to: output, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TestSupport.parleyExecutable)
        process.arguments = [
            "run", "--ptt", root.appendingPathComponent("pipelines/dictation.pipeline").path,
            "--set", "SOURCE=filesrc location=\"\(recording)\" ! wavparse ! identity sync=true",
            "--set", "OUTPUT=\(output.path)",
        ]
        // The default chain, groq,local, with no Groq key: Groq is left out and Whisper-base listens.
        var environment = ProcessInfo.processInfo.environment
        environment["GROQ_API_KEY"] = nil
        process.environment = environment
        let keys = Pipe(), out = Pipe(), err = Pipe()
        (process.standardInput, process.standardOutput, process.standardError) = (keys, out, err)
        let banner = LineWatcher(err, waitingFor: "push-to-talk:")
        try ProcessEnvironment.whileSpawning { try process.run() }
        let stdout = DrainedPipe(out)
        // The keys are pressed from a thread of its own, timed from the banner: a busy
        // machine must not delay them the way it may delay this test's task.
        let presser = Thread {
            guard banner.wait(seconds: 60) else { return }
            try? keys.fileHandleForWriting.write(contentsOf: Data(" ".utf8))
            usleep(4_800_000)
            try? keys.fileHandleForWriting.write(contentsOf: Data("\n".utf8))
        }
        presser.start()
        let printed = await String(decoding: stdout.wait(seconds: 60), as: UTF8.self)
        await process.waitUntilExit()
        #expect(banner.text.contains("push-to-talk:"), "parley run announces push-to-talk once playing")
        #expect(process.terminationStatus == 0, "\(banner.text)")
        let segments = printed.split(separator: "\n").filter { $0.hasPrefix("segment ") }
        #expect(segments.count == 1 && segments[0].contains("ptt-release"), "one segment, as long as the bar was on: \(printed)")
        let notes = try String(contentsOf: output, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(notes.count == 2 && notes[0] == "an earlier note", "appended, the earlier note kept: \(notes)")
        #expect(notes.last?.lowercased().contains("young man") == true, "\(notes)")
        #expect(banner.text.contains("● talking") && banner.text.contains("○ not talking"), "the state is shown: \(banner.text)")
    }

    @Test func aRealtimeSessionSwitchesFromVADToPushToTalkWhileRunning() async throws {
        // Real time: the reading, 3 s of silence, the reading again (about 9.6 s).
        let recording = try reading(then: 3.0, again: true, named: "turns")
        let session = scratch.appendingPathComponent("realtime")
        let file = try PipelineFile(path: root.appendingPathComponent("pipelines/realtime-session.pipeline").path)
        let tokens = try file.tokens(overrides: [
            "SOURCE": "filesrc location=\"\(recording)\" ! wavparse ! identity sync=true",
            "SINK": "fakesink", "SESSION": session.path,
        ])
        let pipeline = try Pipeline(launch: PipelineFile.launchString(tokens))
        // The switches are made from a thread of its own, which watches the segmenter's own
        // count of closed turns (a busy machine may run this test's task late). When the first
        // turn has ended (about 3.8 s): push-to-talk with the button up, so the second reading
        // (from 6.3 s) makes no turn until the button goes down 3.5 s later (about 7.3 s); the
        // VAD would have opened it at 6.0 s.
        let turns = try #require(pipeline.element(named: "turns"))
        let switcher = Thread {
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline, (turns.property("segments")?.uint64 ?? 0) < 1 { usleep(2_000) }
            try? pipeline.set("mode", of: "turns", to: "ptt")
            usleep(3_500_000)
            try? pipeline.set("ptt-active", of: "turns", to: "true")
        }
        var segments: [SegmentEvent] = [], transcripts: [TextResult] = []
        switcher.start()
        try await pipeline.run { event in
            if case .segment(let segment) = event, segment.end != nil { segments.append(segment) }
            if case .transcript(let result) = event, result.status == .final { transcripts.append(result) }
        }
        #expect(segments.map(\.reason) == ["silence", "eos"], "a VAD turn, then a push-to-talk turn: \(segments)")
        let second = Double(segments.last?.start ?? 0) / 1e9
        #expect(second > 6.5, "the second turn began at the press, not where the VAD would have begun it (6.0 s): \(second)")
        #expect(transcripts.count == 2 && transcripts[0].text.lowercased().contains("young man"), "\(transcripts)")
        let recorded = SessionFolder(url: session)
        #expect(recorded.records.count == 2 && recorded.records.allSatisfy { !($0.translations.first?.text ?? "").isEmpty })
    }
}
