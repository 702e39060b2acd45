// sessionrecorder: writes a session folder a user can read, subtitle and
// replay: what was said, its translations, and the spoken output per utterance.
//
//     gst-launch-1.0 ... ! cloudstt ! tee name=stt ! queue ! rec.transcript_0 \
//         stt. ! queue ! streamtranslator target-language=es ! tee name=tr ! queue ! rec.translation_0 \
//         tr. ! queue ! cloudtts ! rec.audio_0  sessionrecorder name=rec
//
// Request pads, named for what they carry: `transcript_%u` (the source
// transcript), `translation_%u` (one per target language) and `audio_%u`
// (the spoken output, cut per utterance by cloudtts's parley/tts-start and
// parley/tts-end events, or by the meta's segment id; audio with no meta,
// from any GStreamer source, is one utterance). Results are matched
// by the ParleySpeechMeta segment id. The folder (see ParleyCore.Session):
// session.json, session.jsonl (one line per segment once every pad is done
// with it, in segment order), source.srt/.vtt, translation.<lang>.srt/.vtt,
// audio/0007.es.wav.
//
// Durability: each JSONL line is written whole and synced before the next;
// subtitle files are replaced atomically; a WAV is written as .part and
// renamed once finished. After a SIGKILL the log is valid up to the last
// finished segment, the subtitles parse and the finished WAVs are complete.
// Failed and skipped results are recorded with their status and reason.
//
// Messages: `parley/session` (`event` started or ended, `id`, `location`,
// `segments`, `failures`).
import Foundation
import GstKit
import ParleyCore
import ParleySpeech
import Synchronization

public final class SessionRecorderElement: MultiSink {
    public static let DEFAULT_LOCATION = ""
    public static let DEFAULT_PIPELINE = ""
    public static let DEFAULT_VARIABLES = ""

    public static let metadata = ElementMetadata(
        factoryName: "sessionrecorder", typeName: "GstSessionRecorder",
        longName: "Session recorder", klass: "Sink/Text/Audio",
        description: "Records a session folder: transcript, translations and spoken audio per utterance, subtitles, a JSON Lines log, written durably as segments finish",
        docURI: Release.documentation(for: "sessionrecorder"),
        example: "gst-launch-1.0 espeaksrc text=\"Hello there.\" ! rec.audio_0 sessionrecorder name=rec location=/tmp/hello-session")
    public static let pads = PadTemplates(requestSinks: [
        ("transcript_%u", "text/x-raw, format=(string)utf8"),
        ("translation_%u", "text/x-raw, format=(string)utf8"),
        ("audio_%u", "audio/x-raw, format=(string)S16LE, layout=(string)interleaved, channels=(int)1, rate=(int)[ 8000, 48000 ]"),
    ])

    public static let properties = [
        PropertySpec("location", nick: "Location",
                     blurb: "The session folder; empty = $XDG_DATA_HOME/parley/sessions/<date>-<id> (~/.local/share/parley/sessions), a new one each time the pipeline starts, made private (mode 0700: recorded speech is the user's alone; a folder that exists keeps its mode); a folder that already holds a session is refused, never overwritten",
                     .string(default: DEFAULT_LOCATION)),
        PropertySpec("pipeline", nick: "Pipeline", blurb: "The pipeline file the session ran, for session.json",
                     .string(default: DEFAULT_PIPELINE)),
        PropertySpec("variables", nick: "Variables",
                     blurb: "The pipeline's variables as NAME=value;NAME=value, for session.json (anything that looks like a secret is left out)",
                     .string(default: DEFAULT_VARIABLES)),
        PropertySpec("folder", nick: "Folder", blurb: "The folder being written (set at start)", .string(default: ""), flags: .readOnly),
        PropertySpec("session-id", nick: "Session id", blurb: "The session's id (set at start)", .string(default: ""), flags: .readOnly),
    ]


    struct Settings {
        var location = DEFAULT_LOCATION
        var pipeline = DEFAULT_PIPELINE
        var variables = DEFAULT_VARIABLES
    }

    public let element: ElementHandle
    let settings = Mutex(Settings())
    let state = Mutex<SessionWriter?>(nil)
    let opened = Mutex<(folder: String, id: String)>(("", ""))
    /// The request pads, as they are added (usually before start).
    let pads = Mutex<Set<String>>([])

    public init(element: ElementHandle) { self.element = element }

    public func property(named name: String) -> PropertyValue {
        let current = settings.withLock { $0 }
        switch name {
        case "location": return .string(current.location)
        case "pipeline": return .string(current.pipeline)
        case "variables": return .string(current.variables)
        case "folder": return .string(opened.withLock { $0.folder })
        case "session-id": return .string(opened.withLock { $0.id })
        default: Self.unhandledProperty(name)
        }
    }

    public func setProperty(named name: String, to value: PropertyValue) {
        settings.withLock { settings in
            switch name {
            case "location": settings.location = value.string ?? ""
            case "pipeline": settings.pipeline = value.string ?? ""
            case "variables": settings.variables = value.string ?? ""
            default: Self.unhandledProperty(name)
            }
        }
    }

    public func start() throws(ElementMessageText) {
        let current = settings.withLock { $0 }
        let id = Session.newID()
        let folder = current.location.isEmpty
            ? Session.defaultRoot().appendingPathComponent(id) : URL(fileURLWithPath: current.location)
        var variables: [String: String] = [:]
        for pair in current.variables.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { variables[parts[0].trimmingCharacters(in: .whitespaces)] = parts[1] }
        }
        let writer: SessionWriter
        do {
            writer = try SessionWriter(folder: folder, id: id, pipeline: current.pipeline,
                                       variables: Session.publicVariables(variables), pads: pads.withLock { $0 })
        } catch {
            throw .openWrite("cannot write the session to \(folder.path): \(error)", debug: "property location")
        }
        state.withLock { $0 = writer }
        opened.withLock { $0 = (folder.path, id) }
        element.postElementMessage(SessionMessage(phase: .started, id: id, location: folder.path).structure)
    }

    public func stop() {
        // Whatever was not finished by EOS (a stop mid-stream) is written as it stands.
        if let summary = state.withLock({ writer -> SessionWriter.Summary? in
            defer { writer = nil }
            return writer?.finish()
        }) {
            post(summary)
        }
    }

    public func render(_ buffer: Buffer, pad: String) throws(FlowError) {
        let failure: String? = state.withLock { writer in
            guard let writer else { return nil }
            do {
                switch SessionWriter.Role(pad: pad) {
                case .audio: try writer.audio(buffer, pad: pad)
                case .transcript, .translation: try writer.text(buffer, pad: pad)
                case nil: break
                }
                return nil
            } catch {
                return "\(error)"
            }
        }
        if let failure {
            element.postError(.openWrite("cannot write the session: \(failure)"))
            throw .error
        }
    }

    public func sinkEvent(_ event: Event, pad: String) {
        let summary: SessionWriter.Summary? = state.withLock { writer in
            guard let writer else { return nil }
            switch event.view {
            case .caps(let caps):
                if let format = AudioFormat(caps: caps) { writer.setRate(format.rate, pad: pad) }
            case .customDownstream(let structure):
                if let end = SpeechOutputEnd(structure) {
                    if let reason = end.failure {
                        writer.speechFailed(end.segmentID, pad: pad, reason: reason)
                    } else {
                        writer.utteranceEnded(end.segmentID, pad: pad)
                    }
                }
            case .eos:
                return writer.ended(pad: pad)
            default:
                break
            }
            return nil
        }
        if let summary { post(summary) }
    }

    public func padAdded(name: String) { pads.withLock { _ = $0.insert(name) } }
    public func padRemoved(name: String) { pads.withLock { _ = $0.remove(name) } }

    func post(_ summary: SessionWriter.Summary) {
        element.postElementMessage(SessionMessage(phase: .ended, id: summary.id, location: summary.folder,
                                                  segments: summary.segments, failures: summary.failures).structure)
    }
}
