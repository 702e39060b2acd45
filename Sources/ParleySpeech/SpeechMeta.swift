// The meta is registered by the bridge (GstBridge/meta.c); this file is the
// speech layer's one window onto it, so it alone reads the C struct.
import CGStreamer
import GstBridge
import GstKit
import ParleyCore

/// `ParleySpeechMeta` as a Swift value: which segment a buffer belongs to,
/// what it is (partial, final, failed, skipped), its language and the
/// latency stamps stages have put on it.
public struct SpeechMeta: Sendable, Equatable {
    public var segmentID: UInt64
    public var status: SpeechStatus
    /// 0 for a result's first attempt. When a stream breaks and is retried,
    /// an empty partial with a higher revision withdraws what the broken
    /// attempt showed, and the new attempt's partials carry that revision.
    public var revision: UInt32 = 0
    /// BCP-47, empty when unknown.
    public var language: String
    /// Speech end in the audio's own time (ns), or `Gst.clockTimeNone`.
    public var speechEndAudioTime: UInt64
    /// CLOCK_MONOTONIC nanoseconds, 0 where the stage has not stamped.
    public var stamps: [LatencyStamp: UInt64]
    /// Who served the stage that made this buffer ("local (apertium eng-spa)"); empty when unknown.
    /// At most 63 bytes travel.
    public var provider = ""
    /// Why a failed or skipped result is not final (the element's warning); empty otherwise.
    /// At most 191 bytes travel.
    public var detail = ""

    public init(segmentID: UInt64, status: SpeechStatus = .final, language: String = "",
                speechEndAudioTime: UInt64 = Gst.clockTimeNone, stamps: [LatencyStamp: UInt64] = [:]) {
        self.segmentID = segmentID
        self.status = status
        self.language = language
        self.speechEndAudioTime = speechEndAudioTime
        self.stamps = stamps
    }

    /// Stamps `stage` with the monotonic clock now, unless it is stamped already.
    public mutating func stamp(_ stage: LatencyStamp, at time: UInt64 = MonotonicClock.nanoseconds()) {
        if stamps[stage] == nil { stamps[stage] = time }
    }
}

extension Buffer {
    /// The speech meta on this buffer, if any.
    public var speechMeta: SpeechMeta? {
        guard let meta = parley_buffer_get_speech_meta(pointer) else { return nil }
        var stamps: [LatencyStamp: UInt64] = [:]
        withUnsafeBytes(of: meta.pointee.stamps) { raw in
            let values = raw.bindMemory(to: UInt64.self)
            for stage in LatencyStamp.allCases where values[stage.rawValue] != 0 {
                stamps[stage] = values[stage.rawValue]
            }
        }
        func text<T>(_ field: T) -> String {
            withUnsafeBytes(of: field) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
        }
        let language = text(meta.pointee.language)
        var value = SpeechMeta(segmentID: UInt64(meta.pointee.segment_id),
                               status: SpeechStatus(rawValue: meta.pointee.status) ?? .final,
                               language: language, speechEndAudioTime: UInt64(meta.pointee.speech_end_audio),
                               stamps: stamps)
        value.revision = UInt32(meta.pointee.revision)
        value.provider = text(meta.pointee.provider)
        value.detail = text(meta.pointee.detail)
        return value
    }

    /// Adds or replaces the speech meta (the buffer must be writable).
    public func setSpeechMeta(_ value: SpeechMeta) {
        let meta = parley_buffer_get_speech_meta(pointer) ?? parley_buffer_add_speech_meta(pointer)!
        meta.pointee.segment_id = guint64(value.segmentID)
        meta.pointee.status = value.status.rawValue
        meta.pointee.revision = guint(value.revision)
        meta.pointee.speech_end_audio = GstClockTime(value.speechEndAudioTime)
        func store(_ text: String, in raw: UnsafeMutableRawBufferPointer) {
            raw.initializeMemory(as: UInt8.self, repeating: 0)
            // Cut at a character boundary: the reader decodes UTF-8.
            var bytes = Array(text.utf8.prefix(raw.count - 1))
            while !bytes.isEmpty && String(validating: bytes, as: UTF8.self) == nil { bytes.removeLast() }
            raw.copyBytes(from: bytes)
        }
        withUnsafeMutableBytes(of: &meta.pointee.language) { store(value.language, in: $0) }
        withUnsafeMutableBytes(of: &meta.pointee.provider) { store(value.provider, in: $0) }
        withUnsafeMutableBytes(of: &meta.pointee.detail) { store(value.detail, in: $0) }
        withUnsafeMutableBytes(of: &meta.pointee.stamps) { raw in
            let values = raw.bindMemory(to: UInt64.self)
            for stage in LatencyStamp.allCases { values[stage.rawValue] = value.stamps[stage] ?? 0 }
        }
    }
}

extension SpeechMeta {
    /// The `parley/latency` message of a text-to-speech stage once its first
    /// audio left: time to first audio from when the text arrived, and voice
    /// to voice from when the VAD decided the speech had ended.
    public func ttsLatencyMessage(textArrivedAt: UInt64) -> Structure {
        let firstAudio = stamps[.firstAudioOut] ?? MonotonicClock.nanoseconds()
        var fields: [(String, PropertyValue)] = [
            ("segment-id", .uint64(segmentID)), ("stage", .string("tts")),
            ("time-to-first-audio-ms", .double(Double(firstAudio - textArrivedAt) / 1e6)),
        ]
        if let speechEnd = stamps[.speechEnd], firstAudio > speechEnd {
            fields.append(("voice-to-voice-ms", .double(Double(firstAudio - speechEnd) / 1e6)))
        }
        return Structure("parley/latency", fields)
    }
}
