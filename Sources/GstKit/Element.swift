import CGStreamer
import GstBridge

/// Which generic bridge class an element is built on.
public enum ElementKind: Sendable {
    /// A GstElement with the pads in `PadTemplates`; the element pushes.
    case element
    /// A GstBaseSink: preroll, clock sync and EOS handling are the base class's.
    case sink
    /// A GstPushSrc producing buffers on its own streaming thread.
    case source(live: Bool)
}

/// Pad templates as caps strings; nil means no such pad.
public struct PadTemplates: Sendable {
    public var sink: String?
    public var src: String?
    /// A "src_%u" request template (fan-out elements).
    public var requestSrc: String?
    public init(sink: String? = nil, src: String? = nil, requestSrc: String? = nil) {
        self.sink = sink
        self.src = src
        self.requestSrc = requestSrc
    }
}

/// What gst-inspect shows at the top of an element's page.
public struct ElementMetadata: Sendable {
    public var factoryName: String
    public var typeName: String
    public var longName: String
    public var klass: String
    public var description: String
    public var author: String
    public var rank: UInt32
    public var docURI: String?
    /// A gst-launch-1.0 line that runs, shown by gst-inspect-1.0 and `parley inspect`.
    public var example: String?

    public init(factoryName: String, typeName: String, longName: String, klass: String,
                description: String, author: String = "Parley developers", rank: UInt32 = 0,
                docURI: String? = nil, example: String? = nil) {
        self.example = example
        self.factoryName = factoryName
        self.typeName = typeName
        self.longName = longName
        self.klass = klass
        self.description = description
        self.author = author
        self.rank = rank
        self.docURI = docURI
    }
}

/// The outcome of a state change hook.
public enum StateChangeResult: Sendable {
    case success
    case failure
    case noPreroll
    case async
}

/// A Swift GStreamer element. Conforming types describe themselves with static
/// data and implement the callbacks of their kind; GstKit creates the GType.
///
/// Settings live behind a `Mutex` in the element and are copied out at the
/// start of each callback; streaming state is touched only from the streaming
/// thread. Never hold a lock while pushing.
public protocol Element: AnyObject, Sendable {
    static var metadata: ElementMetadata { get }
    static var kind: ElementKind { get }
    static var pads: PadTemplates { get }
    static var properties: [PropertySpec] { get }

    init(element: ElementHandle)
    /// The GstElement this object implements (store the one `init` receives).
    var element: ElementHandle { get }

    func property(named name: String) -> PropertyValue
    func setProperty(named name: String, to value: PropertyValue)

    /// Called before (after == false) and after (after == true) the base
    /// class handles the transition. Set up on NULL→READY, tear down on
    /// PAUSED→READY / READY→NULL.
    func changeState(_ transition: GstStateChange, after: Bool) -> StateChangeResult

    // .element kind
    func chain(pad: Pad, buffer: Buffer) -> GstFlowReturn
    func event(pad: Pad, event: Event) -> Bool
    func query(pad: Pad, query: UnsafeMutablePointer<GstQuery>) -> Bool
    func padAdded(_ pad: Pad)
    func padRemoved(_ pad: Pad)

    // .sink and .source kinds
    func start() -> Bool
    func stop() -> Bool
    func render(buffer: Buffer) -> GstFlowReturn
    /// Return false to drop the event; true lets the base class handle it too.
    func sinkEvent(_ event: Event) -> Bool
    func create() -> (GstFlowReturn, Buffer?)
    func fixate(_ caps: Caps) -> Caps
    func unlock() -> Bool
    func unlockStop() -> Bool
}

extension Element {
    public static var kind: ElementKind { .element }
    public static var properties: [PropertySpec] { [] }

    public func property(named name: String) -> PropertyValue {
        Self.properties.first { $0.name == name }?.defaultValue ?? .int(0)
    }
    public func setProperty(named name: String, to value: PropertyValue) {}
    public func changeState(_ transition: GstStateChange, after: Bool) -> StateChangeResult { .success }

    /// Passes buffers through unchanged.
    public func chain(pad: Pad, buffer: Buffer) -> GstFlowReturn {
        element.srcPad?.push(buffer) ?? FlowReturn.ok
    }
    public func event(pad: Pad, event: Event) -> Bool { pad.forwardDefault(event, parent: element) }
    public func query(pad: Pad, query: UnsafeMutablePointer<GstQuery>) -> Bool {
        pad.queryDefault(query, parent: element)
    }
    public func padAdded(_ pad: Pad) {}
    public func padRemoved(_ pad: Pad) {}

    public func start() -> Bool { true }
    public func stop() -> Bool { true }
    public func render(buffer: Buffer) -> GstFlowReturn { FlowReturn.ok }
    public func sinkEvent(_ event: Event) -> Bool { true }
    public func create() -> (GstFlowReturn, Buffer?) { (FlowReturn.eos, nil) }
    public func fixate(_ caps: Caps) -> Caps { Caps(taking: gst_caps_fixate(caps.transferOwnership())) }
    public func unlock() -> Bool { true }
    public func unlockStop() -> Bool { true }
}
