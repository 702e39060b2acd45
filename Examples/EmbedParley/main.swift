// Runs a speech pipeline inside this program: no plugin file, no gst-launch.
import Foundation
import Parley

let recording = CommandLine.arguments.dropFirst().first
    ?? "/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0870.wav"
guard FileManager.default.isReadableFile(atPath: recording) else {
    FileHandle.standardError.write(Data("error: cannot read \(recording)\n".utf8))
    exit(2)
}
Parley.initialize()
do {
    // Quoted: a file name with spaces or quotes stays one value.
    let pipeline = try Pipeline(launch: """
        filesrc location=\(Pipeline.quoted(recording)) ! decodebin ! audioconvert ! audioresample
        ! audio/x-raw,format=S16LE,channels=1,rate=16000 ! vadsegmenter ! fakesink
        """)
    try await pipeline.run { event in
        switch event {
        case .segment(let segment) where segment.end != nil:
            print("segment \(segment.segmentID): \(segment.start / 1_000_000) ms to \(segment.end! / 1_000_000) ms")
        case .warning(let source, let message, _):
            print("warning from \(source): \(message)")
        default:
            break
        }
    }
} catch {
    // The element's message (or the parser's), not a crash with a backtrace.
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(1)
}
