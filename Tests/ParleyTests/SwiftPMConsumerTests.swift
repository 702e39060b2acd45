import Foundation
import ParleyCore
import ParleyTestSupport
import Testing

/// Parley as a Swift package dependency, as README shows it: a throw-away
/// package depends on this one as a versioned (URL) dependency, the form
/// SwiftPM refuses for packages with unsafe flags, registers an element of
/// its own with `Parley.register` and runs it next to Parley's in one
/// pipeline. The URL is a `file://` git repository holding a snapshot of
/// this working tree, tagged `v` + `Release.version` as releases are.
@Suite struct SwiftPMConsumerTests {
    @Test func aPackageThatDependsOnParleyBuildsAndRunsAPipeline() async throws {
        let root = TestSupport.packageRoot
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains(#".product(name: "Parley", package: "parley"),"#))
        #expect(readme.contains(#".product(name: "GstKit", package: "parley"),"#))
        #expect(readme.contains(#".package(url: "\#(Release.homepage)", from: "\#(Release.version)", traits: []),"#))

        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(!manifest.contains("unsafeFlags"), "SwiftPM refuses unsafeFlags in a versioned dependency")

        let folder = TestSupport.temporaryFolder()
        let snapshot = try await Self.taggedSnapshot(of: root, in: folder.appendingPathComponent("parley"))
        let consumer = folder.appendingPathComponent("consumer")
        let sources = consumer.appendingPathComponent("Sources/consumer")
        try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
        try Self.manifest(url: "file://" + snapshot.path, version: Self.version)
            .write(to: consumer.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        try Self.program.write(to: sources.appendingPathComponent("main.swift"), atomically: true, encoding: .utf8)
        // One job: the rest of the suite keeps the other core.
        let build = try await TestSupport.run("/usr/bin/env", ["swift", "build", "-j", "1", "--package-path", consumer.path],
                                              environment: ProcessInfo.processInfo.environment)
        #expect(build.status == 0, "\(build.stdout.suffix(3000)) \(build.stderr.suffix(3000))")
        // traits: [] leaves out what only the parley command needs: Parley is the one package resolved.
        let pins = (try? String(contentsOf: consumer.appendingPathComponent("Package.resolved"), encoding: .utf8)) ?? ""
        for package in ["hummingbird", "swift-nio", "swift-argument-parser"] {
            #expect(!pins.contains("/\(package)"), "the consumer resolved \(package):\n\(pins)")
        }
        let recording = try SpeechFixtures.threeUtterances(in: consumer)
        let run = try await TestSupport.run(consumer.appendingPathComponent(".build/debug/consumer").path, [recording.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasPrefix("segments 3, buffers "), "\(run.stdout)")
    }

    /// The release README's snippet names; the snapshot is tagged with it.
    static let version = Release.version

    /// The working tree's files (tracked and untracked, not ignored) committed
    /// to a new repository and tagged, so the test sees uncommitted work too.
    static func taggedSnapshot(of root: URL, in snapshot: URL) async throws -> URL {
        let listing = try await TestSupport.run("/usr/bin/git", ["-C", root.path, "ls-files", "-z", "--cached", "--others", "--exclude-standard"])
        #expect(listing.status == 0, "\(listing.stderr)")
        let files = FileManager.default
        for path in listing.stdout.split(separator: "\0").map(String.init) {
            let source = root.appendingPathComponent(path)
            guard files.fileExists(atPath: source.path) else { continue }  // deleted, not yet staged
            let target = snapshot.appendingPathComponent(path)
            try files.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try files.copyItem(at: source, to: target)
        }
        let identity = ["GIT_AUTHOR_NAME=test", "GIT_AUTHOR_EMAIL=test@localhost", "GIT_COMMITTER_NAME=test",
                        "GIT_COMMITTER_EMAIL=test@localhost"]
        for command in [["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "snapshot"], ["tag", "v" + version]] {
            let git = try await TestSupport.run("/usr/bin/env", identity + ["git", "-C", snapshot.path] + command)
            #expect(git.status == 0, "git \(command): \(git.stderr)")
        }
        return snapshot
    }

    static func manifest(url: String, version: String) -> String {
        """
        // swift-tools-version: 6.1
        import PackageDescription

        let package = Package(
            name: "consumer",
            platforms: [.macOS(.v15)],
            dependencies: [.package(url: "\(url)", from: "\(version)", traits: [])],
            targets: [
                .executableTarget(name: "consumer", dependencies: [
                    .product(name: "Parley", package: "parley"),
                    .product(name: "GstKit", package: "parley"),
                ]),
            ],
            swiftLanguageModes: [.v6]
        )
        """
    }

    static let program = #"""
// A program that depends on Parley as a package: registers an element of
// its own and runs it with Parley's in one pipeline.
import Foundation
import GstKit
import Parley
import Synchronization

/// Counts the buffers that pass: the smallest element a user could write.
final class Counter: Filter {
    static let metadata = ElementMetadata(factoryName: "buffercounter", typeName: "ConsumerBufferCounter",
                                          longName: "Buffer counter", klass: "Filter", description: "Counts buffers")
    static let pads = PadTemplates(sink: "ANY", src: "ANY")
    static let seen = Atomic<Int>(0)
    let element: ElementHandle
    init(element: ElementHandle) { self.element = element }
    func transform(_ buffer: Buffer) -> [Output] {
        Self.seen.add(1, ordering: .relaxed)
        return [.buffer(buffer)]
    }
}

guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: consumer RECORDING.wav\n".utf8))
    exit(2)
}
Parley.register([Counter.self])
do {
    let pipeline = try Pipeline(launch: """
        filesrc location=\(Pipeline.quoted(CommandLine.arguments[1])) ! decodebin ! audioconvert ! audioresample
        ! audio/x-raw,format=S16LE,channels=1,rate=16000 ! buffercounter ! vadsegmenter ! fakesink
        """)
    var segments = 0
    try await pipeline.run { event in
        if case .segment(let segment) = event, segment.end != nil { segments += 1 }
    }
    print("segments \(segments), buffers \(Counter.seen.load(ordering: .relaxed))")
} catch {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(1)
}
"""#
}
