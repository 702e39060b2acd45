import CGStreamer
import GstBridge

/// Owns one reference to a GstEvent.
public final class Event: @unchecked Sendable, CustomStringConvertible {
    public let pointer: UnsafeMutablePointer<GstEvent>

    public init(taking pointer: UnsafeMutablePointer<GstEvent>) { self.pointer = pointer }
    deinit { parley_event_unref(pointer) }

    public var type: GstEventType { pointer.pointee.type }
    public var typeName: String { String(cString: gst_event_type_get_name(type)) }
    public var isSerialized: Bool { type.rawValue & GST_EVENT_TYPE_SERIALIZED.rawValue != 0 }

    /// The event's structure (custom events carry their payload there).
    public var structure: Structure? {
        gst_event_get_structure(pointer).map { Structure(borrowing: $0) }
    }

    public var description: String {
        structure.map { "\(typeName) \($0)" } ?? typeName
    }

    public func transferOwnership() -> UnsafeMutablePointer<GstEvent> { parley_event_ref(pointer) }

    /// The caps of a CAPS event.
    public var caps: Caps? {
        guard type == GST_EVENT_CAPS else { return nil }
        var caps: UnsafeMutablePointer<GstCaps>?
        gst_event_parse_caps(pointer, &caps)
        return caps.map { Caps(borrowing: $0) }
    }

    /// A custom serialized downstream event carrying `structure`.
    public static func customDownstream(_ structure: Structure) -> Event {
        Event(taking: gst_event_new_custom(GST_EVENT_CUSTOM_DOWNSTREAM, structure.makeGstStructure()))
    }

    public static func eos() -> Event { Event(taking: gst_event_new_eos()) }

    public static func caps(_ caps: Caps) -> Event { Event(taking: gst_event_new_caps(caps.pointer)) }

    public static func streamStart(_ id: String) -> Event { Event(taking: gst_event_new_stream_start(id)) }

    /// GAP: no data at `timestamp` (for `duration`; none = unknown). It
    /// prerolls sinks as a buffer would, so a branch whose element had
    /// nothing to say for a while does not hold its pipeline in PAUSED.
    public static func gap(timestamp: UInt64, duration: UInt64 = Gst.clockTimeNone) -> Event {
        Event(taking: gst_event_new_gap(GstClockTime(timestamp), GstClockTime(duration)))
    }

    /// A TIME segment starting at `start`.
    public static func timeSegment(start: UInt64 = 0) -> Event {
        var segment = GstSegment()
        gst_segment_init(&segment, GST_FORMAT_TIME)
        segment.start = guint64(start)
        segment.time = guint64(start)
        return Event(taking: gst_event_new_segment(&segment))
    }
}

/// A TIME GstSegment, for turning timestamps into running time.
public struct TimeSegment: @unchecked Sendable {
    private var segment = GstSegment()

    public init() { gst_segment_init(&segment, GST_FORMAT_TIME) }

    /// Reads a SEGMENT event; nil if it is not one in TIME format.
    public init?(_ event: Event) {
        guard event.type == GST_EVENT_SEGMENT else { return nil }
        var parsed: UnsafePointer<GstSegment>?
        gst_event_parse_segment(event.pointer, &parsed)
        guard let parsed, parsed.pointee.format == GST_FORMAT_TIME else { return nil }
        segment = parsed.pointee
    }

    /// Where the segment starts, in stream time (ns).
    public var start: UInt64 { UInt64(segment.start) }

    /// Running time of `pts`, or `Gst.clockTimeNone` outside the segment.
    public func runningTime(of pts: UInt64) -> UInt64 {
        guard pts != Gst.clockTimeNone else { return Gst.clockTimeNone }
        var copy = segment
        return UInt64(gst_segment_to_running_time(&copy, GST_FORMAT_TIME, guint64(pts)))
    }
}

/// Reads stream tags Parley cares about.
public enum TagReader {
    /// The ISO 639 language code of a TAG event, if it carries one.
    public static func languageCode(_ event: Event) -> String? {
        guard event.type == GST_EVENT_TAG else { return nil }
        var list: UnsafeMutablePointer<GstTagList>?
        gst_event_parse_tag(event.pointer, &list)
        guard let list else { return nil }
        var value: UnsafeMutablePointer<gchar>?
        guard gst_tag_list_get_string(list, "language-code", &value) != 0, let value else { return nil }
        defer { g_free(value) }
        return String(cString: value)
    }
}
