import CGStreamer
import GstBridge

/// Owns one reference to a GstBuffer.
public final class Buffer: @unchecked Sendable {
    // @unchecked: a GstBuffer is refcounted and thread-safe to pass between
    // threads; writes require `makeWritable()` first, as in C.
    public private(set) var pointer: UnsafeMutablePointer<GstBuffer>

    /// Takes ownership of a reference.
    public init(taking pointer: UnsafeMutablePointer<GstBuffer>) { self.pointer = pointer }

    /// A new buffer holding a copy of `bytes`.
    public convenience init(bytes: UnsafeRawBufferPointer) {
        let buffer = gst_buffer_new_allocate(nil, gsize(bytes.count), nil)!
        if bytes.count > 0 { gst_buffer_fill(buffer, 0, bytes.baseAddress, gsize(bytes.count)) }
        self.init(taking: buffer)
    }

    public convenience init(string: String) {
        self.init(samples: Array(string.utf8))
    }

    public convenience init<T>(samples: [T]) {
        let buffer = samples.withUnsafeBytes { Buffer(bytes: $0) }
        self.init(taking: buffer.transferOwnership())
    }

    /// One buffer holding `parts` back to back, copied once. Inlinable, so
    /// it is compiled (and optimized) with the element that calls it on its
    /// hot path.
    @inlinable
    public convenience init(concatenating parts: [ArraySlice<Int16>]) {
        var bytes = 0
        for index in parts.indices { bytes += parts[index].count * MemoryLayout<Int16>.size }
        self.init(allocating: bytes)
        withMutableBytes { storage in
            var offset = 0
            for index in parts.indices {
                parts[index].withUnsafeBytes { source in
                    if source.count > 0 { (storage.baseAddress! + offset).copyMemory(from: source.baseAddress!, byteCount: source.count) }
                    offset += source.count
                }
            }
        }
    }

    /// A new buffer of `count` uninitialized bytes.
    public convenience init(allocating count: Int) {
        self.init(taking: gst_buffer_new_allocate(nil, gsize(count), nil)!)
    }

    deinit { gst_mini_object_unref(UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: GstMiniObject.self)) }

    /// Gives the reference away (to gst_pad_push, which takes it).
    public func transferOwnership() -> UnsafeMutablePointer<GstBuffer> {
        gst_mini_object_ref(UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: GstMiniObject.self))
        return pointer
    }

    /// Makes the buffer writable, copying it if it is shared.
    public func makeWritable() { pointer = parley_buffer_make_writable(pointer) }

    public var pts: UInt64 {
        get { UInt64(pointer.pointee.pts) }
        set { pointer.pointee.pts = GstClockTime(newValue) }
    }
    public var dts: UInt64 {
        get { UInt64(pointer.pointee.dts) }
        set { pointer.pointee.dts = GstClockTime(newValue) }
    }
    public var duration: UInt64 {
        get { UInt64(pointer.pointee.duration) }
        set { pointer.pointee.duration = GstClockTime(newValue) }
    }
    public var offset: UInt64 {
        get { UInt64(pointer.pointee.offset) }
        set { pointer.pointee.offset = guint64(newValue) }
    }
    public var offsetEnd: UInt64 {
        get { UInt64(pointer.pointee.offset_end) }
        set { pointer.pointee.offset_end = guint64(newValue) }
    }
    public var size: Int { Int(gst_buffer_get_size(pointer)) }

    /// "pts 1.230 s, 20.0 ms, 640 bytes": what a per-buffer log line says.
    public var summary: String {
        let none = UInt64.max
        let time = pts == none ? "pts none" : "pts \(Self.milliseconds(pts) / 1000).\(String(1000 + Self.milliseconds(pts) % 1000).dropFirst()) s"
        let length = duration == none ? "" : ", \(Self.milliseconds(duration)) ms"
        return "\(time)\(length), \(size) bytes"
    }

    private static func milliseconds(_ nanoseconds: UInt64) -> UInt64 { nanoseconds / 1_000_000 }

    /// Maps the buffer for reading.
    public func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        var info = GstMapInfo()
        guard gst_buffer_map(pointer, &info, GST_MAP_READ) != 0 else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        defer { gst_buffer_unmap(pointer, &info) }
        return try body(UnsafeRawBufferPointer(start: info.data, count: Int(info.size)))
    }

    /// Maps the buffer for writing (call `makeWritable()` first).
    public func withMutableBytes<R>(_ body: (UnsafeMutableRawBufferPointer) throws -> R) rethrows -> R {
        var info = GstMapInfo()
        guard gst_buffer_map(pointer, &info, GST_MAP_WRITE) != 0 else { return try body(UnsafeMutableRawBufferPointer(start: nil, count: 0)) }
        defer { gst_buffer_unmap(pointer, &info) }
        return try body(UnsafeMutableRawBufferPointer(start: info.data, count: Int(info.size)))
    }

    /// The contents as UTF-8 text (for text/x-raw buffers).
    public var text: String { withBytes { String(decoding: $0, as: UTF8.self) } }

    /// The contents as signed 16-bit samples (for S16LE audio).
    public var int16Samples: [Int16] {
        withBytes { bytes in
            let count = bytes.count / 2
            return [Int16](unsafeUninitializedCapacity: count) { storage, initialized in
                if count > 0 { memcpy(storage.baseAddress!, bytes.baseAddress!, count * 2) }
                initialized = count
            }
        }
    }
}
