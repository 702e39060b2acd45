import CGStreamer
import GstBridge

/// A GStreamer debug category, so `GST_DEBUG=vadsegmenter:6` works.
public final class DebugCategory: @unchecked Sendable {
    // @unchecked: GstDebugCategory is thread-safe and lives forever.
    public let pointer: UnsafeMutablePointer<GstDebugCategory>

    public init(_ name: String, description: String) {
        Gst.initialize()
        // GStreamer returns the existing category when the name is taken.
        pointer = _gst_debug_category_new(name, 0, description)
    }

    private static let byFactory = LockedDictionary<String, DebugCategory>()

    /// The category named `factoryName`, made once: elements without a
    /// `static let log` of their own log here.
    static func forFactory(_ factoryName: String, description: String) -> DebugCategory {
        byFactory.value(for: factoryName) { DebugCategory(factoryName, description: description) }
    }

    /// The levels elements log at (GStreamer's, with LOG called `verbose`).
    public enum Level: Sendable {
        case error, warning, info, debug, verbose, trace
        var gstLevel: GstDebugLevel {
            switch self {
            case .error: GST_LEVEL_ERROR
            case .warning: GST_LEVEL_WARNING
            case .info: GST_LEVEL_INFO
            case .debug: GST_LEVEL_DEBUG
            case .verbose: GST_LEVEL_LOG
            case .trace: GST_LEVEL_TRACE
            }
        }
    }

    /// Whether a line at `level` would be written: to skip building costly ones.
    public func isEnabled(_ level: Level) -> Bool { parley_debug_enabled(pointer, level.gstLevel) != 0 }

    public func log(_ level: Level, _ message: @autoclosure () -> String,
                    object: ElementHandle? = nil,
                    file: String = #fileID, function: String = #function, line: Int = #line) {
        guard isEnabled(level) else { return }
        let objectPointer = object.map { UnsafeMutableRawPointer($0.pointer).assumingMemoryBound(to: GObject.self) }
        parley_debug_log(pointer, level.gstLevel, file, function, gint(line), objectPointer, message())
    }

    public func error(_ message: @autoclosure () -> String, object: ElementHandle? = nil, file: String = #fileID, function: String = #function, line: Int = #line) {
        log(.error, message(), object: object, file: file, function: function, line: line)
    }
    public func warning(_ message: @autoclosure () -> String, object: ElementHandle? = nil, file: String = #fileID, function: String = #function, line: Int = #line) {
        log(.warning, message(), object: object, file: file, function: function, line: line)
    }
    public func info(_ message: @autoclosure () -> String, object: ElementHandle? = nil, file: String = #fileID, function: String = #function, line: Int = #line) {
        log(.info, message(), object: object, file: file, function: function, line: line)
    }
    public func debug(_ message: @autoclosure () -> String, object: ElementHandle? = nil, file: String = #fileID, function: String = #function, line: Int = #line) {
        log(.debug, message(), object: object, file: file, function: function, line: line)
    }
    /// GST_LEVEL_LOG (6): what happens per buffer.
    public func verbose(_ message: @autoclosure () -> String, object: ElementHandle? = nil, file: String = #fileID, function: String = #function, line: Int = #line) {
        log(.verbose, message(), object: object, file: file, function: function, line: line)
    }
    public func trace(_ message: @autoclosure () -> String, object: ElementHandle? = nil, file: String = #fileID, function: String = #function, line: Int = #line) {
        log(.trace, message(), object: object, file: file, function: function, line: line)
    }
}
