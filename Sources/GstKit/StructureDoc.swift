/// A structure an element produces (an element message on the bus, a
/// custom event it sends downstream, a meta on its buffers) with every
/// field it can carry: the source of `parley inspect`'s "Produces" section
/// and of docs/reference.md, and what a test compares with the structures
/// the elements really post.
public struct StructureDoc: Sendable {
    public enum Kind: String, Sendable {
        case message = "element message"
        case downstreamEvent = "custom downstream event"
        case meta = "buffer meta"
    }

    /// A field's type as `gst-launch-1.0 -m` prints it: `(guint64)0`.
    public enum FieldType: String, Sendable {
        case boolean
        case int64 = "gint64"
        case uint64 = "guint64"
        case double
        case string
        case structure = "GstStructure"
    }

    public struct Field: Sendable {
        public var name: String
        public var type: FieldType
        public var meaning: String
        /// Set when only some of the structures carry the field: which ones.
        public var onlyWhen: String?

        public init(_ name: String, _ type: FieldType, _ meaning: String, onlyWhen: String? = nil) {
            self.name = name
            self.type = type
            self.meaning = meaning
            self.onlyWhen = onlyWhen
        }
    }

    public var kind: Kind
    public var name: String
    /// When it is produced ("once per segment, when the VAD ends it").
    public var when: String
    public var fields: [Field]

    public init(_ kind: Kind, _ name: String, when: String, fields: [Field]) {
        self.kind = kind
        self.name = name
        self.when = when
        self.fields = fields
    }

    public func field(named name: String) -> Field? { fields.first { $0.name == name } }

    /// The same doc with one field's meaning said more exactly, by the
    /// element that knows its own figures (vadsegmenter's lookahead).
    public func describing(_ name: String, as meaning: String) -> StructureDoc {
        var doc = self
        if let index = doc.fields.firstIndex(where: { $0.name == name }) { doc.fields[index].meaning = meaning }
        return doc
    }
}

/// One kind of structure an element produces (a bus message or a custom
/// event): a Swift type that builds it, reads it back and documents it, used
/// by the element that posts it, by every reader and by the docs, so no
/// contract lives as a string in two places. Its `doc` is the source of the
/// field list that `parley inspect` and docs/reference.md show; a test
/// checks that what `structure` builds is what `doc` says.
public protocol StructureContract: Sendable {
    /// Name, kind, when it is produced, and every field it can carry.
    static var doc: StructureDoc { get }
    /// The structure to post or send.
    var structure: Structure { get }
    /// Reads one back; nil when `structure` is another kind (or lacks a required field).
    init?(_ structure: Structure)
}

extension StructureContract {
    /// The structure's name ("parley/transcript").
    public static var name: String { doc.name }

    /// Reads one from a custom event, or nil if the event is something else.
    public init?(event: Event) {
        guard case .customDownstream(let structure) = event.view else { return nil }
        self.init(structure)
    }

    /// The custom downstream event carrying it.
    public var event: Event { Event.customDownstream(structure) }
}
