import CGStreamer
import GstBridge
import GstKit

/// An element's documentation as `parley inspect` prints it: what
/// gst-inspect-1.0 shows, shortened to what a pipeline author needs.
public enum ElementDocs {
    /// The page for factory `name`, or nil if no such element exists.
    public static func page(for name: String) -> String? {
        Parley.initialize()
        guard let factory = gst_element_factory_find(name) else { return nil }
        defer { gst_object_unref(UnsafeMutableRawPointer(factory)) }
        guard let element = gst_element_factory_create(factory, nil) else { return nil }
        gst_object_ref_sink(UnsafeMutableRawPointer(element))
        defer { gst_object_unref(UnsafeMutableRawPointer(element)) }

        func metadata(_ key: String) -> String? {
            gst_element_factory_get_metadata(factory, key).map { String(cString: $0) }
        }
        var lines: [String] = []
        lines.append("\(name): \(metadata(GST_ELEMENT_METADATA_LONGNAME) ?? name)")
        lines.append("  Klass        \(metadata(GST_ELEMENT_METADATA_KLASS) ?? "")")
        lines.append("  Description  \(metadata(GST_ELEMENT_METADATA_DESCRIPTION) ?? "")")
        if let example = metadata("example") { lines.append("  Example      \(example)") }
        lines.append("")
        lines.append("Pads:")
        for direction in [GST_PAD_SINK, GST_PAD_SRC] {
            for caps in PipelineValidator.templateCaps(factory, direction) {
                lines.append("  \(direction == GST_PAD_SINK ? "sink" : "src "): \(caps)")
            }
        }
        lines.append("")
        lines.append("Properties:")
        let object = UnsafeMutableRawPointer(element).assumingMemoryBound(to: GObject.self)
        let klass = UnsafeMutableRawPointer(object.pointee.g_type_instance.g_class!).assumingMemoryBound(to: GObjectClass.self)
        var count: guint = 0
        if let specs = g_object_class_list_properties(klass, &count) {
            defer { g_free(specs) }
            for index in 0..<Int(count) {
                let spec = specs[index]!
                // Only the element's own properties, not GstObject's or the base class's.
                guard spec.pointee.owner_type == object.pointee.g_type_instance.g_class.pointee.g_type else { continue }
                lines.append(contentsOf: describe(spec))
            }
        }
        return lines.joined(separator: "\n")
    }

    private static func describe(_ spec: UnsafeMutablePointer<GParamSpec>) -> [String] {
        let name = String(cString: spec.pointee.name)
        let blurb = g_param_spec_get_blurb(spec).map { String(cString: $0) } ?? ""
        var defaultValue = ""
        if let value = g_param_spec_get_default_value(spec) {
            defaultValue = takeGString(gst_value_serialize(value)) ?? "NULL"
        }
        let typeName = String(cString: g_type_name(spec.pointee.value_type))
        let flags = UInt32(bitPattern: Int32(spec.pointee.flags.rawValue))
        let writable = flags & UInt32(G_PARAM_WRITABLE.rawValue) != 0
        var access = writable ? "read-write" : "read-only"
        if flags & UInt32(parley_param_flag_mutable_playing()) != 0 { access += ", changeable in PLAYING" }
        return [
            "  \(name.padding(toLength: 22, withPad: " ", startingAt: 0))\(blurb)",
            "  \(String(repeating: " ", count: 22))\(typeName), default \(defaultValue)\(allowedRange(spec)); \(access)",
        ]
    }

    private static func allowedRange(_ spec: UnsafeMutablePointer<GParamSpec>) -> String {
        switch ParamSpecRange(spec) {
        case .numeric(let minimum, let maximum): ", range \(minimum) to \(maximum)"
        case .oneOf(let nicks): ", one of \(nicks.joined(separator: " | "))"
        case nil: ""
        }
    }
}
