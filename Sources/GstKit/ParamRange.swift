import CGStreamer
import GstBridge

/// What values a GObject property accepts, as far as its GParamSpec says.
public enum ParamRange: Sendable, Equatable {
    case numeric(minimum: String, maximum: String)
    /// An enum's nicks, as gst-launch accepts them.
    case oneOf([String])

    init?(_ spec: UnsafeMutablePointer<GParamSpec>) {
        let raw = UnsafeMutableRawPointer(spec)
        func numeric<T>(_ type: T.Type, _ bounds: (T) -> (Any, Any)) -> ParamRange {
            let (low, high) = bounds(raw.assumingMemoryBound(to: T.self).pointee)
            return .numeric(minimum: "\(low)", maximum: "\(high)")
        }
        switch spec.pointee.value_type {
        case parley_type_int(): self = numeric(GParamSpecInt.self) { ($0.minimum, $0.maximum) }
        case parley_type_uint(): self = numeric(GParamSpecUInt.self) { ($0.minimum, $0.maximum) }
        case parley_type_int64(): self = numeric(GParamSpecInt64.self) { ($0.minimum, $0.maximum) }
        case parley_type_uint64(): self = numeric(GParamSpecUInt64.self) { ($0.minimum, $0.maximum) }
        case parley_type_double(): self = numeric(GParamSpecDouble.self) { ($0.minimum, $0.maximum) }
        default:
            guard parley_type_is_enum(spec.pointee.value_type) != 0,
                  let enumClass = raw.assumingMemoryBound(to: GParamSpecEnum.self).pointee.enum_class else { return nil }
            self = .oneOf((0..<Int(enumClass.pointee.n_values)).map {
                String(cString: enumClass.pointee.values[$0].value_nick)
            })
        }
    }
}

/// A property as its GParamSpec describes it, for documentation and checks.
public struct ParamInfo: Sendable {
    public var name: String
    public var blurb: String
    /// The GType name ("gint", "GstParleyQueuePolicy").
    public var typeName: String
    /// The default in gst-launch syntax ("NULL" for no string).
    public var defaultValue: String
    public var range: ParamRange?
    public var writable: Bool
    public var changeableInPlaying: Bool

    init(_ spec: UnsafeMutablePointer<GParamSpec>) {
        name = String(cString: spec.pointee.name)
        blurb = g_param_spec_get_blurb(spec).map { String(cString: $0) } ?? ""
        // A pointer type's default is mostly NULL, which some serialisers
        // (GstSample's: a sink's last-sample) do not take without a critical.
        defaultValue = g_param_spec_get_default_value(spec).flatMap { value in
            g_value_fits_pointer(value) != 0 && g_value_peek_pointer(value) == nil ? nil : takeGString(gst_value_serialize(value))
        } ?? "NULL"
        typeName = String(cString: g_type_name(spec.pointee.value_type))
        let flags = UInt32(bitPattern: Int32(spec.pointee.flags.rawValue))
        writable = flags & UInt32(G_PARAM_WRITABLE.rawValue) != 0
        changeableInPlaying = flags & UInt32(parley_param_flag_mutable_playing()) != 0
        range = ParamRange(spec)
    }
}

/// Why a property value given as text (gst-launch syntax) does not fit.
public enum PropertyValueProblem: Error, Sendable, Equatable {
    case noSuchProperty
    /// Not parseable as the property's type.
    case notParseable(typeName: String)
    case outOfRange
}
