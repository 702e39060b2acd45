import CGStreamer
import GstBridge

/// When a property may change, in GStreamer's terms.
public struct PropertyFlags: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let readable = PropertyFlags(rawValue: 1 << 0)
    public static let writable = PropertyFlags(rawValue: 1 << 1)
    /// Changeable in PLAYING (GST_PARAM_MUTABLE_PLAYING).
    public static let mutablePlaying = PropertyFlags(rawValue: 1 << 2)
    /// Changeable up to READY only (GST_PARAM_MUTABLE_READY).
    public static let mutableReady = PropertyFlags(rawValue: 1 << 3)
    public static let controllable = PropertyFlags(rawValue: 1 << 4)
    public static let readWrite: PropertyFlags = [.readable, .writable]
    public static let readOnly: PropertyFlags = [.readable]
}

/// One value of an enum property: what gst-inspect lists and gst-launch accepts.
public struct EnumValue: Sendable {
    public let value: Int
    public let nick: String
    public let name: String
    public init(_ value: Int, _ nick: String, _ name: String) {
        self.value = value
        self.nick = nick
        self.name = name
    }
}

/// A property as gst-inspect documents it: name, nick, blurb, type, default,
/// range and flags.
public struct PropertySpec: Sendable {
    public enum Kind: Sendable {
        case bool(default: Bool)
        case int(default: Int, range: ClosedRange<Int>)
        case uint64(default: UInt64, range: ClosedRange<UInt64>)
        case double(default: Double, range: ClosedRange<Double>)
        case string(default: String?)
        /// `typeName` is the GType name of the enum, e.g. "GstParleyQueuePolicy".
        case enumeration(typeName: String, values: [EnumValue], default: Int)
        /// A GstStructure, read-only: a snapshot of figures (`stats`, as
        /// queue2 and rtpjitterbuffer have); its default is NULL.
        case structure
    }

    public let name: String
    public let nick: String
    public let blurb: String
    public let kind: Kind
    public let flags: PropertyFlags
    /// What is wrong with a value that has the right type but that the
    /// element will refuse when it starts (a provider chain naming no
    /// provider), or nil when it is good. The element must call the same
    /// rule at start; this lets `parley validate` (and `parley run`, before
    /// anything starts) point at the value's line and column. GObject never
    /// sees it: a setter cannot fail.
    public let check: (@Sendable (String) -> String?)?

    public init(_ name: String, nick: String, blurb: String, _ kind: Kind,
                flags: PropertyFlags = [.readWrite, .mutableReady], check: (@Sendable (String) -> String?)? = nil) {
        self.name = name
        self.nick = nick
        self.blurb = blurb
        self.kind = kind
        self.flags = flags
        self.check = check
    }

    public var defaultValue: PropertyValue {
        switch kind {
        case .bool(let d): .bool(d)
        case .int(let d, _): .int(d)
        case .uint64(let d, _): .uint64(d)
        case .double(let d, _): .double(d)
        case .string(let d): .string(d)
        case .enumeration(_, _, let d): .enumeration(d)
        case .structure: .structure(nil)
        }
    }

    /// Creates the GParamSpec. Its strings live for the rest of the process,
    /// as GObject class data does.
    func makeParamSpec() -> UnsafeMutablePointer<GParamSpec> {
        let name = permanentCString(self.name), nick = permanentCString(self.nick)
        let blurb = permanentCString(self.blurb)
        let flags = parley_param_flags(
            self.flags.contains(.readable) ? 1 : 0, self.flags.contains(.writable) ? 1 : 0,
            self.flags.contains(.mutablePlaying) ? 1 : 0, self.flags.contains(.mutableReady) ? 1 : 0,
            self.flags.contains(.controllable) ? 1 : 0)
        switch kind {
        case .bool(let d):
            return g_param_spec_boolean(name, nick, blurb, d ? 1 : 0, flags)
        case .int(let d, let range):
            return g_param_spec_int(name, nick, blurb, gint(range.lowerBound), gint(range.upperBound), gint(d), flags)
        case .uint64(let d, let range):
            return g_param_spec_uint64(name, nick, blurb, guint64(range.lowerBound), guint64(range.upperBound), guint64(d), flags)
        case .double(let d, let range):
            return g_param_spec_double(name, nick, blurb, range.lowerBound, range.upperBound, d, flags)
        case .string(let d):
            return g_param_spec_string(name, nick, blurb, d.map { permanentCString($0) }, flags)
        case .enumeration(let typeName, let values, let d):
            return g_param_spec_enum(name, nick, blurb, Self.enumType(typeName, values), gint(d), flags)
        case .structure:
            return g_param_spec_boxed(name, nick, blurb, gst_structure_get_type(), flags)
        }
    }

    /// Registers (once) the GEnum type behind an enum property.
    static func enumType(_ typeName: String, _ values: [EnumValue]) -> GType {
        let existing = g_type_from_name(typeName)
        if existing != 0 { return existing }
        let table = UnsafeMutablePointer<GEnumValue>.allocate(capacity: values.count + 1)
        for (index, value) in values.enumerated() {
            table[index] = GEnumValue(value: gint(value.value), value_name: permanentCString(value.name),
                                      value_nick: permanentCString(value.nick))
        }
        table[values.count] = GEnumValue(value: 0, value_name: nil, value_nick: nil)
        return g_enum_register_static(permanentCString(typeName), table)
    }
}
