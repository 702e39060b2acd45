import CGStreamer
import Foundation
import GstKit
import ParleyCore
import PocketSphinxEngine
import Synchronization

/// Results by status, readable as properties.
final class ResultCounters: Sendable {
    let final = Atomic<UInt64>(0)
    let skipped = Atomic<UInt64>(0)
    let failed = Atomic<UInt64>(0)

    func reset() {
        final.store(0, ordering: .relaxed)
        skipped.store(0, ordering: .relaxed)
        failed.store(0, ordering: .relaxed)
    }

    func count(_ status: SpeechStatus) {
        switch status {
        case .final: final.add(1, ordering: .relaxed)
        case .skipped: skipped.add(1, ordering: .relaxed)
        case .failed: failed.add(1, ordering: .relaxed)
        case .partial: break
        }
    }
}

extension CloudSTTElement {
    /// Queues the transcription of one segment; its result keeps its place in order.
    func submit(_ segment: SpeechSegment) -> GstFlowReturn {
        let current = settings.withLock { $0 }
        let engine = recognizer.withLock { $0 }
        let counters = counters
        let name = element.name
        let tooShort = segment.duration < UInt64(current.minSegmentMs) * Gst.millisecond
        return stage.submit({
            if tooShort {
                return Self.result(segment, text: "", status: .skipped, language: current.language, counters: counters,
                                   warning: "\(name): segment \(segment.id) is \(segment.duration / Gst.millisecond) ms, shorter than min-segment-ms=\(current.minSegmentMs): not transcribed")
            }
            guard let engine else {
                return Self.result(segment, text: "", status: .failed, language: current.language, counters: counters,
                                   warning: "\(name): no speech recognizer is loaded")
            }
            var meta = SpeechMeta(segmentID: segment.id, language: current.language)
            meta.stamp(.requestSent)
            do {
                let audio = Resampler.resample(segment.samples, from: segment.rate, to: PocketSphinxRecognizer.sampleRate)
                let text = try await engine.transcribe(audio)
                return Self.result(segment, text: text, status: .final, language: current.language, counters: counters,
                                   stamps: meta.stamps)
            } catch {
                return Self.result(segment, text: "", status: .failed, language: current.language, counters: counters,
                                   warning: "\(name): provider local (pocketsphinx) failed on segment \(segment.id): \(error), attempt 1 of 1")
            }
        }, placeholder: { reason in
            Self.result(segment, text: "", status: .skipped, language: current.language, counters: counters,
                        warning: "\(name): segment \(segment.id) skipped: the request queue is full (queue-policy=\(reason.rawValue))")
        })
    }

    /// The one result a segment produces: a text buffer with its meta, the
    /// `parley/transcript` message, latency figures, and a warning if it is not final.
    static func result(_ segment: SpeechSegment, text: String, status: SpeechStatus, language: String,
                       counters: ResultCounters, warning: String? = nil,
                       stamps: [LatencyStamp: UInt64] = [:]) -> StageOutput {
        counters.count(status)
        let buffer = Buffer(string: text)
        buffer.pts = segment.start
        buffer.duration = segment.duration
        var meta = SpeechMeta(segmentID: segment.id, status: status, language: language,
                              speechEndAudioTime: segment.speechEnd ?? Gst.clockTimeNone, stamps: stamps)
        if let decided = segment.decidedAt { meta.stamp(.speechEnd, at: decided) }
        meta.stamp(.resultComplete)
        buffer.setSpeechMeta(meta)
        var messages = [Structure("parley/transcript", [
            ("segment-id", .uint64(segment.id)), ("text", .string(text)), ("status", .string(status.description)),
            ("language", .string(language)), ("start", .uint64(segment.start)), ("duration", .uint64(segment.duration)),
        ])]
        if status == .final, let complete = meta.stamps[.resultComplete] {
            var fields: [(String, PropertyValue)] = [("segment-id", .uint64(segment.id)), ("stage", .string("stt"))]
            if let sent = meta.stamps[.requestSent] {
                fields.append(("processing-ms", .double(Double(complete - sent) / 1e6)))
            }
            if let decided = segment.decidedAt, complete > decided {
                fields.append(("ttfs-ms", .double(Double(complete - decided) / 1e6)))
            }
            messages.append(Structure("parley/latency", fields))
        }
        return StageOutput(buffers: [buffer], warning: warning.map { ElementMessageText($0) }, messages: messages)
    }
}
