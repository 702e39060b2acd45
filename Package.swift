// swift-tools-version: 6.1
import PackageDescription

/// Every element lives in its own folder under plugins/ and is its own target.
let elementTargets = ["VADSegmenter", "CloudSTT", "StreamTranslator", "CloudTTS", "EspeakTTS", "EspeakSrc", "TranscriptSink",
                      "SessionRecorder", "LineSplitter", "RecordingSrc"]

/// Which provider targets an element uses.
let providers: [String: [Target.Dependency]] = [
    "EspeakTTS": [.target(name: "EspeakEngine"), .target(name: "EspeakProperties")],
    "EspeakSrc": [.target(name: "EspeakEngine"), .target(name: "EspeakProperties")],
    "CloudSTT": [.target(name: "PocketSphinxEngine"), .target(name: "WhisperEngine")],
    "StreamTranslator": [.target(name: "ApertiumEngine"), .target(name: "AssistantEngine")],
    "CloudTTS": [.target(name: "EspeakEngine"), .target(name: "PiperEngine")],
]

/// What a test of elements in real pipelines uses.
let pipelineTestDependencies: [Target.Dependency] = ["Parley", "GstKit", "ParleySpeech", "ParleyCore", "ParleyTestSupport", "PipelineTestSupport"]

let package = Package(
    name: "parley",
    platforms: [.macOS(.v15)],
    products: [
        // The GStreamer plugin: gst-launch-1.0 and gst-inspect-1.0 load it by
        // this file name (libgstparley.so, plugin name "parley").
        .library(name: "gstparley", type: .dynamic, targets: ["GstParley"]),
        // Embedding API: elements registered in-process, no .so needed.
        .library(name: "Parley", targets: ["Parley"]),
        // Writing elements: the typed GStreamer binding and the speech layer.
        .library(name: "GstKit", targets: ["GstKit"]),
        .library(name: "ParleySpeech", targets: ["ParleySpeech"]),
        .executable(name: "parley", targets: ["parley"]),
        .executable(name: "parley-embed-example", targets: ["EmbedParley"]),
        .executable(name: "parley-custom-element-example", targets: ["CustomElement"]),
        .executable(name: "parley-bench", targets: ["ParleyBench"]),
        .executable(name: "parley-fuzz", targets: ["ParleyFuzz"]),
    ],
    traits: [
        .trait(name: "Tools", description: "The parley command and its OpenAI-compatible server (swift-argument-parser, Hummingbird and swift-nio). A package that only embeds Parley turns it off, traits: [], and resolves none of them."),
        .default(enabledTraits: ["Tools"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // parley serve: the OpenAI-compatible HTTP server over the local engines.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    ],
    targets: [
        .systemLibrary(
            name: "CGStreamer", path: "Sources/CGStreamer", pkgConfig: "gstreamer-audio-1.0",
            providers: [.apt(["libgstreamer1.0-dev", "libgstreamer-plugins-base1.0-dev"])]),
        .systemLibrary(
            name: "CEspeakNG", path: "Sources/CEspeakNG", pkgConfig: "espeak-ng",
            providers: [.apt(["libespeak-ng-dev"])]),
        .systemLibrary(
            name: "CPocketSphinx", path: "Sources/CPocketSphinx", pkgConfig: "pocketsphinx",
            providers: [.apt(["libpocketsphinx-dev"])]),
        .target(name: "GstBridge", dependencies: ["CGStreamer"], path: "Sources/GstBridge"),
        .systemLibrary(
            name: "CCurl", path: "Sources/CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CFLAC", path: "Sources/CFLAC", pkgConfig: "flac", providers: [.apt(["libflac-dev"])]),
        .target(name: "ParleyCore", dependencies: ["CCurl", "CFLAC"], path: "Sources/ParleyCore"),
        .systemLibrary(name: "CNats", path: "Sources/CNats", pkgConfig: "libnats", providers: [.apt(["libnats-dev"])]),
        // Past one machine: the work queue on NATS JetStream (no GStreamer here).
        .target(name: "ParleyJobs", dependencies: ["CNats", "ParleyCore"], path: "Sources/ParleyJobs"),
        // A typed binding of GStreamer and nothing else: no speech, no ParleyCore.
        .target(name: "GstKit", dependencies: ["GstBridge", "CGStreamer"], path: "Sources/GstKit"),
        // The speech layer: ParleySpeechMeta, speech-start/end events, latency
        // stamps, the async transform kind and its ordered stage.
        .target(name: "ParleySpeech", dependencies: ["GstKit", "ParleyCore"], path: "Sources/ParleySpeech"),
        .target(
            name: "GstParley",
            dependencies: ["GstKit", "ParleyCore"] + elementTargets.map { .target(name: $0) },
            path: "plugins/GstParley"),
        // Providers: engines that elements share, beside the elements.
        .target(name: "EspeakEngine", dependencies: ["CEspeakNG", "ParleyCore"], path: "plugins/EspeakEngine"),
        // The espeak-ng properties espeaktts and espeaksrc share (voice, rate, pitch, ...): element-side, so the engine needs no GstKit.
        .target(name: "EspeakProperties", dependencies: ["EspeakEngine", "GstKit"], path: "plugins/EspeakProperties"),
        // Apertium (Debian) as long-lived null-flush processes, one per language pair (a route through a third language: two).
        .target(name: "ApertiumEngine", dependencies: ["ParleyCore"], path: "plugins/ApertiumEngine"),
        // The offline answerer (time, date, sums, what was said): streamtranslator mode=assistant and parley serve's chat.
        .target(name: "AssistantEngine", dependencies: ["ParleyCore"], path: "plugins/AssistantEngine"),
        .target(name: "PocketSphinxEngine", dependencies: ["CPocketSphinx"], path: "plugins/PocketSphinxEngine"),
        // Whisper-base through faster-whisper in a worker process (scripts/prepare-whisper installs it).
        .target(name: "WhisperEngine", dependencies: ["ParleyCore"], path: "plugins/WhisperEngine", exclude: ["whisper_worker.py", "requirements.lock"]),
        .target(name: "PiperEngine", dependencies: ["ParleyCore"], path: "plugins/PiperEngine", exclude: ["piper_worker.py", "requirements.lock"]),
        .target(name: "Parley", dependencies: ["GstKit", "ParleySpeech", "GstParley", "ParleyCore"], path: "Sources/Parley"),
        .target(
            name: "ParleyServer",
            dependencies: ["ParleyCore", "PocketSphinxEngine", "WhisperEngine", "ApertiumEngine", "AssistantEngine", "EspeakEngine", .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Tools"]))],
            path: "Sources/ParleyServer"),
        .executableTarget(
            name: "parley",
            dependencies: ["Parley", "GstKit", "ParleyCore", "ParleySpeech", "ParleyServer", "ParleyJobs", .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Tools"]))],
            path: "Sources/parley"),
        // The README's embedding example, built with everything else so it
        // always compiles; a test checks the README shows this very file.
        .executableTarget(name: "EmbedParley", dependencies: ["Parley"], path: "Examples/EmbedParley"),
        // README's "Writing an element": a complete Filter, run by a test.
        .executableTarget(name: "CustomElement", dependencies: ["Parley", "GstKit"], path: "Examples/CustomElement"),
        .executableTarget(
            name: "ParleyBench",
            dependencies: ["Parley", "GstKit", "ParleyCore", "VADSegmenter", "ParleyServer", "PocketSphinxEngine", "WhisperEngine", "ApertiumEngine"],
            path: "benchmarks/Harness"),
        // A seeded mutation fuzzer for the parsers users and providers feed (scripts/fuzz).
        .executableTarget(name: "ParleyFuzz", dependencies: ["Parley", "ParleyCore", "ParleyJobs", "ParleyServer", "AssistantEngine"], path: "Tools/Fuzz"),
        // A real HTTP server for the faults real providers will not produce on demand.
        // Test helpers: a scripted HTTP server for faults, subprocess runners, speech fixtures.
        .target(name: "ParleyTestSupport", dependencies: ["ParleyCore"], path: "Tests/ParleyTestSupport"),
        .testTarget(name: "CLITests", dependencies: ["ParleyCore", "ParleyTestSupport"], path: "Tests/CLITests"),
        .testTarget(name: "ServerTests", dependencies: ["Parley", "ParleyCore", "ParleyServer", "ParleyTestSupport"], path: "Tests/ServerTests"),
        .testTarget(name: "ParleyJobsTests", dependencies: ["ParleyJobs", "ParleyCore", "ParleyTestSupport"], path: "Tests/ParleyJobsTests"),
        .testTarget(name: "GstKitTests", dependencies: ["GstKit"], path: "Tests/GstKitTests"),
        .testTarget(name: "ParleyCoreTests", dependencies: ["ParleyCore", "ParleyTestSupport"], path: "Tests/ParleyCoreTests"),
        // Elements that exist only in tests (a numbered source, recording sinks), run in real pipelines.
        .target(name: "PipelineTestSupport", dependencies: ["GstKit", "ParleySpeech", "ParleyCore"], path: "Tests/PipelineTestSupport"),
        // One test target per element: its pure state machines, and the element in real pipelines.
        .testTarget(name: "CloudSTTTests", dependencies: ["CloudSTT", "WhisperEngine"] + pipelineTestDependencies, path: "Tests/CloudSTTTests"),
        .testTarget(name: "StreamTranslatorTests", dependencies: ["StreamTranslator", "ApertiumEngine", "AssistantEngine"] + pipelineTestDependencies, path: "Tests/StreamTranslatorTests"),
        .testTarget(name: "CloudTTSTests", dependencies: ["CloudTTS", "PiperEngine", "WhisperEngine"] + pipelineTestDependencies, path: "Tests/CloudTTSTests"),
        .testTarget(name: "EspeakTTSTests", dependencies: ["EspeakTTS", "EspeakEngine"] + pipelineTestDependencies, path: "Tests/EspeakTTSTests"),
        .testTarget(name: "RecordingSrcTests", dependencies: ["RecordingSrc"] + pipelineTestDependencies, path: "Tests/RecordingSrcTests"),
        .testTarget(name: "SessionRecorderTests", dependencies: ["SessionRecorder"] + pipelineTestDependencies, path: "Tests/SessionRecorderTests"),
        .testTarget(name: "TranscriptSinkTests", dependencies: ["TranscriptSink"] + pipelineTestDependencies, path: "Tests/TranscriptSinkTests"),
        .testTarget(name: "LineSplitterTests", dependencies: ["LineSplitter"], path: "Tests/LineSplitterTests"),
        .testTarget(name: "VADSegmenterTests", dependencies: ["VADSegmenter"] + pipelineTestDependencies, path: "Tests/VADSegmenterTests"),
        // The speech layer: its contracts, meta, timeline, and the async stage in real pipelines.
        .testTarget(name: "ParleySpeechTests", dependencies: pipelineTestDependencies, path: "Tests/ParleySpeechTests"),
        // The embedding API and what spans elements: pipeline files, errors, docs, bench, plugin loading.
        .testTarget(
            name: "ParleyTests",
            dependencies: ["GstParley", "EspeakEngine", "WhisperEngine", "VADSegmenter"] + pipelineTestDependencies,
            path: "Tests/ParleyTests"),
    ] + elementTargets.map {
        .target(name: $0, dependencies: ["GstKit", "ParleySpeech", "ParleyCore"] + (providers[$0] ?? []), path: "plugins/\($0)")
    },
    swiftLanguageModes: [.v6]
)
