import CGStreamer
import GstBridge

/// A GStreamer debug category, so `GST_DEBUG=vadsegmenter:6` works.
public final class DebugCategory: @unchecked Sendable {
    // @unchecked: GstDebugCategory is thread-safe and lives forever.
    public let pointer: UnsafeMutablePointer<GstDebugCategory>

    public init(_ name: String, description: String) {
        Gst.initialize()
        pointer = _gst_debug_category_new(name, 0, description)
    }

    public func log(_ level: GstDebugLevel, _ message: @autoclosure () -> String,
                    object: ElementHandle? = nil,
                    file: String = #fileID, function: String = #function, line: Int = #line) {
        guard parley_debug_enabled(pointer, level) != 0 else { return }
        let objectPointer = object.map { UnsafeMutableRawPointer($0.pointer).assumingMemoryBound(to: GObject.self) }
        parley_debug_log(pointer, level, file, function, gint(line), objectPointer, message())
    }

    public func error(_ message: @autoclosure () -> String, object: ElementHandle? = nil, file: String = #fileID, function: String = #function, line: Int = #line) {
        log(GST_LEVEL_ERROR, message(), object: object, file: file, function: function, line: line)
    }
    public func warning(_ message: @autoclosure () -> String, object: ElementHandle? = nil, file: String = #fileID, function: String = #function, line: Int = #line) {
        log(GST_LEVEL_WARNING, message(), object: object, file: file, function: function, line: line)
    }
    public func info(_ message: @autoclosure () -> String, object: ElementHandle? = nil, file: String = #fileID, function: String = #function, line: Int = #line) {
        log(GST_LEVEL_INFO, message(), object: object, file: file, function: function, line: line)
    }
    public func debug(_ message: @autoclosure () -> String, object: ElementHandle? = nil, file: String = #fileID, function: String = #function, line: Int = #line) {
        log(GST_LEVEL_DEBUG, message(), object: object, file: file, function: function, line: line)
    }
    public func trace(_ message: @autoclosure () -> String, object: ElementHandle? = nil, file: String = #fileID, function: String = #function, line: Int = #line) {
        log(GST_LEVEL_TRACE, message(), object: object, file: file, function: function, line: line)
    }
}
