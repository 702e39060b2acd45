import Foundation
import ParleyCore
import ParleyTestSupport
import Testing

/// `parley worker`, `submit` and `jobs` against a real nats-server (file
/// storage, loopback), running real speech through the local engines.
@Suite(.serialized, .heavy, .enabled(if: NATSServer.isInstalled, "needs Debian's nats-server (scripts/setup installs it)"))
struct WorkQueueTests {
    /// A transcription pipeline of the kind users submit: decode, segment,
    /// Whisper-base, a recorded session.
    static let pipeline = """
        #@ description Transcribe a recording into a session
        #@ var INPUT=  The recording
        #@ var SESSION=  The session folder
        filesrc location=${INPUT} ! decodebin ! audioconvert ! audioresample ! audio/x-raw,format=S16LE,channels=1,rate=16000
          ! vadsegmenter ! cloudstt provider=local language=en ! tee name=heard
        heard. ! queue ! rec.transcript_%u
        sessionrecorder name=rec location=${SESSION}
        """

    /// One server, its folder, and the workers started on it.
    final class Cluster: @unchecked Sendable {
        let folder = TestSupport.temporaryFolder()
        let server: NATSServer
        let environment: [String: String]
        let pipelineFile: String
        /// The address clients are given (the server's `tls://` one when it speaks TLS).
        var url: String
        var workers: [ParleyProcess] = []

        init(serverOptions: [String] = [], environment extra: [String: String] = [:]) async throws {
            server = try await NATSServer(storage: folder.appendingPathComponent("store"), options: serverOptions)
            environment = TestSupport.gstEnvironment(registry: folder).merging(extra) { _, new in new }
            pipelineFile = folder.appendingPathComponent("transcribe.pipeline").path
            try WorkQueueTests.pipeline.write(toFile: pipelineFile, atomically: true, encoding: .utf8)
            url = server.url
        }

        /// Starts a worker and waits until it takes jobs.
        @discardableResult
        func worker(_ extra: [String] = ["--ack-wait", "4"]) async throws -> ParleyProcess {
            // Run from the cluster's folder: what a job writes must not land here.
            let worker = try ParleyProcess(["worker", "--nats", url] + extra, environment: environment, currentDirectory: folder)
            #expect(await worker.wait(for: "taking jobs", seconds: 120), "worker did not start: \(worker.output)")
            workers.append(worker)
            return worker
        }

        func parley(_ arguments: [String]) async throws -> TestSupport.Result {
            try await TestSupport.run(TestSupport.parleyExecutable, arguments + ["--nats", url], environment: environment)
        }

        /// Submits one job per input (of `pipeline`, the cluster's own by default); returns the batch id.
        func submit(_ inputs: [String], pipeline: String? = nil) async throws -> String {
            let submitted = try await parley(["submit", pipeline ?? pipelineFile, "--input"] + inputs)
            #expect(submitted.status == 0, "\(submitted.stderr)")
            let first = submitted.stdout.split(separator: "\n").first ?? ""
            #expect(submitted.stdout.split(separator: "\n").count == inputs.count + 1)
            return String(first.split(separator: " ")[1].dropLast())
        }

        func status(_ batch: String) async throws -> [JobStatus] {
            let status = try await parley(["jobs", "status", batch, "--json"])
            #expect(status.status == 0, "\(status.stderr)")
            return try status.stdout.split(separator: "\n").map { try JSONDecoder().decode(JobStatus.self, from: Data($0.utf8)) }
        }

        deinit {
            workers.removeAll()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    /// `parley jobs status --json`, as a script reads it.
    struct JobStatus: Decodable {
        struct Result: Decodable {
            struct Line: Decodable { let kind: String; let text: String }
            struct File: Decodable { let name: String; let size: Int }
            let status: String
            let worker: String
            let attempts: Int
            let audioSeconds: Double
            let reasons: [String]
            let lines: [Line]
            let files: [File]
        }
        struct Event: Decodable { let event: String; let attempt: Int? }
        let job: String
        let input: String
        let state: String
        let events: [Event]
        let result: Result?
        let publications: Int

        var transcript: String { result?.lines.filter { $0.kind == "transcript" }.map(\.text).joined(separator: " ") ?? "" }
    }

    @Test func twelveJobsOnThreeWorkersEachGiveOneResultAndTheirSessionsComeBack() async throws {
        let cluster = try await Cluster()
        for _ in 0..<3 { try await cluster.worker() }
        let prompts = try await SpeechFixtures.asteriskPrompts("en", count: 12)
        #expect(prompts.count == 12)
        let batch = try await cluster.submit(prompts.map(\.path))
        let watch = try await cluster.parley(["jobs", "watch", batch, "--timeout", "400"])
        #expect(watch.status == 0, "\(watch.stderr)\n\(cluster.workers.map(\.output).joined(separator: "\n"))")
        #expect(watch.stderr.contains("12/12"))

        let jobs = try await cluster.status(batch)
        #expect(jobs.count == 12)
        for (job, prompt) in zip(jobs, prompts) {
            #expect(job.state == "done", "\(job.job): \(job.state)")
            #expect(job.publications == 1, "\(job.job) has \(job.publications) results")
            #expect(job.input == (prompt.path as NSString).lastPathComponent)
            let wav = try WAVDecoder.decode(try Data(contentsOf: URL(fileURLWithPath: prompt.path)))
            let seconds = Double(wav.samples.count) / Double(wav.rate)
            #expect(abs((job.result?.audioSeconds ?? 0) - seconds) < 0.05, "\(job.job): \(job.result?.audioSeconds ?? 0) s reported, \(seconds) s long")
            let error = WordErrorRate.score(reference: prompt.text, hypothesis: job.transcript).rate
            #expect(error < 0.5, "\(job.job): heard \"\(job.transcript)\" for \"\(prompt.text)\"")
        }
        // The queue spread the work.
        let workers = Set(jobs.compactMap { $0.result?.worker })
        #expect(workers.count >= 2, "all jobs went to \(workers)")

        // The sessions come back as folders `parley sessions` reads.
        let into = cluster.folder.appendingPathComponent("fetched")
        let fetch = try await cluster.parley(["jobs", "fetch", batch, "--to", into.path])
        #expect(fetch.status == 0, "\(fetch.stderr)")
        let first = jobs[0]
        let show = try await TestSupport.run(TestSupport.parleyExecutable,
                                             ["sessions", "show", "--dir", into.appendingPathComponent(first.job).path, "session"])
        #expect(show.status == 0, "\(show.stderr)")
        let firstWords = first.transcript.split(separator: " ").prefix(2).joined(separator: " ")
        #expect(!firstWords.isEmpty && show.stdout.contains(firstWords), "\(show.stdout)")

        // SIGTERM drains: every worker exits 0, saying so.
        for worker in cluster.workers { worker.signal(SIGTERM) }
        for worker in cluster.workers {
            #expect(await worker.exitStatus(within: 30) == 0)
            #expect(worker.output.contains("drained"))
        }
    }

    /// `--work-dir` is the user's folder: a job's own folder in it is gone
    /// when the job ends, and what the user kept there outlives the worker.
    @Test func aWorkerLeavesItsWorkDirAndWhatTheUserKeptThere() async throws {
        let cluster = try await Cluster()
        let workDir = cluster.folder.appendingPathComponent("work")
        let kept = workDir.appendingPathComponent("notes.txt")
        try FileManager.default.createDirectory(at: workDir, withIntermediateDirectories: true)
        try "mine".write(to: kept, atomically: true, encoding: .utf8)
        let worker = try await cluster.worker(["--ack-wait", "4", "--work-dir", workDir.path])
        let prompts = try await SpeechFixtures.asteriskPrompts("en", count: 1)
        let batch = try await cluster.submit(prompts.map(\.path))
        let watch = try await cluster.parley(["jobs", "watch", batch, "--timeout", "120"])
        #expect(watch.status == 0, "\(watch.stderr)\n\(worker.output)")

        worker.signal(SIGTERM)
        #expect(await worker.exitStatus(within: 30) == 0)
        #expect(worker.output.contains("drained"))
        #expect(try String(contentsOf: kept, encoding: .utf8) == "mine", "the user's file is gone")
        let left = try FileManager.default.contentsOfDirectory(atPath: workDir.path)
        #expect(left == ["notes.txt"], "the job's folder stays: \(left)")
    }

    @Test func theTranslatePipelineOnAWorkerBringsBackSubtitlesSpokenAudioAndTheSession() async throws {
        let cluster = try await Cluster()
        // Jobs take longer than the 2 s ack wait (checked below): only the
        // worker's in-progress acknowledgements, every third of it, keep them
        // from being delivered again. (At 1 s a fully loaded machine could
        // hold the worker or the server back that long between two.)
        let ackWait = 2.0
        try await cluster.worker(["--concurrency", "2", "--ack-wait", "\(Int(ackWait))"])
        // Two readings of three sentences each (about 16 s of speech), in two orders.
        let clips = [
            try SpeechFixtures.recording(of: SpeechFixtures.clips, named: "forwards", in: cluster.folder),
            try SpeechFixtures.recording(of: SpeechFixtures.clips.reversed(), named: "backwards", in: cluster.folder),
        ]
        let file = TestSupport.packageRoot.appendingPathComponent("pipelines/translate-file.pipeline").path
        let submitted = try await cluster.parley(["submit", file, "--set", "TARGET=es", "--input"] + clips.map(\.path))
        #expect(submitted.status == 0, "\(submitted.stderr)")
        let batch = String(submitted.stdout.split(separator: " ")[1].dropLast())
        let watch = try await cluster.parley(["jobs", "watch", batch, "--timeout", "300"])
        #expect(watch.status == 0, "\(watch.stderr)\n\(cluster.workers[0].output)")
        for job in try await cluster.status(batch) {
            #expect(!job.events.contains { $0.event == "started" && ($0.attempt ?? 1) > 1 }, "\(job.job) was delivered again")
            let result = try #require(job.result)
            #expect(result.attempts == 1)
        }
        // "JOB: done in 4.2 s, ...": the jobs outlasted the ack wait, so the acknowledgements were needed.
        let took = cluster.workers[0].output.split(separator: "\n").compactMap { line in
            line.range(of: ": done in ").flatMap { Double(line[$0.upperBound...].prefix { $0 != " " }) }
        }
        #expect(took.count == 2 && took.allSatisfy { $0 > ackWait }, "\(cluster.workers[0].output)")
        let into = cluster.folder.appendingPathComponent("fetched")
        let fetch = try await cluster.parley(["jobs", "fetch", batch, "--to", into.path])
        #expect(fetch.status == 0, "\(fetch.stderr)")
        for index in 0..<2 {
            // Both jobs ran at once, each writing the pipeline's out/ files into its own outputs.
            let job = into.appendingPathComponent("\(batch)-000\(index)")
            let transcript = try String(contentsOf: job.appendingPathComponent("out/transcript.srt"), encoding: .utf8)
            let translation = try String(contentsOf: job.appendingPathComponent("out/translation.srt"), encoding: .utf8)
            #expect(transcript.contains("-->") && translation.contains("-->"))
            #expect(transcript != translation)
            let spoken = try SpeechFixtures.samples(ofWAV: job.appendingPathComponent("out/spoken.wav").path)
            #expect(spoken.contains { abs(Int($0)) > 1000 }, "no speech in the spoken translation")
            #expect(FileManager.default.fileExists(atPath: job.appendingPathComponent("session/session.json").path))
            let result = try String(contentsOf: job.appendingPathComponent("result.json"), encoding: .utf8)
            #expect(result.contains(#""kind":"translation""#) && result.contains(#""language":"es""#))
        }
        let first = try String(contentsOf: into.appendingPathComponent("\(batch)-0000/out/transcript.srt"), encoding: .utf8)
        let second = try String(contentsOf: into.appendingPathComponent("\(batch)-0001/out/transcript.srt"), encoding: .utf8)
        #expect(first != second, "the two jobs' outputs are the same file")
        // The worker's own folder got none of them.
        #expect(!FileManager.default.fileExists(atPath: cluster.folder.appendingPathComponent("out").path))
    }

    @Test func aCorpusBenchShardedOverTwoWorkersMakesOneReport() async throws {
        let cluster = try await Cluster()
        try await cluster.worker()
        try await cluster.worker()
        let corpus = cluster.folder.appendingPathComponent("prompts").path
        let built = try await TestSupport.run(TestSupport.parleyExecutable, ["bench", "corpus", "asterisk", "--to", corpus,
                                              "--limit", "5", "--min-words", "6"], environment: cluster.environment)
        #expect(built.status == 0, "\(built.stderr)")
        let output = cluster.folder.appendingPathComponent("report").path
        let file = TestSupport.packageRoot.appendingPathComponent("pipelines/live-translate.pipeline").path
        let bench = try await cluster.parley(["bench", file, "--corpus", "\(corpus)/manifest.jsonl", "--shards", "2",
                                              "--warmup", "1", "--no-pace", "--quiet", "--output", output])
        #expect(bench.status == 0, "\(bench.stderr)\n\(cluster.workers.map(\.output).joined(separator: "\n"))")
        #expect(bench.stderr.contains("5 recordings in 2 shards"), "\(bench.stderr)")
        let data = try Data(contentsOf: URL(fileURLWithPath: "\(output)/report.json"))
        let report = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let runs = try #require(report["runs"] as? [[String: Any]])
        #expect(runs.count == 1 && runs[0]["recordings"] as? Int == 5, "\(runs)\n\(bench.stderr)")
        let quality = try #require(report["quality"] as? [String: Any])
        #expect((quality["word-error-rate"] as? Double ?? 1) < 0.35, "\(quality)")
        // Every measured recording's segments are in the merged records, from both shards.
        let manifest = try String(contentsOfFile: "\(corpus)/manifest.jsonl", encoding: .utf8).split(separator: "\n")
        let ids = try manifest.map { line in
            try #require((try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["id"] as? String)
        }
        let records = try String(contentsOfFile: "\(output)/segments.jsonl", encoding: .utf8)
        for id in ids { #expect(records.contains("\"entry\":\"\(id)\""), "no segment of \(id)") }
        #expect(cluster.workers.allSatisfy { $0.output.contains(": done in") }, "one worker played both shards")
    }

    @Test func aWorkerKilledMidJobCostsARetryOnAnotherNothingElse() async throws {
        let cluster = try await Cluster()
        let first = try await cluster.worker(["--ack-wait", "3"])
        let second = try await cluster.worker(["--ack-wait", "3"])
        let clips = try SpeechFixtures.librivoxWithTranscripts().prefix(4)
        let batch = try await cluster.submit(clips.map(\.path))
        // Whichever starts a job first is killed in the middle of it.
        let victim = await OffPool.run { () -> ParleyProcess? in
            let deadline = Date().addingTimeInterval(60)
            var victim: ParleyProcess?
            while victim == nil && Date() < deadline {
                victim = [first, second].first { $0.output.contains(": started") }
                usleep(10_000)
            }
            return victim
        }
        let killed = try #require(victim)
        killed.signal(SIGKILL)
        #expect(await killed.exitStatus(within: 10) != nil)
        let killedJob = try #require(killed.output.split(separator: "\n").first { $0.contains(": started") }?
            .split(separator: " ").dropFirst(2).first.map { String($0.dropLast()) })
        let survivor = killed === first ? second : first

        let watch = try await cluster.parley(["jobs", "watch", batch, "--timeout", "300"])
        #expect(watch.status == 0, "\(watch.stderr)")
        let jobs = try await cluster.status(batch)
        #expect(jobs.count == 4)
        for job in jobs {
            #expect(job.state == "done")
            #expect(job.publications == 1)
            if job.job == killedJob {
                #expect(job.result?.attempts == 2)
                let reason = job.result?.reasons.first ?? ""
                #expect(reason.contains("attempt 1 on") && reason.contains(":\(killed.pid)") && reason.contains("no answer within the ack wait"), "\(reason)")
            } else if job.result?.attempts != 1 {
                // Under load the killed worker may also hold a job it had not
                // started: the C client can queue a pull's late answer behind
                // the job it returned. That job is delivered again, once,
                // after the ack wait; no other job may be disturbed.
                #expect(job.result?.attempts == 2, "\(job.job) was disturbed: \(job.result?.reasons ?? [])")
                #expect(job.result?.reasons.first == "attempt 1: delivered, but no worker recorded starting it",
                        "\(job.job) was disturbed: \(job.result?.reasons ?? [])")
                #expect(!survivor.output.contains("\(job.job): started, attempt 1 "), "\(survivor.output)")
            }
            #expect(!job.transcript.isEmpty)
        }
    }

    /// JetStream stops delivering a job whose `max-deliver`-th delivery goes
    /// unanswered too, and says so only in an advisory: a live worker turns
    /// that into the job's `failed` result.
    @Test func aJobWhoseEveryWorkerDiesIsRecordedFailedWithEachDeath() async throws {
        let cluster = try await Cluster()
        let settings = ["--ack-wait", "2", "--max-deliver", "2"]
        let clip = try #require(SpeechFixtures.librivoxWithTranscripts().first)
        var killed: [ParleyProcess] = []
        var batch = ""
        for attempt in 1...2 {
            let worker = try await cluster.worker(settings)
            if attempt == 1 { batch = try await cluster.submit([clip.path]) }
            #expect(await worker.wait(for: ": started, attempt \(attempt) of 2", seconds: 60), "\(worker.output)")
            worker.signal(SIGKILL)
            #expect(await worker.exitStatus(within: 10) != nil)
            killed.append(worker)
        }
        let survivor = try await cluster.worker(settings)
        let watch = try await cluster.parley(["jobs", "watch", batch, "--timeout", "60"])
        #expect(watch.status == 1, "\(watch.stdout)\n\(watch.stderr)\n\(survivor.output)")
        let job = try #require(try await cluster.status(batch).first)
        #expect(job.state == "failed")
        #expect(job.publications == 1)
        let result = try #require(job.result)
        #expect(result.attempts == 2)
        #expect(result.reasons.count == 2, "\(result.reasons)")
        for (index, reason) in result.reasons.enumerated() {
            #expect(reason.hasPrefix("attempt \(index + 1) on ") && reason.contains(":\(killed[index].pid)")
                    && reason.contains("no answer within the ack wait"), "\(reason)")
        }
        // Recorded once, by the survivor, which never ran the job.
        #expect(survivor.output.contains("\(job.job): failed for good"), "\(survivor.output)")
        #expect(!survivor.output.contains("\(job.job): started"))
        // ...and took the job out of the work queue without an error.
        #expect(!survivor.output.contains("recording the job at"), "\(survivor.output)")
        #expect(!job.events.contains { $0.event == "started" && ($0.attempt ?? 1) > 2 })
        // The job left the queue: the survivor still takes new work at once.
        let next = try await cluster.submit([clip.path])
        let again = try await cluster.parley(["jobs", "watch", next, "--timeout", "120"])
        #expect(again.status == 0, "\(again.stderr)")
    }

    @Test func aServerRestartMidRunLosesNoJobAndNoResult() async throws {
        let cluster = try await Cluster()
        let workers = await [try cluster.worker(), try cluster.worker()]
        let prompts = try await SpeechFixtures.asteriskPrompts("en", count: 8)
        let batch = try await cluster.submit(prompts.map(\.path))
        await OffPool.run {
            let deadline = Date().addingTimeInterval(120)
            while !workers.contains(where: { $0.output.contains(": done in") }) && Date() < deadline { usleep(20_000) }
        }
        #expect(workers.contains { $0.output.contains(": done in") })
        cluster.server.kill()
        try await Task.sleep(for: .milliseconds(1_500))
        try await cluster.server.start()

        let watch = try await cluster.parley(["jobs", "watch", batch, "--timeout", "300"])
        #expect(watch.status == 0, "\(watch.stderr)\n\(workers.map(\.output).joined(separator: "\n"))")
        let jobs = try await cluster.status(batch)
        #expect(jobs.count == 8)
        for job in jobs {
            #expect(job.state == "done", "\(job.job): \(job.state)")
            #expect(job.publications == 1)
            #expect(!job.transcript.isEmpty)
        }
        // The workers came back by themselves and still take jobs.
        for worker in workers { #expect(worker.process.isRunning) }
        let after = try await cluster.submit([prompts[0].path])
        let again = try await cluster.parley(["jobs", "watch", after, "--timeout", "120"])
        #expect(again.status == 0)
    }

    @Test func aServerThatWantsATokenGetsItFromTheEnvironmentAndItShowsNowhere() async throws {
        let token = "tok-\(UUID().uuidString)"
        let cluster = try await Cluster(serverOptions: ["--auth", token], environment: ["NATS_TOKEN": token])
        // Without the token: refused, said plainly, exit 1.
        var bare = cluster.environment
        bare["NATS_TOKEN"] = nil
        let refused = try await TestSupport.run(TestSupport.parleyExecutable, ["jobs", "status", "abc234", "--nats", cluster.server.url],
                                                environment: bare)
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(refused.stderr.lowercased().contains("author"), "\(refused.stderr)")
        #expect(refused.stderr.contains("the server wants credentials: set NATS_TOKEN"), "\(refused.stderr)")
        // With it: a job goes through.
        let worker = try await cluster.worker()
        let prompt = try await SpeechFixtures.asteriskPrompts("en", count: 1)[0]
        let batch = try await cluster.submit([prompt.path])
        let watch = try await cluster.parley(["jobs", "watch", batch, "--timeout", "120"])
        #expect(watch.status == 0, "\(watch.stderr)")
        let jobs = try await cluster.status(batch)
        #expect(jobs.first?.state == "done")
        // The token is in no output, no result and no command line.
        let commandLine = (try? String(contentsOfFile: "/proc/\(worker.pid)/cmdline", encoding: .utf8)) ?? ""
        for text in [worker.output, watch.stdout, watch.stderr, refused.stderr, commandLine] {
            #expect(!text.contains(token))
        }
        let results = try await cluster.parley(["jobs", "results", batch, "--json"])
        #expect(!results.stdout.contains(token) && !results.stdout.isEmpty)
    }

    @Test(.enabled(if: TestCertificates.isInstalled, "needs openssl to make the certificates (scripts/setup installs it)"))
    func aTLSServerIsReachedOverTLSTrustingOnlyItsAuthority() async throws {
        let certificatesFolder = TestSupport.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: certificatesFolder) }
        let certificates = try await TestCertificates(in: certificatesFolder)
        let cluster = try await Cluster(serverOptions: ["--tls", "--tlscert", certificates.certificate.path, "--tlskey", certificates.key.path],
                                  environment: ["NATS_CA": certificates.authority.path])
        cluster.url = cluster.server.tlsURL
        // In clear, to a server that wants TLS: refused.
        let plain = try await TestSupport.run(TestSupport.parleyExecutable, ["jobs", "status", "abc234", "--nats", cluster.server.url],
                                              environment: cluster.environment)
        #expect(plain.status == 1, "\(plain.stdout)\n\(plain.stderr)")
        #expect(plain.stderr.contains("the server speaks TLS: connect with \(cluster.server.tlsURL)"), "\(plain.stderr)")
        // Over TLS without the test's authority: the certificate is not trusted.
        var untrusting = cluster.environment
        untrusting["NATS_CA"] = nil
        let untrusted = try await TestSupport.run(TestSupport.parleyExecutable, ["jobs", "status", "abc234", "--nats", cluster.url],
                                                  environment: untrusting)
        #expect(untrusted.status == 1, "\(untrusted.stdout)\n\(untrusted.stderr)")
        let refusal = untrusted.stderr.lowercased()
        #expect(refusal.contains("ssl") && untrusted.stderr.contains("name its CA's PEM file in NATS_CA"), "\(untrusted.stderr)")
        // With NATS_CA: a worker takes a job and its result comes back.
        try await cluster.worker()
        let prompt = try await SpeechFixtures.asteriskPrompts("en", count: 1)[0]
        let batch = try await cluster.submit([prompt.path])
        let watch = try await cluster.parley(["jobs", "watch", batch, "--timeout", "120"])
        #expect(watch.status == 0, "\(watch.stderr)")
        let job = try #require(try await cluster.status(batch).first)
        #expect(job.state == "done")
        let transcript = job.transcript
        #expect(!transcript.isEmpty)
    }

    /// A job's pipeline runs as the worker's user: one that reads a file of
    /// the worker's host fails, naming it, unless the worker trusts its
    /// submitters (`--trust-pipelines`), when the file comes back with the
    /// result. Either way its variables never come from the worker's environment.
    @Test func aJobReachingOutsideItsFolderFailsUnlessTheWorkerTrustsPipelines() async throws {
        let cluster = try await Cluster()
        let secret = cluster.folder.appendingPathComponent("host-secret.txt")
        try "the worker's own\n".write(to: secret, atomically: true, encoding: .utf8)
        let file = cluster.folder.appendingPathComponent("copy.pipeline").path
        try """
            #@ description Copies a file of the worker's host into the job's outputs
            #@ var INPUT=  The recording (unused)
            #@ var FILE=\(secret.path)  A file on the worker's host
            #@ var DIR=out/  Where the copy goes (in the job's outputs)
            #@ var HOME=nowhere  The job's own, not the worker's environment's
            filesrc location=${FILE} ! filesink location=${DIR}/copy-${HOME}.txt
            """.write(toFile: file, atomically: true, encoding: .utf8)
        let recording = try await SpeechFixtures.asteriskPrompts("en", count: 1).map(\.path)
        func copyJob() async throws -> JobStatus? {
            let batch = try await cluster.submit(recording, pipeline: file)
            _ = try await cluster.parley(["jobs", "watch", batch, "--timeout", "120"])
            return try await cluster.status(batch).first
        }

        let confined = try await cluster.worker(["--ack-wait", "4", "--max-deliver", "3", "--retry-delay", "0.2"])
        let refused = try #require(try await copyJob()?.result)
        #expect(refused.status == "failed")
        #expect(refused.reasons.count == 1, "the same pipeline is refused on every attempt: not retried (\(refused.reasons))")
        #expect(refused.reasons.first?.contains("location \"\(secret.path)\" is outside the job's folder") == true, "\(refused.reasons)")
        #expect(refused.reasons.first?.contains("--trust-pipelines") == true, "\(refused.reasons)")
        confined.signal(SIGTERM)
        #expect(await confined.exitStatus(within: 30) == 0)

        try await cluster.worker(["--ack-wait", "4", "--max-deliver", "3", "--retry-delay", "0.2", "--trust-pipelines"])
        let trusted = try #require(try await copyJob()?.result)
        #expect(trusted.status == "done", "\(trusted.reasons)")
        // A declared variable is the job's value or the file's default: the worker's HOME does not leak in.
        #expect(trusted.files.contains { $0.name.hasSuffix("out/copy-nowhere.txt") && $0.size == 17 }, "\(trusted.files.map(\.name))")
    }

    /// A pipeline that never ends (a live test source) is stopped at the
    /// job's deadline and fails at once, while the worker goes on to take
    /// the next job; a folder a SIGKILLed worker left is private, and the
    /// next worker on that work folder removes it.
    @Test func aJobThatNeverEndsIsStoppedAtItsDeadlineAndAKilledWorkersFolderIsSwept() async throws {
        let cluster = try await Cluster()
        let workDir = cluster.folder.appendingPathComponent("work")
        try FileManager.default.createDirectory(at: workDir, withIntermediateDirectories: true)
        let forever = cluster.folder.appendingPathComponent("forever.pipeline").path
        try """
            #@ description Plays for ever
            #@ var INPUT=  The recording (unused)
            audiotestsrc is-live=true ! fakesink
            """.write(toFile: forever, atomically: true, encoding: .utf8)
        let worker = try await cluster.worker(["--ack-wait", "4", "--max-deliver", "3", "--retry-delay", "0.2",
                                               "--job-deadline-s", "5", "--work-dir", workDir.path])
        let recording = try await SpeechFixtures.asteriskPrompts("en", count: 1).map(\.path)
        let batch = try await cluster.submit(recording, pipeline: forever)
        _ = try await cluster.parley(["jobs", "watch", batch, "--timeout", "120"])
        let stopped = try #require(try await cluster.status(batch).first?.result)
        #expect(stopped.status == "failed" && stopped.attempts == 1, "\(stopped.reasons)")
        #expect(stopped.reasons.first?.contains("ran past its deadline of 5 s (parley worker --job-deadline-s)") == true, "\(stopped.reasons)")

        // Killed in the middle of a job (it plays for 5 s), the worker leaves the job's folder: private.
        let again = try await cluster.submit(recording, pipeline: forever)
        let started = await worker.wait(for: "\(again)-0000: started", seconds: 60)
        #expect(started, "\(worker.output)")
        // The folder is made once the start is recorded on the queue: a round trip after the log line.
        for _ in 0..<300 where ((try? FileManager.default.contentsOfDirectory(atPath: workDir.path)) ?? []).isEmpty {
            try await Task.sleep(for: .milliseconds(100))
        }
        worker.signal(SIGKILL)
        #expect(await worker.exitStatus(within: 10) != nil)
        let left = try FileManager.default.contentsOfDirectory(atPath: workDir.path)
        #expect(left.count == 1, "\(left)")
        let folder = try #require(left.first, "the killed worker's job folder")
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: workDir.appendingPathComponent(folder).path)[.posixPermissions] as? Int)
        #expect(mode == 0o700, "the job's folder is the worker user's alone: \(String(mode, radix: 8))")
        let next = try await cluster.worker(["--ack-wait", "4", "--max-deliver", "3", "--retry-delay", "0.2",
                                             "--job-deadline-s", "5", "--work-dir", workDir.path])
        #expect(next.output.contains("removed 1 job folder a killed worker left"), "\(next.output)")
        #expect(!FileManager.default.fileExists(atPath: workDir.appendingPathComponent(folder).path))
    }

    /// A failed attempt is delivered again, up to max-deliver, every reason
    /// kept; but an input that cannot be decoded fails at its first attempt
    /// (no other attempt reads it better), and the other jobs complete.
    @Test func aFailedJobIsRetriedUpToMaxDeliverButACorruptInputFailsAtOnce() async throws {
        let cluster = try await Cluster()
        try await cluster.worker(["--ack-wait", "4", "--max-deliver", "2", "--retry-delay", "0.2"])
        let corrupt = cluster.folder.appendingPathComponent("corrupt.wav")
        try Data("RIFF\u{0}\u{0}\u{0}\u{0}WAVEfmt this is not audio".utf8 + (0..<4000).map { UInt8(truncatingIfNeeded: $0 &* 7919) })
            .write(to: corrupt)
        let good = try await SpeechFixtures.asteriskPrompts("en", count: 2).map(\.path)
        let batch = try await cluster.submit([good[0], corrupt.path, good[1]])
        let watch = try await cluster.parley(["jobs", "watch", batch, "--timeout", "300"])
        #expect(watch.status == 1)
        #expect(watch.stdout.contains("\(batch)-0001 failed:"))
        let jobs = try await cluster.status(batch)
        #expect(jobs.map(\.state) == ["done", "failed", "done"])
        let failed = try #require(jobs[1].result)
        #expect(failed.attempts == 1, "\(failed.reasons)")
        #expect(failed.reasons.count == 1 && failed.reasons[0].hasPrefix("attempt 1 on "), "\(failed.reasons)")
        // wavparse's error, or decodebin's when it dropped wavparse's (a busy machine): either says what the data is.
        #expect((failed.reasons[0].contains("of a different type") || failed.reasons[0].contains("every stream ended before any data"))
                && failed.reasons[0].contains("corrupt.wav\")"), "\(failed.reasons)")
        #expect(jobs[1].publications == 1)

        // A file missing inside the job's folder is no fault of the data: delivered again, each reason kept.
        let file = cluster.folder.appendingPathComponent("missing.pipeline").path
        try """
            #@ description Reads a file the job does not hold
            #@ var INPUT=  The recording
            filesrc location=${INPUT}.gone ! fakesink
            """.write(toFile: file, atomically: true, encoding: .utf8)
        let missing = try await cluster.submit([good[0]], pipeline: file)
        _ = try await cluster.parley(["jobs", "watch", missing, "--timeout", "120"])
        let retried = try #require(try await cluster.status(missing).first?.result)
        #expect(retried.status == "failed" && retried.attempts == 2, "\(retried.reasons)")
        #expect(retried.reasons.count == 2 && retried.reasons[0].hasPrefix("attempt 1 on ") && retried.reasons[1].hasPrefix("attempt 2 on "),
                "\(retried.reasons)")
        #expect(retried.reasons.allSatisfy { $0.contains("Resource not found") }, "\(retried.reasons)")
    }
}
