import Foundation
import ParleyCore
import ParleyTestSupport
import Testing

/// A session folder whose files were written by a hostile provider or edited
/// by hand: what `parley sessions` prints is safe for the terminal, and play
/// reads only the session's own audio.
@Suite struct HostileSessionTests {
    let scratch = TestSupport.temporaryFolder()

    func parley(_ arguments: [String]) async throws -> TestSupport.Result {
        try await TestSupport.run(TestSupport.parleyExecutable, arguments)
    }

    /// Escape sequences (clear screen, set title), NUL, backspace and a
    /// right-to-left override in every text a provider or an editor could
    /// have put there; a log pointing its audio outside the folder; a
    /// duration that is negative.
    func hostileSession() throws -> String {
        let root = scratch.appendingPathComponent("sessions").path
        let folder = "\(root)/20261128-0000"
        try FileManager.default.createDirectory(atPath: "\(folder)/audio", withIntermediateDirectories: true)
        let nasty = "ok\u{1B}[2J\u{1B}]0;pwned\u{07}\u{0}\u{8}\u{202E}gnp.exe"
        var info = SessionInfo(id: "x", started: "2026-11-28T00:00:00Z", pipeline: nasty, variables: [:])
        info.duration = -1e300
        info.languages = ["es\u{1B}[31m"]
        try JSONEncoder().encode(info).write(to: URL(fileURLWithPath: "\(folder)/session.json"))
        var record = SegmentRecord(segment: 0, start: 0, end: 1)
        record.source = SessionText(text: nasty, language: "en", status: "final")
        record.translations = [SessionText(text: nasty, language: "es", status: "final")]
        record.status = "failed"
        record.reason = nasty
        record.audio = ["../../outside.wav", "/etc/passwd"]
        try (JSONLines.text([record])).write(toFile: "\(folder)/session.jsonl", atomically: true, encoding: .utf8)
        try WAVEncoder.encode([Int16](repeating: 1000, count: 1600), rate: 16_000).write(to: scratch.appendingPathComponent("outside.wav"))
        return root
    }

    func expectSafe(_ text: String, _ what: String) {
        for scalar in text.unicodeScalars where scalar != "\n" {
            #expect(!SafeText.isUnsafe(scalar), "\(what) printed U+\(String(scalar.value, radix: 16)): \(text.debugDescription)")
        }
    }

    @Test func showListAndExportPrintNothingThatDrivesTheTerminal() async throws {
        let root = try hostileSession()
        let show = try await parley(["sessions", "show", "20261128-0000", "--dir", root])
        #expect(show.status == 0, "\(show.stderr)")
        #expect(show.stdout.contains("gnp.exe"), "the text is shown, only its controls are not")
        expectSafe(show.stdout, "show")
        let list = try await parley(["sessions", "list", "--dir", root])
        #expect(list.status == 0, "\(list.stderr)")
        expectSafe(list.stdout, "list")
        #expect(list.stdout.contains("   0.0 s"), "a negative duration reads as none: \(list.stdout)")
        let export = try await parley(["sessions", "export", "20261128-0000", "--format", "txt", "--dir", root])
        #expect(export.status == 0, "\(export.stderr)")
        expectSafe(export.stdout, "export txt")
    }

    @Test func playReadsNoAudioFromOutsideTheSessionFolder() async throws {
        let root = try hostileSession()
        let output = scratch.appendingPathComponent("out.wav").path
        let play = try await parley(["sessions", "play", "20261128-0000", "--to", output, "--dir", root])
        #expect(play.status != 0, "nothing of the session's own to play")
        #expect(play.stderr.contains("skipped 2 audio paths of the log that lead outside the session folder"), "\(play.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}

/// `parley sessions` never leaves the user guessing: list in time order,
/// play says what it plays and when nothing could be heard, a declined
/// deletion says so.
@Suite struct SessionCommandsTests {
    let scratch = TestSupport.temporaryFolder()

    /// A session of one utterance with its spoken audio, started at `started`.
    func session(_ name: String, started: String, in root: String) throws {
        let folder = "\(root)/\(name)"
        try FileManager.default.createDirectory(atPath: "\(folder)/audio", withIntermediateDirectories: true)
        try JSONEncoder().encode(SessionInfo(id: name, started: started, pipeline: "p", variables: [:]))
            .write(to: URL(fileURLWithPath: "\(folder)/session.json"))
        var record = SegmentRecord(segment: 0, start: 0, end: 1)
        record.audio = ["audio/0000.es.wav"]
        try JSONLines.text([record]).write(toFile: "\(folder)/session.jsonl", atomically: true, encoding: .utf8)
        try WAVEncoder.encode([Int16](repeating: 1000, count: 8000), rate: 16_000).write(to: URL(fileURLWithPath: "\(folder)/audio/0000.es.wav"))
    }

    @Test func listIsInTimeOrderAndADeclinedDeletionSaysSo() async throws {
        let root = scratch.appendingPathComponent("sessions").path
        // Named against their order in time: the list follows the time.
        try session("b-first", started: "2026-11-27T09:00:00Z", in: root)
        try session("a-second", started: "2026-11-28T09:00:00Z", in: root)
        let list = try await TestSupport.run(TestSupport.parleyExecutable, ["sessions", "list", "--dir", root])
        let ids = list.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: " ").first.map(String.init) ?? "" }
        #expect(ids == ["b-first", "a-second"], "\(list.stdout)")
        let declined = try await TestSupport.run(TestSupport.parleyExecutable, ["sessions", "delete", "a-second", "--dir", root], input: "n\n")
        #expect(declined.status == 1)
        #expect(declined.stderr.contains("not deleted: answered no (-y deletes without asking)"), "\(declined.stderr)")
        #expect(FileManager.default.fileExists(atPath: "\(root)/a-second"))
    }

    /// Played where no sound device answers (as on a CI machine), it says so
    /// and fails; where one does, it plays and says nothing is wrong.
    @Test func playSaysWhatItPlaysAndWhenNothingCouldBeHeard() async throws {
        let root = scratch.appendingPathComponent("sessions").path
        try session("one", started: "2026-11-28T09:00:00Z", in: root)
        let play = try await TestSupport.run(TestSupport.parleyExecutable, ["sessions", "play", "one", "--dir", root])
        #expect(play.stderr.contains("playing 1 utterance, 0.5 s"), "\(play.stderr)")
        if play.status == 0 {
            #expect(!play.stderr.contains("warning:"), "a warning and success: \(play.stderr)")
        } else {
            #expect(play.status == 1)
            #expect(play.stderr.contains("error: the audio could not be played: no sound device answered"), "\(play.stderr)")
        }
    }
}

/// The mutation fuzzer runs from its corpus and replays an input (the full
/// runs, 10^6 inputs a parser, are scripts/fuzz's; here only that it works).
@Suite struct FuzzerTests {
    let fuzzer = TestSupport.buildFolder.appendingPathComponent("parley-fuzz").path

    @Test func everyTargetRunsItsSeedsAndMutantsWithoutACrash() async throws {
        let corpus = TestSupport.packageRoot.appendingPathComponent("fuzz/corpus").path
        for target in ["sse", "multipart", "wav", "flac", "pipeline", "session-log", "job", "chat", "speech"] {
            let run = try await TestSupport.run(fuzzer, [target, "--iterations", "2000", "--corpus", corpus])
            #expect(run.status == 0 && run.stdout.contains("\(target): 2000 inputs from") && run.stdout.contains("no crash"),
                    "\(target): \(run.stdout) \(run.stderr)")
        }
        let replay = try await TestSupport.run(fuzzer, ["wav", "--replay", "\(corpus)/wav/mulaw.wav"])
        #expect(replay.status == 0 && replay.stdout.contains("ran without a crash"), "\(replay.stderr)")
        let unknown = try await TestSupport.run(fuzzer, ["nope", "--corpus", corpus])
        #expect(unknown.status == 2 && unknown.stderr.contains("targets: sse, multipart, wav"), "\(unknown.stderr)")
    }
}
