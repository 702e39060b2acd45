// parley-fuzz: a seeded mutation fuzzer for the parsers that read what
// users and providers send (swift build -sanitize=fuzzer is not available
// with this toolchain on Linux: libFuzzer is not shipped). Each target
// starts from the seed inputs in fuzz/corpus/TARGET, mutates them (bit
// flips, byte changes, cuts, duplications, splices with another seed,
// interesting values) and feeds every mutant to the parser. A parser may
// refuse any input; it must not crash, hang or trap. Deterministic: the
// same --seed gives the same mutants. To keep a crashing input, run again
// with PARLEY_FUZZ_KEEP=1: every mutant is written to
// fuzz/crashes/TARGET-current before it runs (slower), and --replay FILE
// runs one input.
//
//     parley-fuzz TARGET [--iterations N] [--seed S] [--corpus DIR] [--replay FILE]
import Foundation
import Parley
import ParleyCore
import ParleyJobs
import ParleyServer
import AssistantEngine

/// What a target does with one input.
struct Target {
    var name: String
    var run: (Data) -> Void
}

let targets: [Target] = [
    // A provider's event stream (chat completions, gpt-4o transcription deltas), fed in two pieces.
    Target(name: "sse") { data in
        var parser = SSEParser()
        let cut = data.isEmpty ? 0 : Int(data[0]) % (data.count + 1)
        _ = parser.feed(data.prefix(cut))
        _ = parser.feed(data.dropFirst(cut))
    },
    // A parley serve upload: the first line is the Content-Type header, the rest the body.
    Target(name: "multipart") { data in
        let newline = data.firstIndex(of: 10) ?? data.endIndex
        let contentType = String(decoding: data[data.startIndex..<newline], as: UTF8.self)
        _ = try? MultipartParser.parse(Data(data[newline...].dropFirst()), contentType: contentType)
    },
    // An upload or a corpus recording: WAV's chunks and header.
    Target(name: "wav") { data in _ = try? WAVDecoder.decode(data) },
    // An upload in FLAC (libFLAC behind FLACCodec), bounded as parley serve bounds it.
    Target(name: "flac") { data in _ = try? FLACCodec.decode(data, maxSeconds: 60) },
    // A pipeline file: header directives, variables, loops, gst-launch syntax.
    Target(name: "pipeline") { data in
        guard let text = String(data: data, encoding: .utf8),
              let file = try? PipelineFile(path: "fuzz.pipeline", text: text) else { return }
        _ = try? file.tokens(overrides: [:], environment: [:])
    },
    // A line of a session log, as parley sessions reads it.
    Target(name: "session-log") { data in _ = try? JSONDecoder().decode(ParleyCore.SegmentRecord.self, from: data) },
    // A parley serve chat request: the body checked, what it asks decided,
    // and the offline assistant's answer to its text (its sums, its sentences).
    Target(name: "chat") { data in
        guard let request = try? ChatRequest(json: data) else { return }
        _ = request.task
        _ = LocalAssistant().answer(request.text, previous: request.earlier)
    },
    // A /v1/audio/speech body, as parley serve checks it before synthesis.
    Target(name: "speech") { data in
        guard let request = try? SpeechRequest(json: data) else { return }
        precondition(!request.input.isEmpty && request.input.count <= SpeechRequest.maxInput && (0.25...4).contains(request.speed))
    },
    // A job message, as a worker reads it off the queue.
    Target(name: "job") { data in _ = try? JSONDecoder().decode(JobSpec.self, from: data) },
]

/// One mutant of `input` (another seed may be spliced in).
func mutate(_ input: [UInt8], seeds: [[UInt8]], random: inout SplitMix) -> [UInt8] {
    var bytes = input
    let interesting: [UInt8] = [0, 1, 0x7F, 0x80, 0xFF, 10, 13, 0x22, 0x5C, 0x7B, 0x7D, 0x3A, 0x2C, 0x24, 0x23]
    for _ in 0...random.below(4) {
        switch random.below(8) {
        case 0 where !bytes.isEmpty: bytes[random.below(bytes.count)] ^= UInt8(1 << random.below(8))
        case 1 where !bytes.isEmpty: bytes[random.below(bytes.count)] = UInt8(truncatingIfNeeded: random.next())
        case 2 where !bytes.isEmpty: bytes[random.below(bytes.count)] = interesting[random.below(interesting.count)]
        case 3 where !bytes.isEmpty:
            let start = random.below(bytes.count)
            bytes.removeSubrange(start..<min(bytes.count, start + 1 + random.below(16)))
        case 4 where !bytes.isEmpty:
            let start = random.below(bytes.count), end = min(bytes.count, start + 1 + random.below(64))
            bytes.insert(contentsOf: bytes[start..<end], at: random.below(bytes.count + 1))
        case 5:
            let other = seeds[random.below(seeds.count)]
            guard !other.isEmpty else { break }
            let start = random.below(other.count)
            bytes.insert(contentsOf: other[start..<min(other.count, start + 1 + random.below(256))], at: random.below(bytes.count + 1))
        case 6 where bytes.count > 4:
            // A 32-bit little-endian length or count set to an edge value.
            let at = random.below(bytes.count - 3)
            let value: UInt32 = [0, 1, 0x7FFF_FFFF, 0xFFFF_FFFF, 0x8000_0000, UInt32(bytes.count)][random.below(6)]
            for index in 0..<4 { bytes[at + index] = UInt8(truncatingIfNeeded: value >> (8 * index)) }
        default:
            bytes.append(interesting[random.below(interesting.count)])
        }
    }
    return Array(bytes.prefix(1 << 20))
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("parley-fuzz: \(message)\n".utf8))
    exit(2)
}

/// `--name value` taken out of `arguments`.
@MainActor func option(_ name: String, from arguments: inout [String]) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    defer { arguments.removeSubrange(index...(index + 1)) }
    return arguments[index + 1]
}
var arguments = Array(CommandLine.arguments.dropFirst())
let iterations = option("--iterations", from: &arguments).map { Int($0) ?? -1 } ?? 1_000_000
let seed = option("--seed", from: &arguments).map { UInt64($0) ?? 0 } ?? 1
let corpusRoot = option("--corpus", from: &arguments) ?? "fuzz/corpus"
let replay = option("--replay", from: &arguments)
guard iterations >= 0, let name = arguments.first, arguments.count == 1 else {
    fail("usage: parley-fuzz TARGET [--iterations N] [--seed S] [--corpus DIR] [--replay FILE]; targets: \(targets.map(\.name).joined(separator: ", "))")
}
guard let target = targets.first(where: { $0.name == name }) else {
    fail("no target \(name); targets: \(targets.map(\.name).joined(separator: ", "))")
}
if let replay {
    guard let data = FileManager.default.contents(atPath: replay) else { fail("cannot read \(replay)") }
    target.run(data)
    print("\(name): \(replay) ran without a crash")
    exit(0)
}
let folder = URL(fileURLWithPath: corpusRoot).appendingPathComponent(name)
let files = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
let seeds = files.compactMap { FileManager.default.contents(atPath: folder.appendingPathComponent($0).path).map { [UInt8]($0) } }
guard !seeds.isEmpty else { fail("no seed inputs in \(folder.path)") }
for seedInput in seeds { target.run(Data(seedInput)) }

// PARLEY_FUZZ_KEEP=1: each mutant written before it runs, so a crash leaves its input behind.
let crashes = URL(fileURLWithPath: corpusRoot).deletingLastPathComponent().appendingPathComponent("crashes")
var random = SplitMix(seed: seed)
let started = Date()
for iteration in 0..<iterations {
    let mutant = mutate(seeds[random.below(seeds.count)], seeds: seeds, random: &random)
    if iteration % 100_000 == 0 {
        FileHandle.standardOutput.write(Data("\(name): \(iteration) of \(iterations), \(Int(Date().timeIntervalSince(started))) s\n".utf8))
    }
    if ProcessInfo.processInfo.environment["PARLEY_FUZZ_KEEP"] != nil {
        try? FileManager.default.createDirectory(at: crashes, withIntermediateDirectories: true)
        try? Data(mutant).write(to: crashes.appendingPathComponent("\(name)-current"))
    }
    target.run(Data(mutant))
}
print("\(name): \(iterations) inputs from \(seeds.count) seeds (seed \(seed)), no crash, \(Int(Date().timeIntervalSince(started))) s")
