import CGStreamer
import GstBridge

/// A property's value, typed the way GObject properties are.
public enum PropertyValue: Sendable, Equatable, CustomStringConvertible {
    case bool(Bool)
    case int(Int)
    case uint64(UInt64)
    case double(Double)
    case string(String?)
    /// An enum property's integer value.
    case enumeration(Int)
    /// A GstStructure: a read-only `stats` snapshot (as queue2's); nil is NULL.
    indirect case structure(Structure?)

    public var bool: Bool { if case .bool(let v) = self { v } else { false } }
    public var int: Int {
        switch self {
        case .int(let v), .enumeration(let v): v
        case .uint64(let v): Int(clamping: v)
        case .double(let v): Int(v)
        case .bool(let v): v ? 1 : 0
        case .string, .structure: 0
        }
    }
    public var uint64: UInt64 { if case .uint64(let v) = self { v } else { UInt64(clamping: int) } }
    public var double: Double {
        switch self {
        case .double(let v): v
        case .uint64(let v): Double(v)
        default: Double(int)
        }
    }
    public var string: String? { if case .string(let v) = self { v } else { nil } }
    public var structure: Structure? { if case .structure(let v) = self { v } else { nil } }

    public var description: String {
        switch self {
        case .bool(let v): "\(v)"
        case .int(let v), .enumeration(let v): "\(v)"
        case .uint64(let v): "\(v)"
        case .double(let v): "\(v)"
        case .string(let v): v.map { "\"\($0)\"" } ?? "NULL"
        case .structure(let v): v.map(\.description) ?? "NULL"
        }
    }
}

/// Reads and writes GValues for the types Parley uses.
enum GValueIO {
    static func read(_ value: UnsafePointer<GValue>) -> PropertyValue? {
        let type = parley_value_type(value)
        switch type {
        case parley_type_boolean(): return .bool(g_value_get_boolean(value) != 0)
        case parley_type_int(): return .int(Int(g_value_get_int(value)))
        case parley_type_uint(): return .int(Int(g_value_get_uint(value)))
        case parley_type_int64(): return .int(Int(g_value_get_int64(value)))
        case parley_type_uint64(): return .uint64(UInt64(g_value_get_uint64(value)))
        case parley_type_double(): return .double(g_value_get_double(value))
        case parley_type_string(): return .string(g_value_get_string(value).map { String(cString: $0) })
        case gst_structure_get_type():
            return .structure(g_value_get_boxed(value).map { Structure(borrowing: $0.assumingMemoryBound(to: GstStructure.self)) })
        default:
            if parley_value_holds_enum(value) != 0 { return .enumeration(Int(g_value_get_enum(value))) }
            return nil
        }
    }

    static func write(_ property: PropertyValue, to value: UnsafeMutablePointer<GValue>) {
        let type = parley_value_type(value)
        switch property {
        case .bool(let v): g_value_set_boolean(value, v ? 1 : 0)
        case .int(let v), .enumeration(let v):
            switch type {
            case parley_type_uint(): g_value_set_uint(value, guint(clamping: v))
            case parley_type_int64(): g_value_set_int64(value, gint64(v))
            case parley_type_uint64(): g_value_set_uint64(value, guint64(clamping: v))
            default:
                if parley_value_holds_enum(value) != 0 { g_value_set_enum(value, gint(v)) }
                else { g_value_set_int(value, gint(clamping: v)) }
            }
        case .uint64(let v): g_value_set_uint64(value, guint64(v))
        case .double(let v): g_value_set_double(value, v)
        case .structure(let v): g_value_take_boxed(value, v?.makeGstStructure())
        case .string(let v):
            // A C string ends at its first NUL: one inside a Swift string (a
            // provider's text) would silently cut the rest, so it becomes U+FFFD.
            if let v {
                let whole = v.utf8.contains(0) ? String(String.UnicodeScalarView(v.unicodeScalars.map { $0.value == 0 ? "\u{FFFD}" : $0 })) : v
                whole.withCString { g_value_set_string(value, $0) }
            } else {
                g_value_set_string(value, nil)
            }
        }
    }
}
