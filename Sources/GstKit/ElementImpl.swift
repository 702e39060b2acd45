import CGStreamer
import GstBridge

/// Which generic bridge class an element kind is built on.
public enum ElementKind: Sendable {
    /// A GstElement with the pads in `PadTemplates`.
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
    /// Request sink templates, name template ("text_%u") and caps (multi-sinks).
    public var requestSinks: [(name: String, caps: String)]
    public init(sink: String? = nil, src: String? = nil, requestSrc: String? = nil,
                requestSinks: [(name: String, caps: String)] = []) {
        self.sink = sink
        self.src = src
        self.requestSrc = requestSrc
        self.requestSinks = requestSinks
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

/// What every Swift element is, whatever its kind: static metadata, pad
/// templates and properties, its settings, and the life-cycle hooks.
///
/// An element conforms to exactly one *kind* protocol (`Filter`,
/// `Sink`, `Source`, or a kind a framework layer adds, such as the speech
/// layer's `AsyncTransform`); the kind supplies `bridgeKind` and
/// `makeDriver`, so a type that claims two kinds does not compile
/// (ambiguous witnesses), and a kind's callbacks are the only ones it has.
/// Elements return results; the kind's driver pushes them.
///
/// Settings live behind a `Mutex` in the element and are copied out at the
/// start of each callback; streaming state is one value replaced whole on
/// `start()`.
public protocol ElementImpl: AnyObject, Sendable {
    static var metadata: ElementMetadata { get }
    static var pads: PadTemplates { get }
    static var properties: [PropertySpec] { get }
    /// The element's debug category (`GST_DEBUG=<factory name>:6`),
    /// registered when the element is, so `gst-inspect-1.0 --gst-debug-help`
    /// lists it. The default is named after the factory; an element may
    /// declare its own `static let log`.
    static var log: DebugCategory { get }
    /// The bus messages and events the element produces, with their fields:
    /// what `parley inspect` shows and docs/reference.md lists.
    static var produces: [StructureDoc] { get }
    /// What is wrong with these settings taken together (nil when nothing),
    /// for what no one property's `check` can see: `values` holds every
    /// string property, as written or at its default. `parley validate`
    /// asks it before a pipeline runs; `open()` finds the same at READY.
    static func settingsProblem(_ values: [String: String]) -> String?

    init(element: ElementHandle)
    /// The GstElement this object implements (store the one `init` receives).
    var element: ElementHandle { get }

    func property(named name: String) -> PropertyValue
    func setProperty(named name: String, to value: PropertyValue)

    /// NULL→READY: open engines, check keys and settings. A thrown error is
    /// posted (GST_ELEMENT_ERROR) and the state change fails.
    func open() throws(ElementMessageText)
    /// READY→PAUSED: reset the streaming state.
    func start() throws(ElementMessageText)
    /// PAUSED→READY, after streaming stopped.
    func stop()
    /// READY→NULL: release what `open` took.
    func close()

    /// Supplied by the kind protocol, not by elements.
    static var bridgeKind: ElementKind { get }
    /// Supplied by the kind protocol: the object the bridge calls.
    static func makeDriver(for implementation: Self) -> any ElementDriver
}

extension ElementImpl {
    public static var properties: [PropertySpec] { [] }
    public static var log: DebugCategory { DebugCategory.forFactory(metadata.factoryName, description: metadata.longName) }
    public static var produces: [StructureDoc] { [] }
    public static func settingsProblem(_ values: [String: String]) -> String? { nil }
    public func property(named name: String) -> PropertyValue {
        Self.properties.first { $0.name == name }?.defaultValue ?? .int(0)
    }
    public func setProperty(named name: String, to value: PropertyValue) {}

    /// What an element's `property(named:)` or `setProperty(named:)` calls
    /// for a name its switch does not handle. GObject only passes names the
    /// element declared in `properties`, so this is a declared property the
    /// switch forgot: a programming error, stopped at once with the
    /// property's name rather than answered with a silent 0.
    public static func unhandledProperty(_ name: String) -> Never {
        propertyNotHandled(name, by: metadata.factoryName)
    }
    public func open() throws(ElementMessageText) {}
    public func start() throws(ElementMessageText) {}
    public func stop() {}
    public func close() {}
}

/// What the bridge calls for one element instance. Kinds implement drivers;
/// elements never do. A framework layer that adds a kind (the speech layer's
/// async transform) writes one driver for it.
public protocol ElementDriver: AnyObject, Sendable {
    var implementation: any ElementImpl { get }

    /// Before (`after == false`) and after the base class handles the
    /// transition. Return false to fail it (post an error first).
    func changeState(_ change: StateChange, after: Bool) -> Bool

    // ElementKind.element
    func chain(pad: Pad, buffer: Buffer) -> FlowResult
    func event(pad: Pad, event: Event) -> Bool
    func query(pad: Pad, query: Query) -> Bool
    /// A request pad was added to or removed from the element.
    func padAdded(_ pad: Pad)
    func padRemoved(_ pad: Pad)

    // ElementKind.sink and .source (the base classes' vmethods)
    func baseStart() -> Bool
    func baseStop() -> Bool
    func render(_ buffer: Buffer) -> FlowResult
    func sinkEvent(_ event: Event) -> Bool
    func create() -> Result<Buffer, FlowError>
    func unlock()
    func unlockStop()
}

extension ElementDriver {
    public var element: ElementHandle { implementation.element }

    /// The life cycle every kind shares: open on NULL→READY, start on
    /// READY→PAUSED, stop on PAUSED→READY (after streaming stopped), close
    /// on READY→NULL. Errors are posted and fail the change.
    public func lifeCycle(_ change: StateChange, after: Bool, includingStartStop: Bool = true) -> Bool {
        let log = type(of: implementation).log
        if !after { log.debug("state change \(change)", object: element) }
        do throws(ElementMessageText) {
            switch (change, after) {
            case (.nullToReady, false): try implementation.open()
            case (.readyToPaused, false) where includingStartStop: try implementation.start()
            case (.pausedToReady, true) where includingStartStop: implementation.stop()
            case (.readyToNull, true): implementation.close()
            default: break
            }
            return true
        } catch {
            log.debug("state change \(change) failed: \(error.text)", object: element)
            element.postError(error)
            return false
        }
    }

    /// The element's `start()`, its error posted: what base sinks and sources call on their start.
    public func startImplementation() -> Bool {
        do throws(ElementMessageText) {
            try implementation.start()
            return true
        } catch {
            element.postError(error)
            return false
        }
    }

    public func changeState(_ change: StateChange, after: Bool) -> Bool { lifeCycle(change, after: after) }
    public func chain(pad: Pad, buffer: Buffer) -> FlowResult { .failure(.notSupported) }
    public func event(pad: Pad, event: Event) -> Bool { pad.forwardDefault(event, parent: element) }
    public func query(pad: Pad, query: Query) -> Bool { pad.queryDefault(query, parent: element) }
    public func padAdded(_ pad: Pad) {}
    public func padRemoved(_ pad: Pad) {}
    public func baseStart() -> Bool { true }
    public func baseStop() -> Bool { true }
    public func render(_ buffer: Buffer) -> FlowResult { .ok }
    public func sinkEvent(_ event: Event) -> Bool { true }
    public func create() -> Result<Buffer, FlowError> { .failure(.eos) }
    public func unlock() {}
    public func unlockStop() {}
}

/// A declared property that the code reading or writing it does not handle
/// (see `ElementImpl.unhandledProperty`): a programming error.
public func propertyNotHandled(_ name: String, by owner: String) -> Never {
    preconditionFailure("\(owner) declares the property '\(name)' but does not handle it: its property list and its property switch disagree")
}
