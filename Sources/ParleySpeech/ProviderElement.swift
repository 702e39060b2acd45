import GstKit
import ParleyCore
import Synchronization

/// A provider element's settings: its own (`Own`, built from its DEFAULT_*
/// constants) beside the two blocks every provider element has, the chain
/// (`providers`: provider, base-url, model, api-key-env, timeout-ms,
/// max-retries, breakers) and the request queue (`queue`). The element's own
/// fields read and write through it: `settings.prompt` is `settings.own.prompt`.
@dynamicMemberLookup
public struct ProviderSettings<Own: Sendable>: Sendable {
    public var own: Own
    public var providers: ProviderFallback.Settings
    public var queue: AsyncStage.Queue.Configuration

    public init(_ own: Own, defaultProvider: String, defaultMaxInFlight: Int) {
        self.own = own
        providers = ProviderFallback.Settings(provider: defaultProvider)
        queue = QueueProperties.defaults(maxInFlight: defaultMaxInFlight)
    }

    public subscript<Value>(dynamicMember path: WritableKeyPath<Own, Value>) -> Value {
        get { own[keyPath: path] }
        set { own[keyPath: path] = newValue }
    }
}

/// The settings behind the element's lock: copied out whole at the start of
/// each callback, written by `setProperty`.
public final class ProviderSettingsStore<Own: Sendable>: Sendable {
    private let state: Mutex<ProviderSettings<Own>>

    public init(_ initial: ProviderSettings<Own>) { state = Mutex(initial) }

    /// A copy of the settings now.
    public var current: ProviderSettings<Own> { state.withLock { $0 } }

    public func withLock<Result: Sendable>(_ body: (inout ProviderSettings<Own>) -> Result) -> Result {
        state.withLock { body(&$0) }
    }
}

/// The shape cloudstt, streamtranslator and cloudtts share: an async
/// transform whose requests go to a provider chain. It declares its own
/// properties (`ownProperty`, `setOwnProperty`, over `OwnSettings`) and its
/// request and response; the stage's, the queue's and the chain's
/// properties are read and written here, once for all three.
///
/// Adding an element of this shape: a folder under plugins/ with the
/// element (metadata, pads, `properties` = `ProviderFallback.specs(for:)` +
/// its own + `ResultCounters.specs` + `QueueProperties.specs`), its
/// `ProviderKind` table, and its work (validate → request through the chain
/// → result with a `ChainReport`).
public protocol ProviderElement: AsyncTransform {
    associatedtype OwnSettings: Sendable
    var settings: ProviderSettingsStore<OwnSettings> { get }
    var counters: ResultCounters { get }
    /// One of the element's own properties.
    func ownProperty(_ name: String, of settings: OwnSettings) -> PropertyValue
    /// Sets one of the element's own properties.
    func setOwnProperty(_ name: String, to value: PropertyValue, in settings: inout OwnSettings)
}

extension ProviderElement {
    public var queueConfiguration: AsyncStage.Queue.Configuration { settings.current.queue }

    public func property(named name: String) -> PropertyValue {
        let current = settings.current
        if let common = stage.commonProperty(name, queue: current.queue, counters: counters) { return common }
        if let chain = ProviderFallback.property(name, of: current.providers) { return chain }
        return ownProperty(name, of: current.own)
    }

    public func setProperty(named name: String, to value: PropertyValue) {
        if stage.setCommonProperty(name, value) { return }
        settings.withLock { settings in
            if QueueProperties.set(name, value, in: &settings.queue) { return }
            if ProviderFallback.set(name, value, in: &settings.providers) { return }
            setOwnProperty(name, to: value, in: &settings.own)
        }
    }
}

extension ProviderSettings {
    /// The properties a provider element's list ends with: its result
    /// counters (what `final`, `skipped` and `failed` count for it), the
    /// request queue's and `latency`.
    public static func stageSpecs(final: String, skipped: String, failed: String, defaultMaxInFlight: Int,
                                  defaultLatencyMs: Int) -> [PropertySpec] {
        ResultCounters.specs(final: final, skipped: skipped, failed: failed)
            + QueueProperties.specs(defaultMaxInFlight: defaultMaxInFlight) + [QueueProperties.latencySpec(defaultMs: defaultLatencyMs),
                                                                               AsyncStage.statsSpec]
    }
}

extension DebugCategory {
    /// A provider's request trace into this category's debug level, each
    /// line at the call site that wrote it, about `element`.
    public func providerTrace(for element: ElementHandle) -> ProviderTrace {
        ProviderTrace { [self] message, file, function, line in
            debug(message, object: element, file: file, function: function, line: line)
        }
    }
}
