import CGStreamer
import GstBridge

/// A borrowed GstQuery being answered (the caller owns it).
public struct Query: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<GstQuery>
    init(_ pointer: UnsafeMutablePointer<GstQuery>) { self.pointer = pointer }

    public var view: QueryView {
        switch pointer.pointee.type {
        case GST_QUERY_LATENCY: .latency
        case GST_QUERY_CAPS: .caps
        case GST_QUERY_POSITION: .position
        default: .other
        }
    }

    /// Answers a LATENCY query.
    public func setLatency(_ latency: Latency) {
        gst_query_set_latency(pointer, latency.live ? 1 : 0, GstClockTime(latency.min), GstClockTime(latency.max))
    }
}

/// What a query asks, so elements switch over Swift cases.
public enum QueryView: Sendable {
    case latency, caps, position, other
}

/// A LATENCY answer: whether the stream is live, and the minimum and maximum
/// latency in ns (`Gst.clockTimeNone` = unbounded maximum).
public struct Latency: Sendable, Equatable, CustomStringConvertible {
    public var description: String {
        "\(live ? "live" : "not live"), min \(min / 1_000_000) ms, max \(max == Gst.clockTimeNone ? "none" : "\(max / 1_000_000) ms")"
    }
    public var live: Bool
    public var min: UInt64
    public var max: UInt64
    public init(live: Bool, min: UInt64, max: UInt64) {
        self.live = live
        self.min = min
        self.max = max
    }

    /// This latency with `own` more: what an element that holds data for
    /// `own` ns answers (the maximum stays unbounded if it was).
    public func adding(_ own: UInt64) -> Latency {
        Latency(live: live, min: min + own, max: max == Gst.clockTimeNone ? max : max + own)
    }
}

extension Latency {
    /// Sends a new LATENCY query with `send` (a pad's peer, an element) and
    /// reads the answer; nil when no one answered.
    static func ask(_ send: (UnsafeMutablePointer<GstQuery>) -> gboolean) -> Latency? {
        let query = gst_query_new_latency()!
        defer { gst_mini_object_unref(UnsafeMutableRawPointer(query).assumingMemoryBound(to: GstMiniObject.self)) }
        guard send(query) != 0 else { return nil }
        var live: gboolean = 0
        var min: GstClockTime = 0, max: GstClockTime = 0
        gst_query_parse_latency(query, &live, &min, &max)
        return Latency(live: live != 0, min: UInt64(min), max: UInt64(max))
    }
}
