import CGStreamer
import GstBridge

/// Process-wide GStreamer set-up.
public enum Gst {
    /// Initializes GStreamer once; safe to call from any thread, any number of times.
    public static func initialize() {
        _ = initialized
    }

    private static let initialized: Bool = {
        gst_init(nil, nil)
        return true
    }()

    /// GST_CLOCK_TIME_NONE.
    public static let clockTimeNone: UInt64 = UInt64.max
    public static let second: UInt64 = 1_000_000_000
    public static let millisecond: UInt64 = 1_000_000
}

/// Formats a GStreamer clock time the way GStreamer logs do ("0:00:01.250000000").
public func formatClockTime(_ time: UInt64) -> String {
    guard time != Gst.clockTimeNone else { return "none" }
    let seconds = time / Gst.second
    let nanos = time % Gst.second
    let fraction = String(nanos).leftPadded(to: 9)
    return "\(seconds / 3600):\(String(seconds / 60 % 60).leftPadded(to: 2)):\(String(seconds % 60).leftPadded(to: 2)).\(fraction)"
}

extension String {
    func leftPadded(to width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}

/// Copies a C string GLib allocated into a Swift string and frees it.
public func takeGString(_ pointer: UnsafeMutablePointer<gchar>?) -> String? {
    guard let pointer else { return nil }
    defer { g_free(pointer) }
    return String(cString: pointer)
}

/// A C string that lives for the rest of the process (class data, param specs).
func permanentCString(_ string: String) -> UnsafePointer<gchar> {
    UnsafePointer(strdup(string)!)
}
