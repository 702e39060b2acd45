// The parley plugin: the list of elements, and the entry point GStreamer's
// loader looks up in libgstparley.so. Nothing else belongs here.
import GstKit
import ParleyCore
import CloudSTT
import CloudTTS
import EspeakSrc
import EspeakTTS
import LineSplitter
import RecordingSrc
import SessionRecorder
import StreamTranslator
import TranscriptSink
import VADSegmenter

/// Every element the plugin provides, in the order gst-inspect lists them.
public let parleyElements: [any ElementImpl.Type] = [
    VADSegmenterElement.self,
    CloudSTTElement.self,
    StreamTranslatorElement.self,
    CloudTTSElement.self,
    EspeakTTSElement.self,
    EspeakSrcElement.self,
    TranscriptSinkElement.self,
    SessionRecorderElement.self,
    LineSplitterElement.self,
    RecordingSrcElement.self,
]

/// Registers every Parley element with `plugin` (nil: in-process).
public func registerParleyElements(_ plugin: OpaquePointer?) -> Bool {
    PluginDescriptor.register(parleyElements, plugin: plugin)
}

public let parleyPluginInfo = PluginInfo(
    name: "parley", description: "Speech pipelines: VAD, speech-to-text, translation, text-to-speech, transcripts",
    version: Release.version, license: "MIT/X11", source: "parley", package: "Parley", origin: Release.homepage)

/// GST_PLUGIN_DEFINE: the loader looks up gst_plugin_parley_get_desc
/// (the name must match libgstparley.so) and reads the GstPluginDesc it returns.
@_cdecl("gst_plugin_parley_get_desc")
public func gst_plugin_parley_get_desc() -> UnsafeRawPointer {
    PluginDescriptor.make(parleyPluginInfo, elements: parleyElements)
}
