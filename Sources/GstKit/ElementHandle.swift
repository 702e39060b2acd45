import CGStreamer
import GstBridge

/// Where a GST_ELEMENT_ERROR belongs, as gst's error domains.
public enum ErrorDomain: Sendable {
    case core, library, resource, stream

    var quark: GQuark {
        switch self {
        case .core: gst_core_error_quark()
        case .library: gst_library_error_quark()
        case .resource: gst_resource_error_quark()
        case .stream: gst_stream_error_quark()
        }
    }
}

/// An error or warning for the bus: a sentence a user can act on, plus details
/// for developers. Never put secrets in either.
public struct ElementMessageText: Error, Sendable, CustomStringConvertible {
    public var domain: ErrorDomain
    public var code: Int32
    public var text: String
    public var debug: String?

    public init(_ text: String, debug: String? = nil, domain: ErrorDomain = .library, code: Int32 = 1) {
        self.text = text
        self.debug = debug
        self.domain = domain
        self.code = code
    }

    /// GST_RESOURCE_ERROR_SETTINGS: a property the user set is wrong.
    public static func settings(_ text: String, debug: String? = nil) -> ElementMessageText {
        ElementMessageText(text, debug: debug, domain: .resource, code: Int32(GST_RESOURCE_ERROR_SETTINGS.rawValue))
    }

    /// For an INFO message saying how the element set itself up from its
    /// properties (which provider, which model it loaded): the resource
    /// domain's settings code, which is what it is about; not the library
    /// domain's "failed", which an application filtering INFO by domain
    /// would take for a library fault.
    public static func notice(_ text: String) -> ElementMessageText {
        settings(text)
    }

    /// GST_RESOURCE_ERROR_OPEN_READ: a file the element reads cannot be opened or read.
    public static func openRead(_ text: String, debug: String? = nil) -> ElementMessageText {
        ElementMessageText(text, debug: debug, domain: .resource, code: Int32(GST_RESOURCE_ERROR_OPEN_READ.rawValue))
    }

    public static func openWrite(_ text: String, debug: String? = nil) -> ElementMessageText {
        ElementMessageText(text, debug: debug, domain: .resource, code: Int32(GST_RESOURCE_ERROR_OPEN_WRITE.rawValue))
    }

    /// GST_RESOURCE_ERROR_NOT_AUTHORIZED: a key or credential was refused.
    public static func notAuthorized(_ text: String, debug: String? = nil) -> ElementMessageText {
        ElementMessageText(text, debug: debug, domain: .resource, code: Int32(GST_RESOURCE_ERROR_NOT_AUTHORIZED.rawValue))
    }

    public static func stream(_ text: String, debug: String? = nil) -> ElementMessageText {
        ElementMessageText(text, debug: debug, domain: .stream, code: Int32(GST_STREAM_ERROR_FAILED.rawValue))
    }

    public var description: String { text }
}

/// The GstElement a Swift element implements. Unowned: the GstElement owns
/// the Swift object, so the handle is valid for the Swift object's lifetime.
public struct ElementHandle: @unchecked Sendable {
    package let pointer: UnsafeMutablePointer<GstElement>
    package init(_ pointer: UnsafeMutablePointer<GstElement>) { self.pointer = pointer }

    var objectPointer: UnsafeMutablePointer<GstObject> {
        UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: GstObject.self)
    }

    public var name: String { String(cString: parley_object_name(pointer)) }
    public var sinkPad: Pad? { parley_element_sink_pad(pointer).map(Pad.init) }
    public var srcPad: Pad? { parley_element_src_pad(pointer).map(Pad.init) }

    /// GST_ELEMENT_ERROR: posts an error message; the application stops the pipeline.
    public func postError(_ error: ElementMessageText, file: String = #fileID, function: String = #function, line: Int = #line) {
        post(GST_MESSAGE_ERROR, error, file: file, function: function, line: line)
    }

    /// GST_ELEMENT_WARNING.
    public func postWarning(_ warning: ElementMessageText, file: String = #fileID, function: String = #function, line: Int = #line) {
        post(GST_MESSAGE_WARNING, warning, file: file, function: function, line: line)
    }

    /// GST_ELEMENT_INFO.
    public func postInfo(_ info: ElementMessageText, file: String = #fileID, function: String = #function, line: Int = #line) {
        post(GST_MESSAGE_INFO, info, file: file, function: function, line: line)
    }

    private func post(_ type: GstMessageType, _ message: ElementMessageText, file: String, function: String, line: Int) {
        // gst-launch-1.0 prints only the debug string of an INFO message,
        // so an info without details carries its text there too.
        let debug = message.debug ?? (type == GST_MESSAGE_INFO ? message.text : nil)
        // gst takes ownership of both strings, which must come from g_malloc.
        gst_element_message_full(pointer, type, message.domain.quark, gint(message.code),
                                 g_strdup(message.text), debug.map { g_strdup($0) } ?? nil,
                                 file, function, gint(line))
    }

    /// Marks the element as a sink (GST_ELEMENT_FLAG_SINK), so the pipeline
    /// waits for its EOS: for elements that end a pipeline with their src
    /// pad unlinked.
    public func setSinkFlag(_ isSink: Bool) { parley_element_set_sink_flag(pointer, isSink ? 1 : 0) }

    /// The element's running time now by its pipeline's clock (ns); see `runningTimeNow(of:)`.
    public var runningTimeNow: UInt64? { GstKit.runningTimeNow(of: pointer) }

    /// Posts EOS on the bus, as a sink does when the stream has ended.
    public func postEOS() {
        gst_element_post_message(pointer, gst_message_new_eos(objectPointer))
    }

    /// Posts an element message (e.g. `parley/latency`) on the bus.
    @discardableResult
    public func postElementMessage(_ structure: Structure) -> Bool {
        let message = gst_message_new_element(objectPointer, structure.makeGstStructure())
        return gst_element_post_message(pointer, message) != 0
    }
}

/// An element's running time now by its pipeline's clock (clock time minus
/// base time, ns): the timeline a live source stamps its buffers on once
/// the segment is applied. Nil unless PLAYING: before the clock runs there
/// is no such time, and while PAUSED the base time is stale.
func runningTimeNow(of element: UnsafeMutablePointer<GstElement>) -> UInt64? {
    // GST_STATE_TARGET(): gst reads it without the object lock too. The target,
    // not the current state: a live pipeline is PLAYING by its clock (its
    // elements are) while its sink still waits for a first buffer.
    guard element.pointee.target_state == GST_STATE_PLAYING, let clock = gst_element_get_clock(element) else { return nil }
    defer { parley_object_unref(clock) }
    let now = gst_clock_get_time(clock), base = gst_element_get_base_time(element)
    guard now != Gst.clockTimeNone, base != Gst.clockTimeNone, now >= base else { return nil }
    return UInt64(now - base)
}
