import CGStreamer
import GstBridge

/// A GstStructure as a Swift value: a name and ordered, typed fields. Used for
/// custom events, element messages and their payloads.
public struct Structure: Sendable, Equatable, CustomStringConvertible {
    public var name: String
    public private(set) var fields: [(name: String, value: PropertyValue)]

    public init(_ name: String, _ fields: [(String, PropertyValue)] = []) {
        self.name = name
        self.fields = fields.map { (name: $0.0, value: $0.1) }
    }

    public subscript(field: String) -> PropertyValue? {
        get { fields.first { $0.name == field }?.value }
        set {
            if let index = fields.firstIndex(where: { $0.name == field }) {
                if let newValue { fields[index].value = newValue } else { fields.remove(at: index) }
            } else if let newValue {
                fields.append((name: field, value: newValue))
            }
        }
    }

    public static func == (lhs: Structure, rhs: Structure) -> Bool {
        lhs.name == rhs.name && lhs.fields.count == rhs.fields.count
            && zip(lhs.fields, rhs.fields).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }

    public var description: String {
        let body = fields.map { "\($0.name)=\($0.value)" }.joined(separator: ", ")
        return body.isEmpty ? name : "\(name), \(body)"
    }

    /// A new GstStructure the caller owns.
    public func makeGstStructure() -> UnsafeMutablePointer<GstStructure> {
        let structure = gst_structure_new_empty(name)!
        setFields(of: structure)
        return structure
    }

    /// Writes these fields into an existing GstStructure, keeping its name
    /// and any field not named here.
    func setFields(of structure: UnsafeMutablePointer<GstStructure>) {
        for field in fields {
            var value = GValue()
            switch field.value {
            case .bool: g_value_init(&value, parley_type_boolean())
            case .int: g_value_init(&value, parley_type_int64())
            case .enumeration: g_value_init(&value, parley_type_int())
            case .uint64: g_value_init(&value, parley_type_uint64())
            case .double: g_value_init(&value, parley_type_double())
            case .string: g_value_init(&value, parley_type_string())
            case .structure: g_value_init(&value, gst_structure_get_type())
            }
            GValueIO.write(field.value, to: &value)
            gst_structure_take_value(structure, field.name, &value)
        }
    }

    /// Reads a GstStructure (borrowed). Fields of types Parley does not model
    /// are kept as their serialized string.
    public init(borrowing structure: UnsafePointer<GstStructure>) {
        name = String(cString: gst_structure_get_name(structure))
        fields = []
        for index in 0..<gst_structure_n_fields(structure) {
            let fieldName = String(cString: gst_structure_nth_field_name(structure, guint(index)))
            guard let value = gst_structure_get_value(structure, fieldName) else { continue }
            if let typed = GValueIO.read(value) {
                fields.append((name: fieldName, value: typed))
            } else {
                fields.append((name: fieldName, value: .string(takeGString(gst_value_serialize(value)))))
            }
        }
    }
}
