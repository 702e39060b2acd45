import CGStreamer

/// An event seen as what it is, so elements switch over Swift cases instead
/// of GstEventType values. `.other` keeps everything else (forward it).
public enum EventView: Sendable {
    case streamStart(streamID: String)
    case caps(Caps)
    case segment(TimeSegment?)
    case tag(languageCode: String?)
    case eos
    case flushStart
    case flushStop
    case gap
    /// A serialized custom downstream event (e.g. `parley/speech-start`).
    case customDownstream(Structure)
    case other
}

extension Event {
    /// What this event is.
    public var view: EventView {
        switch type {
        case GST_EVENT_STREAM_START:
            var id: UnsafePointer<gchar>?
            gst_event_parse_stream_start(pointer, &id)
            return .streamStart(streamID: id.map { String(cString: $0) } ?? "")
        case GST_EVENT_CAPS:
            return caps.map { .caps($0) } ?? .other
        case GST_EVENT_SEGMENT: return .segment(TimeSegment(self))
        case GST_EVENT_TAG: return .tag(languageCode: TagReader.languageCode(self))
        case GST_EVENT_EOS: return .eos
        case GST_EVENT_FLUSH_START: return .flushStart
        case GST_EVENT_FLUSH_STOP: return .flushStop
        case GST_EVENT_GAP: return .gap
        case GST_EVENT_CUSTOM_DOWNSTREAM: return structure.map { .customDownstream($0) } ?? .other
        default: return .other
        }
    }

    public var isEOS: Bool { type == GST_EVENT_EOS }
}
