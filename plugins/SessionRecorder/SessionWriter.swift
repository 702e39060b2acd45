import Foundation
import GstKit
import ParleyCore
import ParleySpeech

#if canImport(Glibc)
import Glibc
#endif

/// The session folder as segments finish. Used under the element's lock,
/// from every pad's streaming thread in turn.
final class SessionWriter: @unchecked Sendable {
    // @unchecked: only ever used inside the element's Mutex, one pad thread at a time.
    enum Role {
        case transcript, translation, audio

        init?(pad: String) {
            if pad.hasPrefix("transcript_") { self = .transcript }
            else if pad.hasPrefix("translation_") { self = .translation }
            else if pad.hasPrefix("audio_") { self = .audio }
            else { return nil }
        }
    }

    struct WriteError: Error, CustomStringConvertible {
        var description: String
    }

    struct Summary {
        var id: String
        var folder: String
        var segments: Int
        var failures: Int
    }

    /// A segment while its results arrive.
    struct Pending {
        var record: SegmentRecord
        /// Pads that have given this segment its result (text) or finished its utterance (audio).
        var done: Set<String> = []
        /// The translation pad of each entry of `record.translations`, side by
        /// side, in the order the pads were requested.
        var translationPads: [String] = []
        /// Why an audio pad has no speech for this segment (its TTS failed).
        var speechFailure: String?
        var written = false
        var changed = false
    }

    /// A request pad's number (`translation_3` → 3): pads are numbered in the order they were requested.
    static func padNumber(_ pad: String) -> Int { pad.split(separator: "_").last.flatMap { Int($0) } ?? Int.max }

    /// One utterance being written to `audio/NNNN.lang.wav.part`.
    struct Utterance {
        var segment: UInt64
        var name: String
        var descriptor: Int32
        var samples: Int
        var rate: Int
        var voice: String
    }

    let folder: URL
    private var info: SessionInfo
    private var pads: [String: Role] = [:]
    /// The highest segment each pad has reached, and the pads at EOS.
    private var reached: [String: UInt64] = [:]
    private var ended: Set<String> = []
    private var counters: [String: UInt64] = [:]
    private var pending: [UInt64: Pending] = [:]
    private var finished: [SegmentRecord] = []
    private var rates: [String: Int] = [:]
    private var utterances: [String: Utterance] = [:]
    private let log: Int32
    private var closed = false

    init(folder: URL, id: String, pipeline: String, variables: [String: String], pads: Set<String>) throws {
        self.folder = folder
        let manager = FileManager.default
        if manager.fileExists(atPath: folder.appendingPathComponent(Session.infoFile).path) {
            throw WriteError(description: "it already holds a session; choose another location")
        }
        do {
            // A session made here is the user's alone (recorded speech, what was said): mode 0700, as
            // the translation cache is. A folder the user made and named keeps the mode they gave it.
            if !manager.fileExists(atPath: folder.path) {
                try manager.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            }
            try Self.checkOwnFolder(folder)
            if !manager.fileExists(atPath: folder.appendingPathComponent("audio").path) {
                try manager.createDirectory(at: folder.appendingPathComponent("audio"), withIntermediateDirectories: false)
            }
            try Self.checkOwnFolder(folder.appendingPathComponent("audio"))
        } catch let error as WriteError {
            throw error
        } catch {
            throw WriteError(description: error.localizedDescription)
        }
        let formatter = ISO8601DateFormatter()
        info = SessionInfo(id: id, started: formatter.string(from: Date()), pipeline: pipeline, variables: variables)
        // Created here, never opened through a link or over a file already there (a planted session.jsonl).
        log = open(folder.appendingPathComponent(Session.logFile).path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_APPEND | O_CLOEXEC, 0o600)
        guard log >= 0 else { throw WriteError(description: "\(Session.logFile): \(String(cString: strerror(errno)))") }
        for pad in pads { add(pad: pad) }
        try writeInfo()
        try writeSubtitles()  // empty, but there and valid from the start
    }

    deinit { if log >= 0 { close(log) } }

    func add(pad: String) {
        guard let role = Role(pad: pad) else { return }
        pads[pad] = role
    }

    func setRate(_ rate: Int, pad: String) { rates[pad] = rate }

    /// A session is written only into a real folder (not a link) of this
    /// user's: one owned by another user (a shared 1777 folder someone made
    /// beforehand) could hold links to files of ours.
    static func checkOwnFolder(_ folder: URL) throws {
        var status = stat()
        guard lstat(folder.path, &status) == 0 else {
            throw WriteError(description: "\(folder.path): \(String(cString: strerror(errno)))")
        }
        guard status.st_mode & S_IFMT == S_IFDIR else {
            throw WriteError(description: "\(folder.path) is not a folder (a link or a file): choose another location")
        }
        guard status.st_uid == getuid() else {
            throw WriteError(description: "\(folder.path) belongs to another user (uid \(status.st_uid)): choose a folder of your own")
        }
    }

    // MARK: text

    func text(_ buffer: Buffer, pad: String) throws {
        guard let role = pads[pad] else { return }
        let number = counters[pad, default: 0]
        counters[pad] = number + 1
        let meta = buffer.speechMeta ?? SpeechMeta(segmentID: number)
        advance(pad, to: meta.segmentID)
        guard meta.status != .partial else { return }
        let text = String(decoding: buffer.withBytes { Array($0) }, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        var entry = pending[meta.segmentID] ?? Pending(record: SegmentRecord(segment: meta.segmentID, start: 0, end: 0))
        var result = SessionText(text: text, language: meta.language, status: meta.status.description,
                                 provider: meta.provider.isEmpty ? nil : meta.provider,
                                 reason: meta.detail.isEmpty ? nil : meta.detail)
        if role == .translation { result.firstSegment = meta.firstSegmentID }
        switch role {
        case .transcript:
            if buffer.pts != Gst.clockTimeNone {
                entry.record.start = Self.seconds(buffer.pts)
                entry.record.end = Self.seconds(buffer.pts + (buffer.duration == Gst.clockTimeNone ? 0 : buffer.duration))
            }
            entry.record.source = result
            if meta.speculativeRequests > 0 {
                entry.record.speculation = SessionSpeculation(requests: Int(meta.speculativeRequests), used: meta.speculationUsed,
                                                              keptMs: meta.speculationKeptMs > 0 ? Int(meta.speculationKeptMs) : nil)
            }
            if let end = meta.stamps[.speechEnd], let complete = meta.stamps[.resultComplete], complete > end {
                entry.record.latencyMs["transcript-ms"] = Double(complete - end) / 1e6
            }
        case .translation:
            if let index = entry.translationPads.firstIndex(of: pad) {
                // More sentences of the same translation (emit=sentences), or its final after them.
                var existing = entry.record.translations[index]
                existing.text = [existing.text, text].filter { !$0.isEmpty }.joined(separator: " ")
                existing.status = result.status
                existing.provider = result.provider ?? existing.provider
                existing.reason = result.reason ?? existing.reason
                entry.record.translations[index] = existing
            } else {
                // In the order of the pads (the pipeline's order of its listeners),
                // whichever translator answers first, so every segment reads alike.
                let position = entry.translationPads.firstIndex { Self.padNumber($0) > Self.padNumber(pad) } ?? entry.translationPads.count
                entry.translationPads.insert(pad, at: position)
                entry.record.translations.insert(result, at: position)
            }
            if entry.record.source == nil && buffer.pts != Gst.clockTimeNone {
                entry.record.start = Self.seconds(buffer.pts)
                entry.record.end = Self.seconds(buffer.pts + (buffer.duration == Gst.clockTimeNone ? 0 : buffer.duration))
            }
        case .audio:
            break
        }
        entry.done.insert(pad)
        entry.changed = true
        pending[meta.segmentID] = entry
        try flush()
    }

    // MARK: audio

    func audio(_ buffer: Buffer, pad: String) throws {
        // Audio without the meta (any GStreamer source) is one utterance: segment 0, to the end.
        let meta = buffer.speechMeta ?? SpeechMeta(segmentID: utterances[pad]?.segment ?? 0)
        if let current = utterances[pad], current.segment != meta.segmentID { try finishUtterance(pad) }
        advance(pad, to: meta.segmentID)
        if utterances[pad] == nil {
            let language = meta.language.isEmpty ? "audio" : LanguageNames.primary(meta.language)
            let name = String(format: "audio/%04llu.%@.wav", meta.segmentID, language)
            let descriptor = open(folder.appendingPathComponent(name + ".part").path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { throw WriteError(description: "\(name): \(String(cString: strerror(errno)))") }
            let rate = rates[pad] ?? 22_050
            try write(descriptor, [UInt8](WAVEncoder.header(sampleCount: 0, rate: rate)))
            utterances[pad] = Utterance(segment: meta.segmentID, name: name, descriptor: descriptor, samples: 0, rate: rate,
                                        voice: meta.provider)
            if pending[meta.segmentID] == nil {
                // Where the audio starts, until a transcript says where the speech did.
                let start = buffer.pts == Gst.clockTimeNone ? 0 : Self.seconds(buffer.pts)
                pending[meta.segmentID] = Pending(record: SegmentRecord(segment: meta.segmentID, start: start, end: start))
            }
            if let end = meta.stamps[.speechEnd], let first = meta.stamps[.firstAudioOut], first > end {
                pending[meta.segmentID]?.record.latencyMs["first-audio-ms"] = Double(first - end) / 1e6
            }
        }
        let bytes = buffer.withBytes { Array($0) }
        try write(utterances[pad]!.descriptor, bytes)
        utterances[pad]!.samples += bytes.count / 2
    }

    func utteranceEnded(_ segment: UInt64, pad: String) {
        guard utterances[pad]?.segment == segment else { return }
        try? finishUtterance(pad)
        try? flush()
    }

    /// The TTS upstream of `pad` could not speak `segment` (its `parley/tts-end`
    /// said failed): the segment is recorded as failed, with the reason, and
    /// this pad is done with it. Audio that had started is kept.
    func speechFailed(_ segment: UInt64, pad: String, reason: String) {
        if utterances[pad]?.segment == segment { try? finishUtterance(pad) }
        var entry = pending[segment] ?? Pending(record: SegmentRecord(segment: segment, start: 0, end: 0))
        entry.speechFailure = "speech: \(reason)"
        entry.done.insert(pad)
        entry.changed = true
        pending[segment] = entry
        try? flush()
    }

    /// Completes the WAV's header, syncs it and gives it its final name.
    private func finishUtterance(_ pad: String) throws {
        guard let utterance = utterances.removeValue(forKey: pad) else { return }
        let header = WAVEncoder.header(sampleCount: utterance.samples, rate: utterance.rate)
        _ = header.withUnsafeBytes { pwrite(utterance.descriptor, $0.baseAddress, $0.count, 0) }
        fsync(utterance.descriptor)
        close(utterance.descriptor)
        let path = folder.appendingPathComponent(utterance.name).path
        guard rename(path + ".part", path) == 0 else { throw WriteError(description: "\(utterance.name): \(String(cString: strerror(errno)))") }
        var entry = pending[utterance.segment] ?? Pending(record: SegmentRecord(segment: utterance.segment, start: 0, end: 0))
        if entry.record.source == nil && entry.record.translations.isEmpty {
            // Audio alone (no text pad timed it): the segment lasts as long as its audio.
            entry.record.end = max(entry.record.end, entry.record.start + Double(utterance.samples) / Double(utterance.rate))
        }
        entry.record.audio.append(utterance.name)
        entry.record.voices.append(utterance.voice)
        entry.done.insert(pad)
        entry.changed = true
        pending[utterance.segment] = entry
    }

    // MARK: order and completion

    private func advance(_ pad: String, to segment: UInt64) {
        reached[pad] = max(reached[pad] ?? segment, segment)
    }

    /// Whether `pad` has nothing more to say about `segment`.
    private func isDone(_ pad: String, with entry: Pending) -> Bool {
        if entry.done.contains(pad) || ended.contains(pad) { return true }
        if let reached = reached[pad], reached > entry.record.segment { return true }
        if pads[pad] == .audio && utterances[pad]?.segment != entry.record.segment {
            // Speech comes only for a final, non-empty text: the translation's when there is one.
            let spoken = entry.record.translations.isEmpty ? entry.record.source.map { [$0] } ?? [] : entry.record.translations
            let textsDone = pads.filter { $0.value != .audio }.keys.allSatisfy { entry.done.contains($0) || ended.contains($0) }
            return textsDone && !spoken.contains { $0.status == "final" && !$0.text.isEmpty }
        }
        return false
    }

    /// Writes every finished segment, in order, stopping at the first that is not.
    private func flush(everything: Bool = false) throws {
        for id in pending.keys.sorted() {
            guard var entry = pending[id], entry.changed else { continue }
            let complete = everything || pads.keys.allSatisfy { isDone($0, with: entry) }
            if !complete {
                if entry.written { continue }  // an update can wait; order is already kept
                break
            }
            entry.record.status = "final"
            entry.record.reason = nil
            for part in [entry.record.source].compactMap({ $0 }) + entry.record.translations where part.status != "final" {
                entry.record.status = part.status
                entry.record.reason = part.reason
                break
            }
            if entry.record.status == "final", let failure = entry.speechFailure {
                entry.record.status = "failed"
                entry.record.reason = failure
            }
            // Subtitles first: after a kill between the two, they hold at most one cue the log does not.
            if let index = finished.firstIndex(where: { $0.segment == id }) { finished[index] = entry.record } else { finished.append(entry.record) }
            try writeSubtitles()
            try appendLine(entry.record)
            entry.written = true
            entry.changed = false
            pending[id] = entry
        }
        // Forget what can no longer change.
        let low = pads.keys.map { pad in ended.contains(pad) ? UInt64.max : reached[pad] ?? 0 }.min() ?? 0
        for id in pending.keys where pending[id]!.written && !pending[id]!.changed && id < low { pending[id] = nil }
    }

    private func appendLine(_ record: SegmentRecord) throws {
        guard var line = try? JSONLines.line(record) else { return }
        line.append(UInt8(ascii: "\n"))
        // One write, then a sync: a kill leaves whole lines and at most one torn last line.
        try write(log, [UInt8](line))
        fdatasync(log)
    }

    private func writeSubtitles() throws {
        let ordered = finished.sorted { $0.segment < $1.segment }
        let source = ordered.compactMap { record in
            record.source.flatMap { $0.text.isEmpty ? nil : Subtitles.Cue(start: record.start, end: record.end, text: $0.text) }
        }
        try files("source", source)
        var languages: [String] = []
        for record in ordered { for translation in record.translations where !languages.contains(translation.language) { languages.append(translation.language) } }
        for language in languages {
            // A joined translation is shown from its first segment's start.
            let starts = Dictionary(ordered.map { ($0.segment, $0.start) }, uniquingKeysWith: { first, _ in first })
            let cues = ordered.compactMap { record in
                record.translations.first { $0.language == language && !$0.text.isEmpty }.map {
                    Subtitles.Cue(start: $0.firstSegment.flatMap { starts[$0] } ?? record.start, end: record.end, text: $0.text)
                }
            }
            try files("translation.\(language.isEmpty ? "unknown" : language)", cues)
        }
    }

    private func files(_ stem: String, _ cues: [Subtitles.Cue]) throws {
        do {
            try Session.writeAtomically(Data(Subtitles.srt(cues).utf8), to: folder.appendingPathComponent("\(stem).srt"))
            try Session.writeAtomically(Data(Subtitles.vtt(cues).utf8), to: folder.appendingPathComponent("\(stem).vtt"))
        } catch {
            throw WriteError(description: "\(stem) subtitles: \(error.localizedDescription)")
        }
    }

    private func writeInfo() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            try Session.writeAtomically(try encoder.encode(info), to: folder.appendingPathComponent(Session.infoFile))
        } catch {
            throw WriteError(description: "session.json: \(error.localizedDescription)")
        }
    }

    // MARK: the end

    /// A pad's EOS; the summary once every pad has ended.
    func ended(pad: String) -> Summary? {
        try? finishUtterance(pad)
        ended.insert(pad)
        try? flush()
        return pads.keys.allSatisfy({ ended.contains($0) }) ? finish() : nil
    }

    /// Writes what is left (all of it: a stop mid-stream writes segments as they stand) and the final session.json.
    func finish() -> Summary? {
        guard !closed else { return nil }
        closed = true
        for pad in utterances.keys { try? finishUtterance(pad) }
        try? flush(everything: true)
        info.ended = ISO8601DateFormatter().string(from: Date())
        info.duration = finished.map(\.end).max() ?? 0
        info.segments = finished.count
        info.failures = finished.filter { $0.status == "failed" }.count
        var languages: [String] = [], providers: [String] = []
        for record in finished {
            for part in [record.source].compactMap({ $0 }) + record.translations {
                if !part.language.isEmpty && !languages.contains(part.language) { languages.append(part.language) }
                if let provider = part.provider, !providers.contains(provider) { providers.append(provider) }
            }
            for voice in record.voices where !voice.isEmpty && !providers.contains(voice) { providers.append(voice) }
        }
        info.languages = languages
        info.providers = providers
        try? writeInfo()
        return Summary(id: info.id, folder: folder.path, segments: info.segments, failures: info.failures)
    }

    // MARK: helpers

    static func seconds(_ time: UInt64) -> Double { Double(time / Gst.millisecond) / 1000 }

    private func write(_ descriptor: Int32, _ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                throw WriteError(description: String(cString: strerror(errno)))
            }
            offset += written
        }
    }
}
