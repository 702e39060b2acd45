// transcriptsink: writes text results to a file (or stdout) as plain text,
// JSON Lines or SubRip subtitles, so transcripts can be saved and replayed.
//
//     gst-launch-1.0 -e filesrc location=notes.txt ! text/x-raw,format=utf8 \
//         ! transcriptsink location=notes.srt format=srt
//
// Partial results are skipped unless `finals-only=false`: a saved transcript
// holds what the recogniser settled on. Buffers with no ParleySpeechMeta count
// as finals (plain text from any GStreamer element).
//
// It prerolls as any GStreamer sink does (`async=true`): cloudstt,
// streamtranslator and cloudtts send a GAP after each SEGMENT, so it prerolls
// at once, not at the first transcript. It used to play without prerolling
// (async=false), and that made gst-launch-1.0 hang after EOS one run in two to
// five on a loaded 2-core machine: with no prerolling sink, the pipeline's
// PAUSED is committed by decodebin's streaming thread, gst-launch answers it
// with PLAYING from the main thread, and if the streaming thread is
// descheduled between posting READY→PAUSED and GstBin noting that it did
// (`posted_playing`), GstBin forgets it is PLAYING and never posts the EOS.
// A prerolling sink holds its preroll lock through that commit, so PLAYING
// waits for it. (GStreamer 1.22; `filesrc ! decodebin ! fakesink async=false`
// does the same, 5 runs in 80 with both cores busy, none with async=true.)
import Foundation
import GstKit
import ParleyCore
import ParleySpeech
import Synchronization

public enum TranscriptFormat: Int, Sendable, CaseIterable {
    case text = 0, jsonl = 1, srt = 2

    static let values = [
        EnumValue(0, "text", "One line of text per result"),
        EnumValue(1, "jsonl", "One JSON object per result (segment, status, language, start, end, text)"),
        EnumValue(2, "srt", "SubRip subtitles timed by the results' timestamps"),
    ]
}

public final class TranscriptSinkElement: Sink {
    public static let DEFAULT_LOCATION: String? = nil
    public static let DEFAULT_FORMAT = TranscriptFormat.text
    public static let DEFAULT_FINALS_ONLY = true
    public static let DEFAULT_APPEND = false

    public static let metadata = ElementMetadata(
        factoryName: "transcriptsink", typeName: "GstTranscriptSink",
        longName: "Transcript sink", klass: "Sink/Text",
        description: "Writes transcripts and translations to a file as text, JSON Lines or SRT subtitles",
        docURI: Release.documentation(for: "transcriptsink"),
        example: "gst-launch-1.0 fdsrc ! text/x-raw,format=utf8 ! transcriptsink location=notes.jsonl format=jsonl")
    public static let pads = PadTemplates(sink: "text/x-raw, format=(string)utf8")
    public static let properties = [
        PropertySpec("location", nick: "Location",
                     blurb: "File to write to; unset or \"-\" writes to standard output",
                     .string(default: DEFAULT_LOCATION)),
        PropertySpec("format", nick: "Format", blurb: "How each result is written",
                     .enumeration(typeName: "GstParleyTranscriptFormat", values: TranscriptFormat.values,
                                  default: DEFAULT_FORMAT.rawValue)),
        PropertySpec("finals-only", nick: "Finals only",
                     blurb: "Skip partial results (read from ParleySpeechMeta); failed and skipped segments are never written",
                     .bool(default: DEFAULT_FINALS_ONLY)),
        PropertySpec("append", nick: "Append", blurb: "Append to the file instead of replacing it",
                     .bool(default: DEFAULT_APPEND)),
        PropertySpec("results-written", nick: "Results written", blurb: "Results written since the element started",
                     .uint64(default: 0, range: 0...UInt64.max), flags: .readOnly),
    ]

    struct Settings {
        var location = DEFAULT_LOCATION
        var format = DEFAULT_FORMAT
        var finalsOnly = DEFAULT_FINALS_ONLY
        var append = DEFAULT_APPEND
    }

    struct State {
        var output: FileHandle?
        var ownsOutput = false
        var cueNumber = 0
        var settings = Settings()
    }


    public let element: ElementHandle
    private let settings = Mutex(Settings())
    private let state = Mutex(State())
    private let written = Atomic<UInt64>(0)

    public init(element: ElementHandle) { self.element = element }

    public func property(named name: String) -> PropertyValue {
        let current = settings.withLock { $0 }
        switch name {
        case "location": return .string(current.location)
        case "format": return .enumeration(current.format.rawValue)
        case "finals-only": return .bool(current.finalsOnly)
        case "append": return .bool(current.append)
        case "results-written": return .uint64(written.load(ordering: .relaxed))
        default: Self.unhandledProperty(name)
        }
    }

    public func setProperty(named name: String, to value: PropertyValue) {
        settings.withLock { settings in
            switch name {
            case "location": settings.location = value.string
            case "format": settings.format = TranscriptFormat(rawValue: value.int) ?? Self.DEFAULT_FORMAT
            case "finals-only": settings.finalsOnly = value.bool
            case "append": settings.append = value.bool
            default: Self.unhandledProperty(name)
            }
        }
    }

    public func start() throws(ElementMessageText) {
        let current = settings.withLock { $0 }
        written.store(0, ordering: .relaxed)
        do {
            let (handle, owned) = try Self.openOutput(current)
            state.withLock { $0 = State(output: handle, ownsOutput: owned, settings: current) }
            Self.log.info("writing \(current.format) to \(current.location ?? "stdout")", object: element)
        } catch {
            throw .openWrite("Could not open \"\(current.location ?? "")\" for writing: \(error.localizedDescription)",
                             debug: "property location")
        }
    }

    /// Opens `location` where it is, as a shell's `>` (or `>>` with `append`)
    /// would: a symlink is followed, a device or FIFO is written to, an
    /// existing file keeps its mode and its hard links. Nothing is replaced.
    private static func openOutput(_ settings: Settings) throws -> (FileHandle, Bool) {
        guard let location = settings.location, location != "-", !location.isEmpty else {
            return (FileHandle.standardOutput, false)
        }
        let flags = O_WRONLY | O_CREAT | O_CLOEXEC | (settings.append ? O_APPEND : O_TRUNC)
        let descriptor = Glibc.open(location, flags, 0o666)
        guard descriptor >= 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [
                NSFilePathErrorKey: location,
                NSLocalizedDescriptionKey: String(cString: strerror(errno)),
            ])
        }
        return (FileHandle(fileDescriptor: descriptor, closeOnDealloc: true), true)
    }

    public func stop() {
        state.withLock { state in
            if state.ownsOutput { try? state.output?.close() }
            state.output = nil
        }
    }

    public func render(_ buffer: Buffer) throws(FlowError) {
        let meta = buffer.speechMeta
        let text = buffer.text
        let failure = state.withLock { state -> ElementMessageText? in
            let status = meta?.status ?? .final
            if status == .failed || status == .skipped { return nil }
            if status == .partial && state.settings.finalsOnly { return nil }
            state.cueNumber += 1
            let line = TranscriptFormatter.format(
                text, format: state.settings.format, cue: state.cueNumber, meta: meta,
                start: buffer.pts, duration: buffer.duration)
            do {
                try state.output?.write(contentsOf: Data(line.utf8))
            } catch {
                return .openWrite("Could not write the transcript: \(error.localizedDescription)")
            }
            written.add(1, ordering: .relaxed)
            return nil
        }
        if let failure {
            element.postError(failure)
            throw .error
        }
    }
}
