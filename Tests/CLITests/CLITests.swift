import Foundation
import ParleyCore
import ParleyTestSupport
import Testing

/// The `parley` executable, run as a user would.
@Suite struct CLITests {
    let scratch = TestSupport.temporaryFolder()

    func write(_ name: String, _ text: String) throws -> String {
        let url = scratch.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    func parley(_ arguments: [String]) async throws -> TestSupport.Result {
        try await TestSupport.run(TestSupport.parleyExecutable, arguments,
                                  environment: TestSupport.gstEnvironment(registry: scratch))
    }

    @Test func validateExitsZeroForAGoodFileAndTwoWithPositionsForABadOne() async throws {
        let good = try write("good.pipeline", "#@ description fine\nfakesrc num-buffers=1 ! fakesink\n")
        let ok = try await parley(["validate", good])
        #expect(ok.status == 0)
        // A path written without its extension finds the file.
        let bare = try await parley(["validate", String(good.dropLast(".pipeline".count))])
        #expect(bare.status == 0 && bare.stdout.contains("good.pipeline: ok"), "\(bare.stderr)")
        let bad = try write("bad.pipeline", "#@ description broken\nfakesrc ! fakesinc\n")
        let failed = try await parley(["validate", bad])
        #expect(failed.status == 2)
        #expect(failed.stderr.contains("bad.pipeline:2:11: error: no element \"fakesinc\"; did you mean \"fakesink\"?"))
    }

    @Test func runWritesTheTranscriptAndExitsZero() async throws {
        let input = try write("words.txt", "saved by parley run")
        let output = scratch.appendingPathComponent("out.txt").path
        let file = try write("save.pipeline", """
            #@ description Save text
            #@ var INPUT=missing.txt  Text to save
            #@ var OUTPUT=out.txt  Where to save it
            filesrc location=${INPUT} ! text/x-raw,format=utf8 ! transcriptsink location=${OUTPUT}
            """)
        let result = try await parley(["run", file, "--set", "INPUT=\(input)", "--set", "OUTPUT=\(output)"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try String(contentsOfFile: output, encoding: .utf8) == "saved by parley run\n")
    }

    @Test func runCreatesTheFoldersItsFileSinksWriteInto() async throws {
        let input = try write("words.txt", "into a folder not made yet")
        let file = try write("save2.pipeline", """
            #@ description Save text twice
            #@ var OUTPUT=out/text.txt  Where to save it
            #@ var COPY=out/copy.txt  Where the copy goes
            filesrc location=\(input) ! tee name=t
            t. ! queue ! text/x-raw,format=utf8 ! transcriptsink location=${OUTPUT}
            t. ! queue ! filesink location=${COPY}
            """)
        let output = scratch.appendingPathComponent("results/today/text.txt").path
        let copy = scratch.appendingPathComponent("copies/text.txt").path
        let result = try await parley(["run", file, "--set", "OUTPUT=\(output)", "--set", "COPY=\(copy)"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try String(contentsOfFile: output, encoding: .utf8) == "into a folder not made yet\n")
        #expect(try String(contentsOfFile: copy, encoding: .utf8) == "into a folder not made yet")

        // A folder that cannot be made: the sink and the folder are named, nothing runs.
        let blocked = try write("blocked", "a file, not a folder")
        let refused = try await parley(["run", file, "--set", "OUTPUT=\(blocked)/inner/text.txt", "--set", "COPY=\(copy)"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("transcriptsink0: cannot create the folder \"\(blocked)/inner\""), "\(refused.stderr)")
        #expect(refused.stderr.contains("Not a directory"), "\(refused.stderr)")
    }

    @Test func runExitsOneWithTheElementsMessageWhenThePipelineFails() async throws {
        let file = try write("fail.pipeline", "#@ description Read a file that is not there\nfilesrc location=/nonexistent/file.wav ! fakesink\n")
        let result = try await parley(["run", file])
        #expect(result.status == 1)
        #expect(result.stderr.contains("/nonexistent/file.wav"))
    }

    /// A sink's properties include a GstSample (last-sample) whose default is
    /// NULL: naming the sink's properties for a hint, or describing one,
    /// must not make GStreamer print criticals (it did, five of them).
    @Test func aHintOnASinksPropertiesIsCleanOfCriticals() async throws {
        for (line, expected) in [("fakesink last-samplx=1", "did you mean \"last-sample\"?"),
                                 ("fakesink last-sample=1", "is not a valid GstSample for fakesink.last-sample")] {
            let file = try write("sink.pipeline", "#@ description x\nfakesrc num-buffers=1 ! \(line)\n")
            let result = try await parley(["validate", file])
            #expect(result.status == 2 && result.stderr.contains(expected), "\(result.stderr)")
            #expect(!result.stderr.contains("CRITICAL"), "\(result.stderr)")
        }
    }

    @Test func runRejectsUnknownSetVariables() async throws {
        let file = try write("v.pipeline", "#@ description x\nfakesrc num-buffers=1 ! fakesink\n")
        let result = try await parley(["run", file, "--set", "NOPE=1"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("NOPE"))
    }

    /// A batch or job id is checked before any server is asked: a dot or a
    /// wildcard would name other batches' subjects. Nothing listens on port 1,
    /// so reaching for the server would say so instead.
    @Test func jobsRefusesAnIdThatIsNeitherABatchNorAJob() async throws {
        for id in ["a.>", "*", "ABC", "abc-x", "abc234-1\nforged"] {
            let result = try await parley(["jobs", "status", id, "--nats", "nats://127.0.0.1:1"])
            #expect(result.status == 2, "\(id): \(result.stderr)")
            #expect(result.stderr.contains("is neither a batch id") && !result.stderr.contains("connecting"), "\(id): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(id): \(result.stderr)")
        }
        let wellFormed = try await parley(["jobs", "status", "abc234-0002", "--nats", "nats://127.0.0.1:1"])
        #expect(wellFormed.status != 0 && wellFormed.stderr.contains("connecting to nats://127.0.0.1:1"), "\(wellFormed.stderr)")
    }

    @Test func aWrongValueFoundWhileRunningIsOneErrorLine() async throws {
        let empty = scratch.appendingPathComponent("no-sessions").path
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let none = try await parley(["sessions", "show", "nope", "--dir", empty])
        #expect(none.status == 2)
        #expect(none.stderr == "error: no session \"nope\": \(empty) holds none\n", "\(none.stderr)")
        let set = try await parley(["run", "--set", "X", "anything.pipeline"])
        #expect(set.status == 2)
        #expect(set.stderr == "error: --set takes KEY=VALUE, got \"X\"\n", "\(set.stderr)")
        // Options ArgumentParser checks while parsing keep its usage line, of the right command.
        let runs = try await parley(["bench", "run", "x.pipeline", "--corpus", "c.jsonl", "--runs", "0"])
        #expect(runs.status == 2)
        #expect(runs.stderr.contains("error: --runs must be at least 1") && runs.stderr.contains("Usage: parley bench run"), "\(runs.stderr)")
    }

    /// GStreamer's error for data it cannot decode names typefind, inside
    /// decodebin, and filesrc's for a missing file says "Resource not
    /// found."; the user needs the file: parley names it.
    @Test func aRecordingThatCannotBeReadIsNamedInTheError() async throws {
        let garbage = scratch.appendingPathComponent("not audio.wav")
        try Data((0..<400).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }).write(to: garbage)
        let file = try write("decode.pipeline", """
            #@ description Decode a recording
            #@ var INPUT=missing.wav  The recording
            filesrc location=${INPUT} ! decodebin ! audioconvert ! fakesink
            """)
        let result = try await parley(["run", file, "--set", "INPUT=\(garbage.path)"])
        #expect(result.status == 1)
        let error = result.stderr.split(separator: "\n").first { $0.hasPrefix("error:") }
        #expect(error == "error: typefind: Could not determine type of stream. (reading \"\(garbage.path)\")", "\(result.stderr)")

        // A file that is not there: filesrc says only "Resource not found."
        let missing = scratch.appendingPathComponent("gone.wav").path
        let notFound = try await parley(["run", file, "--set", "INPUT=\(missing)"])
        #expect(notFound.status == 1)
        #expect(notFound.stderr.split(separator: "\n").first { $0.hasPrefix("error:") }
            == "error: filesrc0: Resource not found. (reading \"\(missing)\")", "\(notFound.stderr)")
    }

    @Test func serveHelpNamesEveryRouteTheServerAnswers() async throws {
        let help = try await parley(["serve", "--help"])
        #expect(help.status == 0)
        // ServerTests exercise each of these on a real server.
        for route in ["POST /v1/audio/transcriptions", "POST /v1/audio/translations", "POST /v1/chat/completions", "POST /v1/audio/speech", "GET /v1/models"] {
            #expect(help.stdout.replacingOccurrences(of: "\n", with: " ").contains(route), "\(route) missing from: \(help.stdout)")
        }
    }

    @Test func everyCommandsHelpReadsAsProse() async throws {
        // Every command and subcommand, found from the help itself.
        var pending: [[String]] = [[]], seen = 0
        while let command = pending.popLast() {
            let help = try await parley(command + ["--help"])
            #expect(help.status == 0, "\(command)")
            seen += 1
            let lines = help.stdout.split(separator: "\n", omittingEmptySubsequences: false)
            for line in lines where line.hasSuffix("\\") {
                Issue.record("parley \(command.joined(separator: " ")) --help: a stray line continuation: \(line)")
            }
            // The exit status table's rows and their continuations are indented;
            // a row too long for the help's width comes back wrapped to column 0.
            if let table = lines.firstIndex(of: "Exit status (every command):") {
                for line in lines[(table + 1)...].prefix(while: { !$0.isEmpty }) where !line.hasPrefix("  ") {
                    Issue.record("parley \(command.joined(separator: " ")) --help: the exit status table wraps: \(line)")
                }
            }
            guard let start = lines.firstIndex(of: "SUBCOMMANDS:") else { continue }
            for line in lines[(start + 1)...] where line.hasPrefix("  ") && !line.hasPrefix("   ") && !line.contains("See '") {
                if let name = line.split(separator: " ").first { pending.append(command + [String(name)]) }
            }
        }
        #expect(seen > 20, "commands found: \(seen)")
    }

    @Test func listShowsDescriptionsAndVariables() async throws {
        _ = try write("alpha.pipeline", "#@ description The first one\n#@ var X=1  An x\nfakesrc ! fakesink\n")
        let result = try await parley(["list", "--directory", scratch.path])
        #expect(result.status == 0)
        #expect(result.stdout.contains("alpha"))
        #expect(result.stdout.contains("The first one"))
        #expect(result.stdout.contains("X=1  An x"))
    }

    @Test func inspectDocumentsAnElement() async throws {
        let result = try await parley(["inspect", "transcriptsink"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("finals-only"))
        #expect(result.stdout.contains("default true"))
        let unknown = try await parley(["inspect", "nosuchelement"])
        #expect(unknown.status == 2)
    }

    @Test func interruptEndsTheInputAndDrainsToEOS() async throws {
        let file = try write("live.pipeline", """
            #@ description A live source that never ends by itself
            audiotestsrc is-live=true ! audioconvert ! fakesink
            """)
        // Interrupt only once it is really running (a fresh registry scan can take seconds).
        let (process, collected) = try await startPlaying(file)
        try await Task.sleep(nanoseconds: 300_000_000)
        process.interrupt()
        let status = await exitStatus(process)
        let stderr = collected.text
        #expect(status == 0, "EOS drained cleanly: \(stderr)")
        #expect(stderr.contains("draining"))
    }
}

extension CLITests {
    /// Starts `parley run FILE` and waits until it says it runs; returns the process and its stderr.
    func startPlaying(_ file: String) async throws -> (Process, LockedText) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TestSupport.parleyExecutable)
        process.arguments = ["run", file]
        process.environment = TestSupport.gstEnvironment(registry: scratch)
        let err = Pipe()
        let collected = LockedText()
        err.fileHandleForReading.readabilityHandler = { collected.append($0.availableData) }
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try ProcessEnvironment.whileSpawning { try process.run() }
        for _ in 0..<300 where !collected.text.contains("running ") {
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        return (process, collected)
    }

    func exitStatus(_ process: Process) async -> Int32 {
        await withCheckedContinuation { continuation in
            Thread { process.waitUntilExit(); continuation.resume(returning: process.terminationStatus) }.start()
        }
    }

    /// A WAV whose RIFF and data sizes match the file: playable to its end
    /// (an unfinished wavenc header claims no or endless samples).
    func isFinalizedWAV(_ path: String) throws -> Bool {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        guard bytes.count > 44 else { return false }
        func u32(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
        guard let data = (12..<(bytes.count - 8)).first(where: { bytes[$0..<($0 + 4)] == Array("data".utf8)[...] }) else { return false }
        // wavenc may end the file with a chunk of its own after the samples.
        let samples = u32(data + 4)
        return u32(4) == bytes.count - 8 && samples > 0 && data + 8 + samples <= bytes.count && bytes.count - (data + 8 + samples) < 64
    }

    /// SIGTERM (a service manager stopping parley) drains like Ctrl-C: the WAV is complete.
    @Test func sigtermDrainsLikeCtrlC() async throws {
        let wav = scratch.appendingPathComponent("term.wav").path
        let file = try write("term.pipeline", """
            #@ description A live source written to a WAV
            audiotestsrc is-live=true ! audioconvert ! wavenc ! filesink location=\(wav)
            """)
        let (process, collected) = try await startPlaying(file)
        try await Task.sleep(nanoseconds: 500_000_000)
        process.terminate()
        let status = await exitStatus(process)
        #expect(status == 0, "\(collected.text)")
        #expect(collected.text.contains("SIGTERM: finishing the input and draining"))
        #expect(try isFinalizedWAV(wav))
    }

    /// A second signal while a slow branch still drains aborts, and the WAV written so far is still complete.
    @Test func aSecondSignalAbortsAndKeepsTheWAVPlayable() async throws {
        let wav = scratch.appendingPathComponent("abort.wav").path
        let file = try write("abort.pipeline", """
            #@ description A live source to a WAV through a stage too slow to drain quickly
            audiotestsrc is-live=true samplesperbuffer=1600 ! queue max-size-buffers=0 max-size-time=0 max-size-bytes=0
              ! identity sleep-time=300000 ! audioconvert ! wavenc ! filesink location=\(wav)
            """)
        let (process, collected) = try await startPlaying(file)
        try await Task.sleep(nanoseconds: 2_000_000_000)
        process.interrupt()
        for _ in 0..<50 where !collected.text.contains("draining") { try await Task.sleep(nanoseconds: 20_000_000) }
        process.terminate()
        let status = await exitStatus(process)
        #expect(status == 130, "\(collected.text)")
        #expect(collected.text.contains("SIGTERM: aborting"))
        #expect(try isFinalizedWAV(wav), "the header of \(wav) was not completed")
    }
}

final class LockedText: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    func append(_ more: Data) { lock.withLock { data.append(more) } }
    var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }
}
