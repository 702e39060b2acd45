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

/// The mutation fuzzer runs from its corpus and replays an input (the full
/// runs, 10^6 inputs a parser, are scripts/fuzz's; here only that it works).
@Suite struct FuzzerTests {
    let fuzzer = TestSupport.buildFolder.appendingPathComponent("parley-fuzz").path

    @Test func everyTargetRunsItsSeedsAndMutantsWithoutACrash() async throws {
        let corpus = TestSupport.packageRoot.appendingPathComponent("fuzz/corpus").path
        for target in ["sse", "multipart", "wav", "flac", "pipeline", "session-log", "job"] {
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
