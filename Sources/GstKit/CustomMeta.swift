import CGStreamer
import Synchronization

/// A buffer meta whose fields travel as a `Structure`: GStreamer's custom
/// meta (`gst_meta_register_custom`, 1.20 and later), the way gst-plugins-rs
/// registers a `CustomMeta`. An element above GstKit declares one as a value
/// type and reads and writes it with `Buffer.customMeta` and
/// `Buffer.setCustomMeta`, never seeing a C type.
///
/// The meta is registered under `metaName` on first use, with no tags, so
/// GStreamer's own elements (audioconvert, audioresample, queue, tee) keep
/// it, and every transform (copy, slice, conversion) copies its fields to
/// the new buffer. Programs in C or Python find it with
/// `gst_buffer_get_custom_meta(buffer, metaName)` and read its structure.
public protocol CustomMeta: Sendable {
    /// The name it is registered and found under (also its structure's name).
    static var metaName: String { get }
    /// The value carried, read back from the fields `metaFields` wrote; nil
    /// when they do not make one (a meta written by something else).
    init?(metaFields: Structure)
    /// The fields that carry the value (the structure's name is not used).
    var metaFields: Structure { get }
}

/// The custom metas this process registered, by name.
private let registeredMetas = Mutex<[String: UnsafePointer<GstMetaInfo>]>([:])

/// Copies a custom meta's fields onto the transformed buffer, whatever the
/// transform: a copy, a slice and a format conversion all describe the same
/// content as far as these metas go.
private let copyCustomMeta: GstCustomMetaTransformFunction = { target, meta, _, _, _, _ in
    guard let target, let meta, let source = gst_custom_meta_get_structure(meta) else { return 0 }
    let name = String(cString: gst_structure_get_name(source))
    guard let copy = gst_buffer_add_custom_meta(target, name), let fields = gst_custom_meta_get_structure(copy) else {
        return 0
    }
    gst_structure_remove_all_fields(fields)
    Structure(borrowing: source).setFields(of: fields)
    return 1
}

private func registeredMeta(named name: String) -> UnsafePointer<GstMetaInfo> {
    registeredMetas.withLock { metas in
        if let info = metas[name] { return info }
        let info: UnsafePointer<GstMetaInfo>
        if let existing = gst_meta_get_info(name) {
            info = existing  // registered by another copy of GstKit in this process
        } else {
            var tags: [UnsafePointer<gchar>?] = [nil]
            info = tags.withUnsafeMutableBufferPointer { tags in
                gst_meta_register_custom(name, tags.baseAddress, copyCustomMeta, nil, nil)!
            }
        }
        metas[name] = info
        return info
    }
}

extension Buffer {
    /// The buffer's `M`, if it carries one.
    public func customMeta<M: CustomMeta>(_ type: M.Type = M.self) -> M? {
        _ = registeredMeta(named: M.metaName)
        guard let meta = gst_buffer_get_custom_meta(pointer, M.metaName),
              let structure = gst_custom_meta_get_structure(meta) else { return nil }
        return M(metaFields: Structure(borrowing: structure))
    }

    /// Adds `value` as the buffer's `M`, or replaces the one it has (the
    /// buffer must be writable).
    public func setCustomMeta<M: CustomMeta>(_ value: M) {
        _ = registeredMeta(named: M.metaName)
        let meta = gst_buffer_get_custom_meta(pointer, M.metaName) ?? gst_buffer_add_custom_meta(pointer, M.metaName)!
        let structure = gst_custom_meta_get_structure(meta)!
        gst_structure_remove_all_fields(structure)
        value.metaFields.setFields(of: structure)
    }
}
