import CGStreamer
import GstBridge
import Synchronization

/// What gst-inspect-1.0 shows for a plugin (GST_PLUGIN_DEFINE's fields).
public struct PluginInfo: Sendable {
    public var name: String
    public var description: String
    public var version: String
    public var license: String
    public var source: String
    public var package: String
    public var origin: String
    public init(name: String, description: String, version: String, license: String, source: String,
                package: String, origin: String) {
        self.name = name
        self.description = description
        self.version = version
        self.license = license
        self.source = source
        self.package = package
        self.origin = origin
    }
}

/// GST_PLUGIN_DEFINE, in Swift: the descriptor a plugin's
/// `gst_plugin_NAME_get_desc` returns (as an opaque pointer), whose
/// plugin_init registers `elements`. One plugin per shared object.
public enum PluginDescriptor {
    private static let elements = Mutex<[any ElementImpl.Type]>([])

    /// Registers every type in `types` with `plugin` (nil: in-process, no plugin file).
    public static func register(_ types: [any ElementImpl.Type], plugin: OpaquePointer?) -> Bool {
        types.allSatisfy { registerElement($0, plugin: plugin) }
    }

    /// Builds the descriptor once; later calls return the same one.
    public static func make(_ info: PluginInfo, elements types: [any ElementImpl.Type]) -> UnsafeRawPointer {
        elements.withLock { $0 = types }
        return UnsafeRawPointer(descriptor(info))
    }

    private static let built = Mutex<UnsafePointer<GstPluginDesc>?>(nil)

    private static func descriptor(_ info: PluginInfo) -> UnsafePointer<GstPluginDesc> {
        built.withLock { built in
            if let built { return built }
            func keep(_ string: String) -> UnsafePointer<gchar> { UnsafePointer(strdup(string)!) }
            let desc = UnsafeMutablePointer<GstPluginDesc>.allocate(capacity: 1)
            desc.initialize(to: GstPluginDesc(
                major_version: gint(GST_VERSION_MAJOR), minor_version: gint(GST_VERSION_MINOR),
                name: keep(info.name), description: keep(info.description),
                plugin_init: { plugin in
                    PluginDescriptor.register(PluginDescriptor.elements.withLock { $0 }, plugin: plugin) ? 1 : 0
                },
                version: keep(info.version), license: keep(info.license),
                source: keep(info.source), package: keep(info.package),
                origin: keep(info.origin), release_datetime: nil,
                _gst_reserved: (nil, nil, nil, nil)))
            built = UnsafePointer(desc)
            return built!
        }
    }
}
