import CGStreamer
import GstBridge

/// A borrowed GstPad (the element that owns it outlives every call).
///
/// Pushing is `package`: kinds' drivers push what elements return; elements
/// (and applications' elements outside this package) never push by hand.
public struct Pad: @unchecked Sendable, Equatable {
    package let pointer: UnsafeMutablePointer<GstPad>
    package init(_ pointer: UnsafeMutablePointer<GstPad>) { self.pointer = pointer }

    public var name: String { String(cString: parley_object_name(pointer)) }
    public var isSink: Bool { gst_pad_get_direction(pointer) == GST_PAD_SINK }
    public var isLinked: Bool { gst_pad_is_linked(pointer) != 0 }

    /// Pushes downstream. May block: never call from Swift's cooperative pool.
    @discardableResult
    package func push(_ buffer: Buffer) -> FlowResult {
        FlowResult(gst_pad_push(pointer, buffer.transferOwnership()))
    }

    @discardableResult
    package func push(_ event: Event) -> Bool {
        gst_pad_push_event(pointer, event.transferOwnership()) != 0
    }

    /// What GStreamer would do with the event if the element did not care.
    package func forwardDefault(_ event: Event, parent: ElementHandle) -> Bool {
        gst_pad_event_default(pointer, parent.objectPointer, event.transferOwnership()) != 0
    }

    package func queryDefault(_ query: Query, parent: ElementHandle) -> Bool {
        gst_pad_query_default(pointer, parent.objectPointer, query.pointer) != 0
    }

    /// Asks the peer for the latency upstream of this (sink) pad.
    public func peerLatency() -> Latency? {
        Latency.ask { gst_pad_peer_query(pointer, $0) }
    }
}
