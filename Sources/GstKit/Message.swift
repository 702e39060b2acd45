import CGStreamer
import GstBridge

/// A pipeline's bus, read from one thread.
public final class Bus: @unchecked Sendable {
    private let pointer: UnsafeMutablePointer<GstBus>
    init(taking pointer: UnsafeMutablePointer<GstBus>) { self.pointer = pointer }
    deinit { parley_object_unref(UnsafeMutableRawPointer(pointer)) }

    /// The next message, waiting at most `timeout` ns.
    public func pop(timeout: UInt64) -> Message? {
        gst_bus_timed_pop(pointer, GstClockTime(timeout)).map { Message(taking: $0) }
    }
}

/// Owns one reference to a GstMessage.
public final class Message: @unchecked Sendable {
    private let pointer: UnsafeMutablePointer<GstMessage>
    init(taking pointer: UnsafeMutablePointer<GstMessage>) { self.pointer = pointer }
    deinit { parley_message_unref(pointer) }

    /// The name of the object that posted it ("" if none).
    public var sourceName: String { pointer.pointee.src.map { String(cString: parley_object_name($0)) } ?? "" }

    /// What the message says, as Swift cases.
    public var view: MessageView {
        switch pointer.pointee.type {
        case GST_MESSAGE_EOS:
            return .eos
        case GST_MESSAGE_INFO, GST_MESSAGE_WARNING, GST_MESSAGE_ERROR:
            var error: UnsafeMutablePointer<GError>?
            var debug: UnsafeMutablePointer<gchar>?
            switch pointer.pointee.type {
            case GST_MESSAGE_INFO: gst_message_parse_info(pointer, &error, &debug)
            case GST_MESSAGE_WARNING: gst_message_parse_warning(pointer, &error, &debug)
            default: gst_message_parse_error(pointer, &error, &debug)
            }
            let text = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
            if let error { g_error_free(error) }
            let details = takeGString(debug)
            switch pointer.pointee.type {
            case GST_MESSAGE_INFO: return .info(text: text, debug: details)
            case GST_MESSAGE_WARNING: return .warning(text: text, debug: details)
            default: return .error(text: text, debug: details)
            }
        case GST_MESSAGE_ELEMENT:
            guard let structure = gst_message_get_structure(pointer) else { return .other }
            return .element(Structure(borrowing: structure))
        case GST_MESSAGE_STATE_CHANGED:
            var old = GST_STATE_NULL, new = GST_STATE_NULL, pending = GST_STATE_NULL
            gst_message_parse_state_changed(pointer, &old, &new, &pending)
            return .stateChanged(from: ElementState(old), to: ElementState(new), isTopLevel: sourceIsTopLevel)
        default:
            return .other
        }
    }

    /// The element that posted it (nil when a pad, the bus or the pipeline's
    /// clock did, or no object).
    public var sourceElement: Element? {
        guard let source = pointer.pointee.src,
              g_type_check_instance_is_a(UnsafeMutableRawPointer(source).assumingMemoryBound(to: GTypeInstance.self),
                                         gst_element_get_type()) != 0 else { return nil }
        gst_object_ref(source)
        return Element(taking: UnsafeMutableRawPointer(source).assumingMemoryBound(to: GstElement.self))
    }

    /// The domain of an error, warning or info message's GError (nil for
    /// other messages or a domain other than GStreamer's four): `.stream`
    /// means the data itself was wrong (not decodable, no type found).
    public var errorDomain: ErrorDomain? {
        guard let error = parsedError else { return nil }
        return [ErrorDomain.core, .library, .resource, .stream].first { $0.quark == error.domain }
    }

    /// Whether an error or warning says the data itself could not be read:
    /// no type found, the wrong type, not decodable, a container that does
    /// not parse (GStreamer's stream errors of those kinds). Not a missing
    /// decoder (codec not found: another machine may have it), nor a failure
    /// of a device, a file or a network (resource errors).
    /// So does decodebin's "all streams without buffers" (`endedWithoutData`).
    public var isAboutTheData: Bool {
        guard pointer.pointee.type != GST_MESSAGE_INFO, let error = parsedError,
              error.domain == gst_stream_error_quark() else { return false }
        return [GST_STREAM_ERROR_TYPE_NOT_FOUND, GST_STREAM_ERROR_WRONG_TYPE, GST_STREAM_ERROR_DECODE,
                GST_STREAM_ERROR_DEMUX, GST_STREAM_ERROR_FORMAT].contains { Int32($0.rawValue) == error.code }
            || endedWithoutData
    }

    /// decodebin's error when every stream it exposed ended before any
    /// data: a stream error, "failed", whose details end in "all streams
    /// without buffers". It stands for the demuxer's own error, which
    /// decodebin drops when it comes while the demuxer is still being
    /// brought up: a WAV file whose header does not parse gives wavparse's
    /// "of a different type" or, as often as the threads run so on a busy
    /// machine, only this. Nothing was decoded from what the source read.
    public var endedWithoutData: Bool {
        guard let error = parsedError, error.domain == gst_stream_error_quark(),
              error.code == Int32(GST_STREAM_ERROR_FAILED.rawValue), case .error(_, let debug) = view else { return false }
        return debug?.contains("all streams without buffers") ?? false
    }

    /// The GError's domain and code of an error, warning or info message.
    private var parsedError: (domain: GQuark, code: Int32)? {
        var error: UnsafeMutablePointer<GError>?
        switch pointer.pointee.type {
        case GST_MESSAGE_ERROR: gst_message_parse_error(pointer, &error, nil)
        case GST_MESSAGE_WARNING: gst_message_parse_warning(pointer, &error, nil)
        case GST_MESSAGE_INFO: gst_message_parse_info(pointer, &error, nil)
        default: return nil
        }
        guard let error else { return nil }
        defer { g_error_free(error) }
        return (error.pointee.domain, error.pointee.code)
    }

    /// Whether the source has no parent (the pipeline itself).
    private var sourceIsTopLevel: Bool {
        guard let source = pointer.pointee.src else { return false }
        // gst_object_get_parent returns a reference of ours to give back.
        guard let parent = gst_object_get_parent(source) else { return true }
        parley_object_unref(parent)
        return false
    }
}

/// The messages applications act on.
public enum MessageView: Sendable {
    case eos
    case info(text: String, debug: String?)
    case warning(text: String, debug: String?)
    case error(text: String, debug: String?)
    /// An element message (`parley/transcript`, `parley/latency`, ...).
    case element(Structure)
    case stateChanged(from: ElementState, to: ElementState, isTopLevel: Bool)
    case other
}
