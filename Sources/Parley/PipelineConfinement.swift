import Foundation
import GstKit
import ParleyCore

/// What a pipeline someone else sent may touch when it runs here: a
/// worker's job (`parley worker`) runs the submitter's pipeline file as the
/// worker's user, so unless the worker trusts its submitters
/// (`--trust-pipelines`) the built pipeline is checked before it plays:
///
/// - files only inside the job's folder: every property named for a place
///   (`location`, `cache-dir`, `…-file`, `…-path`: filesrc, filesink,
///   transcriptsink, sessionrecorder, recordingsrc, streamtranslator's cache,
///   mp4mux's recovery file…) is an absolute path below it, every `uri` a
///   `file://` URI below it (a path that climbs out with `..` is judged where
///   it lands). Left empty they are the worker's own places (standard
///   output, its translation cache), which a job cannot choose; an
///   element's own default counts as chosen (mp4mux's faststart-file in
///   /tmp), so such a job names a place in its folder instead;
/// - no network and no devices: no element whose class says Network, none
///   with a `device` property (ALSA, PulseAudio, V4L2), none of the `auto*`
///   sinks and sources or players (playbin) that choose a device when they
///   start;
/// - no provider at an address the worker was not given: a cloud element's
///   `base-url` must stay empty, the provider's own address, so an API key
///   this worker holds in its environment is never sent elsewhere;
/// - only the elements a speech job needs (`allowedFactories`): reading,
///   decoding, converting, cutting, transcribing, translating, speaking,
///   recording and writing speech. Anything else is refused by name, so a
///   newly installed element is not trusted by default, and nothing a job
///   names can reach the worker's own descriptors (`fdsink fd=6` wrote a
///   job's input into the worker's NATS connection), run a program or open
///   a socket. Elements that decodebin picks while playing are decoders.
///   The special values that are not places are accepted only where they
///   mean something else: transcriptsink's `location=-` (standard output)
///   and streamtranslator's `cache-dir=none` (memory only); elsewhere "-"
///   and "none" are file names in the worker's folder, and refused.
///
/// A violation names the element and what it would reach; the job fails
/// with it, before anything is read or written.
public struct PipelineConfinement: Sendable {
    /// The job's folder, absolute and standardised.
    public let folder: String

    public init(folder: String) {
        self.folder = URL(fileURLWithPath: folder).standardizedFileURL.path
    }

    /// The words of a property's name that make it name a file or a folder
    /// (location, cache-dir, mp4mux's moov-recovery-file, …): any element's,
    /// not a list of elements that may grow out of date.
    static let pathWords: Set<Substring> = ["location", "file", "filename", "dir", "directory", "folder", "path"]

    static func namesAPlace(_ property: String) -> Bool {
        property.split(separator: "-").contains { pathWords.contains($0) }
    }

    /// The element factories a job's pipeline may use (see the type's docs).
    public static let allowedFactories: Set<String> = [
        // Parley's elements
        "vadsegmenter", "cloudstt", "streamtranslator", "cloudtts", "espeaktts", "espeaksrc", "transcriptsink",
        "sessionrecorder", "linesplitter", "recordingsrc",
        // parley bench's output probe (a corpus benched over workers: parley bench --nats)
        "parleybenchsink",
        // files in the job's folder (their places are checked)
        "filesrc", "filesink", "uridecodebin", "uridecodebin3",
        // decoding, parsing, encoding and muxing audio
        "decodebin", "decodebin3", "parsebin", "wavparse", "wavenc", "mulawdec", "alawdec", "mulawenc", "alawenc", "flacparse", "flacdec", "flacenc", "oggdemux", "oggmux",
        "vorbisdec", "vorbisenc", "opusdec", "opusenc", "opusparse", "mpegaudioparse", "mpg123audiodec", "lamemp3enc",
        "qtdemux", "mp4mux", "matroskademux", "matroskamux", "webmmux", "aacparse", "avdec_aac", "rawaudioparse",
        // converting and routing in the pipeline
        "audioconvert", "audioresample", "audiorate", "volume", "level", "capsfilter", "queue", "tee", "identity",
        "audiomixer", "interleave", "deinterleave",
        // test sources and sinks
        "fakesrc", "fakesink", "audiotestsrc",
        // what decodebin and its kin hold from the start
        "typefind", "multiqueue",
    ]

    /// Values of a place property that name no place, by element and property.
    static let notPlaces: [String: Set<String>] = ["transcriptsink location": ["-"], "streamtranslator cache-dir": ["none"]]

    /// Sinks, sources and players that open a device of their own choosing
    /// when they start (so no `device` property shows it beforehand).
    static let deviceChoosers: Set<String> = ["autoaudiosink", "autoaudiosrc", "autovideosink", "autovideosrc",
                                              "playbin", "playbin3", "playsink"]

    /// What the pipeline would reach outside the job, one line each (empty:
    /// nothing). The job's values are quoted as excerpts (`SafeText`).
    public func violations(in pipeline: Pipeline) -> [String] {
        var found: [String] = []
        func quoted(_ value: String) -> String { "\"\(SafeText.excerpt(value, limit: 120))\"" }
        for element in pipeline.elements {
            let factory = element.factoryName ?? ""
            let named = "\(SafeText.excerpt(element.name, limit: 60)) (\(factory))"
            if Self.deviceChoosers.contains(factory) || element.property("device") != nil {
                found.append("\(named) opens a device")
            } else if let klass = factory.isEmpty ? nil : ElementFactory(named: factory)?.klass, klass.contains("Network") {
                found.append("\(named) reaches the network (\(klass))")
            } else if !factory.isEmpty && !Self.allowedFactories.contains(factory) {
                found.append("\(named) is not an element a job may use (a worker runs only what a speech job needs; see PipelineConfinement.allowedFactories)")
            }
            for name in element.propertyNames where Self.namesAPlace(name) {
                guard let value = element.property(name)?.string, !value.isEmpty,
                      Self.notPlaces["\(factory) \(name)"]?.contains(value) != true else { continue }
                if !isInside(value) { found.append("\(named): \(name) \(quoted(value)) is outside the job's folder \(folder)") }
            }
            if let uri = element.property("uri")?.string, !uri.isEmpty {
                let path = uri.hasPrefix("file://") ? URL(string: uri)?.path : nil
                if path.map(isInside) != true { found.append("\(named): uri \(quoted(uri)) is not a file inside the job's folder \(folder)") }
            }
            if let addresses = element.property("base-url")?.string,
               !addresses.split(separator: ",").allSatisfy({ $0.trimmingCharacters(in: .whitespaces).isEmpty }) {
                found.append("\(named): base-url \(quoted(addresses)) is an address this worker was not given (its API keys go only to the providers' own)")
            }
        }
        return found
    }

    /// Whether `path` is an absolute path inside the job's folder once `..` is resolved.
    func isInside(_ path: String) -> Bool {
        guard path.hasPrefix("/") else { return false }
        let standardized = URL(fileURLWithPath: path).standardizedFileURL.path
        return standardized == folder || standardized.hasPrefix(folder + "/")
    }
}
