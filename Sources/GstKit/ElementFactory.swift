import CGStreamer
import GstBridge

/// The direction of a pad.
public enum PadDirection: Sendable {
    case sink, src

    var gstValue: GstPadDirection { self == .sink ? GST_PAD_SINK : GST_PAD_SRC }
}

/// A factory from GStreamer's registry: what an element is before one exists.
public final class ElementFactory: @unchecked Sendable {
    // @unchecked: factories are registry features, immutable once loaded.
    private let pointer: OpaquePointer

    /// The factory called `name`, if the registry has one.
    public init?(named name: String) {
        Gst.initialize()
        guard let factory = gst_element_factory_find(name) else { return nil }
        pointer = factory
    }

    deinit { parley_object_unref(UnsafeMutableRawPointer(pointer)) }

    /// Every element factory's name in the registry.
    public static var allNames: [String] {
        Gst.initialize()
        let list = gst_registry_get_feature_list(gst_registry_get(), gst_element_factory_get_type())
        defer { gst_plugin_feature_list_free(list) }
        var names: [String] = []
        var node = list
        while let current = node {
            names.append(String(cString: parley_object_name(current.pointee.data)))
            node = current.pointee.next
        }
        return names
    }

    public func metadata(_ key: String) -> String? {
        gst_element_factory_get_metadata(pointer, key).map { String(cString: $0) }
    }
    public var longName: String? { metadata(GST_ELEMENT_METADATA_LONGNAME) }
    public var klass: String? { metadata(GST_ELEMENT_METADATA_KLASS) }
    public var elementDescription: String? { metadata(GST_ELEMENT_METADATA_DESCRIPTION) }

    /// A new element of this factory (reference owned, not floating).
    /// A new element. Without `name` GStreamer numbers it (`vadsegmenter0`);
    /// an element made only to be looked at (its properties, its pads)
    /// should be named, so it does not use up a number the pipeline's
    /// elements would have had.
    public func makeElement(named name: String? = nil) -> Element? {
        guard let element = gst_element_factory_create(pointer, name) else { return nil }
        gst_object_ref_sink(UnsafeMutableRawPointer(element))
        return Element(taking: element)
    }

    /// The caps of the factory's pad templates in one direction.
    public func templateCaps(_ direction: PadDirection) -> [Caps] {
        var caps: [Caps] = []
        var node = gst_element_factory_get_static_pad_templates(pointer)
        while let current = node {
            let template = current.pointee.data.assumingMemoryBound(to: GstStaticPadTemplate.self)
            if template.pointee.direction == direction.gstValue, let templateCaps = gst_static_pad_template_get_caps(template) {
                caps.append(Caps(taking: templateCaps))
            }
            node = UnsafePointer(current.pointee.next)
        }
        return caps
    }

    /// Whether some src template of this factory can link to some sink
    /// template of `downstream` (through `filter`, if given).
    public func canLink(to downstream: ElementFactory, filter: Caps?) -> Bool {
        for source in templateCaps(.src) {
            for sink in downstream.templateCaps(.sink) {
                let both = source.intersect(sink)
                if let filter, both.canIntersect(filter) { return true }
                if filter == nil && !both.isEmpty { return true }
            }
        }
        return false
    }
}
