import Foundation
import ParleyCore
import ParleyTestSupport
import Testing

/// Three "hosts" on one machine: network namespaces joined by veth links, the
/// NATS server in one, a worker in each of the other two, so jobs and their
/// audio cross a real (virtual) network and not loopback.
@Suite(.serialized, .heavy, .enabled(if: NATSServer.isInstalled && NetworkNamespaces.available,
                             "needs nats-server and permission to make network namespaces (root, iproute2)"))
struct NetworkNamespaceTests {
    @Test func workersOnTwoOtherHostsShareTheJobsAndACutLinkLosesNothing() async throws {
        let hosts = try NetworkNamespaces(workers: 2)
        defer { hosts.remove() }
        let folder = TestSupport.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await NATSServer(storage: folder.appendingPathComponent("store"), host: "0.0.0.0", port: 4222,
                                    wrapper: hosts.exec(hosts.server))
        defer { server.kill() }
        let environment = TestSupport.gstEnvironment(registry: folder)
        let pipeline = folder.appendingPathComponent("transcribe.pipeline").path
        try WorkQueueTests.pipeline.write(toFile: pipeline, atomically: true, encoding: .utf8)

        var workers: [ParleyProcess] = []
        for index in 0..<2 {
            let worker = try ParleyProcess(["worker", "--nats", hosts.serverURL(from: index), "--allow-plaintext", "--ack-wait", "4"],
                                           environment: environment, wrapper: hosts.exec(hosts.workers[index]))
            #expect(await worker.wait(for: "taking jobs", seconds: 120), "\(worker.output)")
            workers.append(worker)
        }
        // Plain text to another host is refused unless asked for.
        let refused = try await TestSupport.run(NetworkNamespaces.ip, Array(hosts.exec(hosts.workers[0]).dropFirst()) + [
            TestSupport.parleyExecutable, "jobs", "status", "x", "--nats", hosts.serverURL(from: 0)], environment: environment)
        #expect(refused.status == 2 && refused.stderr.contains("--allow-plaintext"), "\(refused.stderr)")

        func parley(_ arguments: [String], on host: Int) async throws -> TestSupport.Result {
            try await TestSupport.run(NetworkNamespaces.ip, Array(hosts.exec(hosts.workers[host]).dropFirst())
                + [TestSupport.parleyExecutable] + arguments + ["--nats", hosts.serverURL(from: host), "--allow-plaintext"],
                environment: environment)
        }
        let prompts = try await SpeechFixtures.asteriskPrompts("en", count: 6)
        let submitted = try await parley(["submit", pipeline, "--input"] + prompts.map(\.path), on: 0)
        #expect(submitted.status == 0, "\(submitted.stderr)")
        let batch = String(submitted.stdout.split(separator: " ")[1].dropLast())
        // The first host's link goes down in the middle of its first job, for
        // longer than the ack wait: the job is delivered to the other host,
        // and whichever result comes second, once the link is back, is
        // dropped (on a loaded machine the first host may still win).
        _ = await workers[0].wait(for: ": started", seconds: 60)
        let cutJob = try #require(workers[0].output.split(separator: "\n").first { $0.contains(": started") }?
            .split(separator: " ").dropFirst(2).first.map { String($0.dropLast()) })
        hosts.setLink(worker: 0, up: false)
        // Long enough for the other host to take the job and finish it, loaded machine or not.
        try await Task.sleep(for: .seconds(15))
        hosts.setLink(worker: 0, up: true)
        let watch = try await parley(["jobs", "watch", batch, "--timeout", "300"], on: 1)
        #expect(watch.status == 0, "\(watch.stderr)\n\(workers.map(\.output).joined(separator: "\n"))")
        let status = try await parley(["jobs", "status", batch, "--json"], on: 1)
        let jobs = try status.stdout.split(separator: "\n").map { try JSONDecoder().decode(WorkQueueTests.JobStatus.self, from: Data($0.utf8)) }
        #expect(jobs.count == 6)
        #expect(jobs.allSatisfy { $0.state == "done" && $0.publications == 1 && !$0.transcript.isEmpty })
        let cut = try #require(jobs.first { $0.job == cutJob })
        #expect(cut.state == "done" && cut.publications == 1)
        // Both hosts took jobs.
        for worker in workers {
            #expect(worker.output.contains(": started"), "a worker took no job: \(worker.output)")
        }
    }
}

/// Network namespaces made for one test: `server`, and one per worker, each
/// worker joined to the server by its own veth pair on 10.231.N.0/24.
struct NetworkNamespaces {
    let server: String
    let workers: [String]
    /// Each worker's end of its veth link, inside its namespace.
    let workerLinks: [String]

    static let ip = "/usr/sbin/ip"

    /// Whether this process may make namespaces (root with iproute2); tried, not guessed.
    static let available: Bool = {
        guard FileManager.default.isExecutableFile(atPath: ip) else { return false }
        let name = "parley-probe-\(getpid())"
        guard run([ip, "netns", "add", name]) else { return false }
        _ = run([ip, "netns", "del", name])
        return true
    }()

    init(workers count: Int) throws {
        let tag = String(getpid() % 100_000)
        server = "parley-s-\(tag)"
        workers = (0..<count).map { "parley-w\($0)-\(tag)" }
        workerLinks = (0..<count).map { "pw\($0)-\(tag)" }
        guard Self.run([Self.ip, "netns", "add", server]) else { throw Failure(step: "ip netns add \(server)") }
        _ = Self.run([Self.ip, "-n", server, "link", "set", "lo", "up"])
        for (index, worker) in workers.enumerated() {
            let serverEnd = "ps\(index)-\(tag)", workerEnd = workerLinks[index]
            let steps = [
                [Self.ip, "netns", "add", worker],
                [Self.ip, "-n", worker, "link", "set", "lo", "up"],
                [Self.ip, "link", "add", serverEnd, "type", "veth", "peer", "name", workerEnd],
                [Self.ip, "link", "set", serverEnd, "netns", server],
                [Self.ip, "link", "set", workerEnd, "netns", worker],
                [Self.ip, "-n", server, "addr", "add", "10.231.\(index + 1).1/24", "dev", serverEnd],
                [Self.ip, "-n", worker, "addr", "add", "10.231.\(index + 1).2/24", "dev", workerEnd],
                [Self.ip, "-n", server, "link", "set", serverEnd, "up"],
                [Self.ip, "-n", worker, "link", "set", workerEnd, "up"],
            ]
            for step in steps where !Self.run(step) {
                remove()
                throw Failure(step: step.joined(separator: " "))
            }
        }
    }

    /// The server's address as the worker in namespace `index` reaches it.
    func serverURL(from index: Int) -> String { "nats://10.231.\(index + 1).1:4222" }

    /// Takes worker `index`'s link to the server down or up.
    func setLink(worker index: Int, up: Bool) {
        Self.run([Self.ip, "-n", workers[index], "link", "set", workerLinks[index], up ? "up" : "down"])
    }

    /// A command prefix that runs a program inside `namespace`.
    func exec(_ namespace: String) -> [String] { [Self.ip, "netns", "exec", namespace] }

    func remove() {
        for name in [server] + workers { _ = Self.run([Self.ip, "netns", "del", name]) }
    }

    struct Failure: Error, CustomStringConvertible {
        let step: String
        var description: String { "could not set up the namespaces: \(step) failed" }
    }

    @discardableResult
    static func run(_ command: [String]) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try ProcessEnvironment.whileSpawning { try process.run() } } catch { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}
