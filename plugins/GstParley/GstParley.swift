// The parley plugin: the list of elements, and the entry point GStreamer's
// loader looks up in libgstparley.so. Nothing else belongs here.
import CGStreamer
import GstKit
import CloudSTT
import EspeakSrc
import EspeakTTS
import TranscriptSink
import VADSegmenter

/// Every element the plugin provides, in the order gst-inspect lists them.
public let parleyElements: [any Element.Type] = [
    VADSegmenterElement.self,
    CloudSTTElement.self,
    EspeakTTSElement.self,
    EspeakSrcElement.self,
    TranscriptSinkElement.self,
]

/// Registers every Parley element with `plugin`.
public func registerParleyElements(_ plugin: OpaquePointer?) -> Bool {
    parleyElements.allSatisfy { registerOne($0, plugin) }
}

private func registerOne(_ type: any Element.Type, _ plugin: OpaquePointer?) -> Bool {
    registerElement(type, plugin: plugin)
}

public enum ParleyPluginInfo {
    public static let name = "parley"
    public static let description = "Speech pipelines: VAD, speech-to-text, translation, text-to-speech, transcripts"
    public static let version = "0.1.0"
    public static let license = "MIT/X11"
    public static let source = "parley"
    public static let package = "Parley"
    public static let origin = "https://parley.invalid"
}

/// GST_PLUGIN_DEFINE, in Swift: the loader calls gst_plugin_parley_get_desc.
@_cdecl("gst_plugin_parley_get_desc")
public func gst_plugin_parley_get_desc() -> UnsafePointer<GstPluginDesc> {
    pluginDescription
}

private nonisolated(unsafe) let pluginDescription: UnsafePointer<GstPluginDesc> = {  // immutable once built
    func keep(_ string: String) -> UnsafePointer<gchar> { UnsafePointer(strdup(string)!) }
    let desc = UnsafeMutablePointer<GstPluginDesc>.allocate(capacity: 1)
    desc.initialize(to: GstPluginDesc(
        major_version: gint(GST_VERSION_MAJOR), minor_version: gint(GST_VERSION_MINOR),
        name: keep(ParleyPluginInfo.name), description: keep(ParleyPluginInfo.description),
        plugin_init: { plugin in registerParleyElements(plugin) ? 1 : 0 },
        version: keep(ParleyPluginInfo.version), license: keep(ParleyPluginInfo.license),
        source: keep(ParleyPluginInfo.source), package: keep(ParleyPluginInfo.package),
        origin: keep(ParleyPluginInfo.origin), release_datetime: nil,
        _gst_reserved: (nil, nil, nil, nil)))
    return UnsafePointer(desc)
}()
