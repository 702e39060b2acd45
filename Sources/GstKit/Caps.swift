import CGStreamer
import GstBridge

/// Owns one reference to a GstCaps.
public final class Caps: @unchecked Sendable, CustomStringConvertible {
    public let pointer: UnsafeMutablePointer<GstCaps>

    public init(taking pointer: UnsafeMutablePointer<GstCaps>) { self.pointer = pointer }
    public init(borrowing pointer: UnsafeMutablePointer<GstCaps>) { self.pointer = parley_caps_ref(pointer) }

    /// Parses caps from their string form, e.g. "text/x-raw, format=utf8".
    public convenience init?(_ string: String) {
        guard let caps = gst_caps_from_string(string) else { return nil }
        self.init(taking: caps)
    }

    deinit { parley_caps_unref(pointer) }

    public var description: String { takeGString(gst_caps_to_string(pointer)) ?? "" }
    public func canIntersect(_ other: Caps) -> Bool { gst_caps_can_intersect(pointer, other.pointer) != 0 }
    public var isEmpty: Bool { gst_caps_is_empty(pointer) != 0 }
    public func intersect(_ other: Caps) -> Caps { Caps(taking: gst_caps_intersect(pointer, other.pointer)) }

    /// The first structure, read as a Swift value.
    public var firstStructure: Structure? {
        guard gst_caps_get_size(pointer) > 0, let structure = gst_caps_get_structure(pointer, 0) else { return nil }
        return Structure(borrowing: structure)
    }

    public func transferOwnership() -> UnsafeMutablePointer<GstCaps> { parley_caps_ref(pointer) }
}

/// Audio caps fields Parley elements need.
public struct AudioFormat: Sendable, Equatable {
    public var rate: Int
    public var channels: Int
    public init(rate: Int, channels: Int = 1) {
        self.rate = rate
        self.channels = channels
    }

    public init?(caps: Caps) {
        guard let structure = caps.firstStructure, structure.name == "audio/x-raw",
              let rate = structure["rate"]?.int, rate > 0 else { return nil }
        self.init(rate: rate, channels: structure["channels"]?.int ?? 1)
    }

    public var caps: Caps {
        Caps("audio/x-raw, format=S16LE, layout=interleaved, channels=\(channels), rate=\(rate)")!
    }

    /// Nanoseconds of audio in `samples` frames.
    public func duration(frames: Int) -> UInt64 {
        UInt64(frames) * Gst.second / UInt64(rate)
    }
}
