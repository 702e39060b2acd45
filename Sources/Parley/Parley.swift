

import GstKit
import GstParley
import Synchronization

/// Entry point of the embedding API.
public enum Parley {
    /// Initializes GStreamer and registers every Parley element in this
    /// process (no libgstparley.so needed). Idempotent.
    public static func initialize() {
        _ = registered
    }

    private static let registered: Bool = {
        Gst.initialize()
        // Registered without a plugin: these features replace any of the same
        // name that a libgstparley.so on GST_PLUGIN_PATH put in the registry,
        // so the .so is never loaded next to the in-process copy.
        return registerParleyElements(nil)
    }()

    /// Registers an application's own elements in this process.
    @discardableResult
    public static func register(_ types: [any ElementImpl.Type]) -> Bool {
        initialize()
        return types.allSatisfy { registerOne($0) }
    }

    private static func registerOne(_ type: any ElementImpl.Type) -> Bool {
        registerElement(type, plugin: nil)
    }

    /// Names of the element factories Parley provides.
    public static var elementNames: [String] { parleyElements.map { $0.metadata.factoryName } }

    /// Property `name` as Parley's element `factory` declares it (nil for
    /// other elements): its `check` is what the validator asks beyond GObject.
    static func propertySpec(factory: String, name: String) -> PropertySpec? {
        elementType(factory: factory)?.properties.first { $0.name == name }
    }

    /// Parley's element type made by `factory` (nil for other elements).
    static func elementType(factory: String) -> (any ElementImpl.Type)? {
        parleyElements.first { $0.metadata.factoryName == factory }
    }

    /// What Parley's element `factory` finds wrong with its settings taken
    /// together (nil for other elements, or when nothing is): `given` are
    /// the properties a pipeline sets, the others at their defaults.
    static func settingsProblem(factory: String, given: [String: String]) -> String? {
        guard let type = elementType(factory: factory) else { return nil }
        var values: [String: String] = [:]
        for spec in type.properties { if case .string(let value) = spec.defaultValue { values[spec.name] = value } }
        return type.settingsProblem(values.merging(given) { _, written in written })
    }
}
