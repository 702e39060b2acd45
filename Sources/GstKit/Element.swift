import CGStreamer
import GstBridge

/// An owned reference to any GStreamer element (or bin, or pipeline), with
/// typed properties: what applications hold, never a C pointer.
public final class Element: @unchecked Sendable {
    // @unchecked: GstElement is thread-safe and reference counted.
    package let pointer: UnsafeMutablePointer<GstElement>

    /// Takes ownership of one (non-floating) reference.
    package init(taking pointer: UnsafeMutablePointer<GstElement>) { self.pointer = pointer }
    deinit { parley_object_unref(pointer) }

    private var object: UnsafeMutablePointer<GObject> { UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: GObject.self) }

    public var name: String { String(cString: parley_object_name(pointer)) }

    /// GObject's reference count: for tests that prove nothing keeps an
    /// element alive (a leaked reference shows as a count above one).
    public var referenceCount: Int { Int(object.pointee.ref_count) }

    /// The element of this name inside a bin (gst-launch `name=` or the default name).
    public func child(named name: String) -> Element? {
        gst_bin_get_by_name(UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: GstBin.self), name)
            .map { Element(taking: $0) }
    }

    /// Every element inside a bin, at any depth, made by the factory `factoryName`.
    public func descendants(factory factoryName: String) -> [Element] {
        Self.elements(of: gst_bin_iterate_all_by_element_factory_name(bin, factoryName))
    }

    /// Every element inside a bin, at any depth (inner bins and their elements).
    public var descendants: [Element] { Self.elements(of: gst_bin_iterate_recurse(bin)) }

    /// The name of the factory that made the element ("filesrc"); nil for
    /// one made without a factory.
    public var factoryName: String? {
        gst_element_get_factory(pointer).map { String(cString: parley_object_name(UnsafeMutableRawPointer($0))) }
    }

    private var bin: UnsafeMutablePointer<GstBin> { UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: GstBin.self) }

    private static func elements(of iterator: UnsafeMutablePointer<GstIterator>?) -> [Element] {
        guard let iterator else { return [] }
        defer { gst_iterator_free(iterator) }
        var found: [Element] = []
        var value = GValue()
        while gst_iterator_next(iterator, &value) == GST_ITERATOR_OK {
            if let object = g_value_dup_object(&value) {
                found.append(Element(taking: object.assumingMemoryBound(to: GstElement.self)))
            }
            g_value_reset(&value)
        }
        g_value_unset(&value)
        return found
    }

    /// The bin holding it (nil for a pipeline or an element in none).
    public var parent: Element? {
        gst_object_get_parent(UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: GstObject.self))
            .map { Element(taking: UnsafeMutableRawPointer($0).assumingMemoryBound(to: GstElement.self)) }
    }

    /// The elements its sink pads are linked to, upstream, in pad order: for
    /// a link into a bin, the bin (the peer of a ghost pad's outside).
    public var upstreamNeighbours: [Element] {
        guard let iterator = gst_element_iterate_sink_pads(pointer) else { return [] }
        defer { gst_iterator_free(iterator) }
        var found: [Element] = []
        var value = GValue()
        while gst_iterator_next(iterator, &value) == GST_ITERATOR_OK {
            if let pad = g_value_get_object(&value)?.assumingMemoryBound(to: GstPad.self),
               let peer = gst_pad_get_peer(pad) {
                if let element = gst_pad_get_parent_element(peer) { found.append(Element(taking: element)) }
                parley_object_unref(peer)
            }
            g_value_reset(&value)
        }
        g_value_unset(&value)
        return found
    }

    // MARK: Properties

    /// Reads a property, typed.
    public func property(_ name: String) -> PropertyValue? { readProperty(UnsafeMutableRawPointer(pointer), name) }

    /// A property in its gst-launch text form ("500", "ptt", "true"): an enum as its nick.
    public func propertyText(_ name: String) -> String? {
        guard let spec = findProperty(UnsafeMutableRawPointer(pointer), name) else { return nil }
        var gvalue = GValue()
        g_value_init(&gvalue, spec.pointee.value_type)
        defer { g_value_unset(&gvalue) }
        g_object_get_property(object, name, &gvalue)
        return takeGString(gst_value_serialize(&gvalue))
    }

    /// Sets a property from its gst-launch text form ("500", "ptt", "true").
    public func setProperty(_ name: String, fromString value: String) throws(PropertyValueProblem) {
        try checkProperty(name, value: value)
        gst_util_set_object_arg(object, name, value)
    }

    /// Sets a property from a typed value.
    public func setProperty(_ name: String, _ value: PropertyValue) throws(PropertyValueProblem) {
        guard let spec = findProperty(UnsafeMutableRawPointer(pointer), name) else { throw .noSuchProperty }
        var gvalue = GValue()
        g_value_init(&gvalue, spec.pointee.value_type)
        defer { g_value_unset(&gvalue) }
        GValueIO.write(value, to: &gvalue)
        if g_param_value_validate(spec, &gvalue) != 0 { throw .outOfRange }
        g_object_set_property(object, name, &gvalue)
    }

    /// Whether `value` (gst-launch text) parses and is in range for `name`.
    public func checkProperty(_ name: String, value: String) throws(PropertyValueProblem) {
        guard let spec = findProperty(UnsafeMutableRawPointer(pointer), name) else { throw .noSuchProperty }
        var gvalue = GValue()
        g_value_init(&gvalue, spec.pointee.value_type)
        defer { g_value_unset(&gvalue) }
        guard gst_value_deserialize_with_pspec(&gvalue, value, spec) != 0 else {
            throw .notParseable(typeName: String(cString: g_type_name(spec.pointee.value_type)))
        }
        if g_param_value_validate(spec, &gvalue) != 0 { throw .outOfRange }
    }

    public func paramInfo(_ name: String) -> ParamInfo? {
        findProperty(UnsafeMutableRawPointer(pointer), name).map(ParamInfo.init)
    }

    /// Every property, the inherited ones (name, parent) included.
    public var propertyNames: [String] { propertySpecs(ownOnly: false).map { String(cString: $0.pointee.name) } }

    /// The element's own properties, not GstObject's or a base class's.
    public var ownProperties: [ParamInfo] { propertySpecs(ownOnly: true).map(ParamInfo.init) }

    /// The class's specs (owned by the class, valid while it is loaded).
    private func propertySpecs(ownOnly: Bool) -> [UnsafeMutablePointer<GParamSpec>] {
        let klass = UnsafeMutableRawPointer(object.pointee.g_type_instance.g_class!).assumingMemoryBound(to: GObjectClass.self)
        var count: guint = 0
        guard let specs = g_object_class_list_properties(klass, &count) else { return [] }
        defer { g_free(specs) }
        let ownType = object.pointee.g_type_instance.g_class.pointee.g_type
        return (0..<Int(count)).compactMap { index in
            let spec = specs[index]!
            return ownOnly && spec.pointee.owner_type != ownType ? nil : spec
        }
    }

    // MARK: State, events, position

    /// Asks for a state; false if the change failed at once.
    @discardableResult
    public func setState(_ state: ElementState) -> Bool {
        gst_element_set_state(pointer, state.gstValue) != GST_STATE_CHANGE_FAILURE
    }

    /// The state once a change in progress has settled, waiting at most
    /// `timeoutNs`; nil while it is still changing then (a sink waiting to
    /// preroll), or when the change failed.
    public func settledState(timeoutNs: UInt64) -> ElementState? {
        var current = GST_STATE_VOID_PENDING
        let result = gst_element_get_state(pointer, &current, nil, GstClockTime(timeoutNs))
        guard result == GST_STATE_CHANGE_SUCCESS || result == GST_STATE_CHANGE_NO_PREROLL else { return nil }
        return ElementState(current)
    }

    /// The element's answer to a LATENCY query (a source's says whether it
    /// is live); nil when it does not answer.
    public var latency: Latency? {
        Latency.ask { gst_element_query(pointer, $0) }
    }

    /// Sends EOS into the element (a pipeline hands it to its sources).
    public func sendEOS() { gst_element_send_event(pointer, gst_event_new_eos()) }

    /// Position in stream time, ns.
    public var position: UInt64? {
        var position: gint64 = 0
        guard gst_element_query_position(pointer, GST_FORMAT_TIME, &position) != 0, position >= 0 else { return nil }
        return UInt64(position)
    }

    /// Running time now by the pipeline's clock, ns (nil unless PLAYING): the
    /// time a live source is stamping on what it captures at this moment.
    public var runningTimeNow: UInt64? { GstKit.runningTimeNow(of: pointer) }

    /// Duration in stream time, ns (nil when unknown: a live source).
    public var duration: UInt64? {
        var duration: gint64 = 0
        guard gst_element_query_duration(pointer, GST_FORMAT_TIME, &duration) != 0, duration > 0 else { return nil }
        return UInt64(duration)
    }

    /// The pipeline's bus (nil for an element outside a pipeline).
    public var bus: Bus? { gst_element_get_bus(pointer).map { Bus(taking: $0) } }
}

/// Why a gst-launch description did not parse.
public struct LaunchError: Error, Sendable, CustomStringConvertible {
    public var description: String
}

extension Element {
    /// Builds a pipeline from a gst-launch-1.0 description.
    public static func launch(_ description: String) throws(LaunchError) -> Element {
        Gst.initialize()
        var error: UnsafeMutablePointer<GError>?
        let parsed = gst_parse_launch_full(description, nil, GST_PARSE_FLAG_FATAL_ERRORS, &error)
        if let error {
            let message = String(cString: error.pointee.message)
            g_error_free(error)
            if let parsed { parley_object_unref(parsed) }
            throw LaunchError(description: message)
        }
        guard let parsed else { throw LaunchError(description: "empty pipeline") }
        gst_object_ref_sink(UnsafeMutableRawPointer(parsed))  // (transfer floating): own it
        return Element(taking: parsed)
    }
}
