import CGStreamer
import GstBridge

/// Reads any GObject property Parley can type, by name.
public func readProperty(_ object: UnsafeMutableRawPointer, _ name: String) -> PropertyValue? {
    let gobject = object.assumingMemoryBound(to: GObject.self)
    let klass = UnsafeMutableRawPointer(gobject.pointee.g_type_instance.g_class!).assumingMemoryBound(to: GObjectClass.self)
    guard let spec = g_object_class_find_property(klass, name) else { return nil }
    var value = GValue()
    g_value_init(&value, spec.pointee.value_type)
    defer { g_value_unset(&value) }
    g_object_get_property(gobject, name, &value)
    return GValueIO.read(&value)
}

/// The GParamSpec of a property, or nil.
public func findProperty(_ object: UnsafeMutableRawPointer, _ name: String) -> UnsafeMutablePointer<GParamSpec>? {
    let gobject = object.assumingMemoryBound(to: GObject.self)
    let klass = UnsafeMutableRawPointer(gobject.pointee.g_type_instance.g_class!).assumingMemoryBound(to: GObjectClass.self)
    return g_object_class_find_property(klass, name)
}
