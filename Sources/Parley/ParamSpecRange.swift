import CGStreamer
import GstBridge

/// What values a GObject property accepts, as far as its GParamSpec says.
enum ParamSpecRange {
    case numeric(minimum: String, maximum: String)
    case oneOf([String])

    init?(_ spec: UnsafeMutablePointer<GParamSpec>) {
        let raw = UnsafeMutableRawPointer(spec)
        func numeric<T>(_ type: T.Type, _ bounds: (T) -> (Any, Any)) -> ParamSpecRange {
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
