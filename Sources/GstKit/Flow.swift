import CGStreamer

/// Why data stopped flowing: GstFlowReturn's non-OK values, as a typed error
/// the way gst-plugins-rs returns `Result<FlowSuccess, FlowError>`.
public enum FlowError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Downstream is flushing (a seek or a state change): stop quietly.
    case flushing
    /// Downstream wants no more data.
    case eos
    /// Nothing is linked downstream.
    case notLinked
    /// Caps were not agreed on.
    case notNegotiated
    /// A fatal error: the element posted an error message first.
    case error
    case notSupported
    /// Any other value GStreamer returns (custom flow values).
    case other(Int32)

    public var description: String {
        switch self {
        case .flushing: "flushing"
        case .eos: "eos"
        case .notLinked: "not-linked"
        case .notNegotiated: "not-negotiated"
        case .error: "error"
        case .notSupported: "not-supported"
        case .other(let raw): "flow \(raw)"
        }
    }
}

/// The non-error outcomes of pushing or handling a buffer.
public enum FlowSuccess: Sendable, Equatable {
    case ok
}

public typealias FlowResult = Result<FlowSuccess, FlowError>

extension FlowResult {
    public static var ok: FlowResult { .success(.ok) }

    /// Treats `notLinked` as success: for elements whose output is optional
    /// (a VAD feeding only the bus).
    public var ignoringNotLinked: FlowResult {
        if case .failure(.notLinked) = self { return .ok }
        return self
    }

    var gstValue: GstFlowReturn {
        switch self {
        case .success: GST_FLOW_OK
        case .failure(let error): error.gstValue
        }
    }

    init(_ raw: GstFlowReturn) {
        if raw == GST_FLOW_OK || raw.rawValue > 0 { self = .success(.ok) } else { self = .failure(FlowError(raw)) }
    }
}

extension FlowError {
    init(_ raw: GstFlowReturn) {
        switch raw {
        case GST_FLOW_FLUSHING: self = .flushing
        case GST_FLOW_EOS: self = .eos
        case GST_FLOW_NOT_LINKED: self = .notLinked
        case GST_FLOW_NOT_NEGOTIATED: self = .notNegotiated
        case GST_FLOW_ERROR: self = .error
        case GST_FLOW_NOT_SUPPORTED: self = .notSupported
        default: self = .other(raw.rawValue)
        }
    }

    var gstValue: GstFlowReturn {
        switch self {
        case .flushing: GST_FLOW_FLUSHING
        case .eos: GST_FLOW_EOS
        case .notLinked: GST_FLOW_NOT_LINKED
        case .notNegotiated: GST_FLOW_NOT_NEGOTIATED
        case .error: GST_FLOW_ERROR
        case .notSupported: GST_FLOW_NOT_SUPPORTED
        case .other(let raw): GstFlowReturn(rawValue: raw)
        }
    }
}

/// A transition between two element states.
public enum StateChange: Sendable, Equatable, CustomStringConvertible {
    case nullToReady, readyToPaused, pausedToPlaying, playingToPaused, pausedToReady, readyToNull
    /// Same-state transitions and anything GStreamer adds later.
    case other

    init(_ raw: GstStateChange) {
        switch raw {
        case GST_STATE_CHANGE_NULL_TO_READY: self = .nullToReady
        case GST_STATE_CHANGE_READY_TO_PAUSED: self = .readyToPaused
        case GST_STATE_CHANGE_PAUSED_TO_PLAYING: self = .pausedToPlaying
        case GST_STATE_CHANGE_PLAYING_TO_PAUSED: self = .playingToPaused
        case GST_STATE_CHANGE_PAUSED_TO_READY: self = .pausedToReady
        case GST_STATE_CHANGE_READY_TO_NULL: self = .readyToNull
        default: self = .other
        }
    }

    public var description: String {
        switch self {
        case .nullToReady: "NULL→READY"
        case .readyToPaused: "READY→PAUSED"
        case .pausedToPlaying: "PAUSED→PLAYING"
        case .playingToPaused: "PLAYING→PAUSED"
        case .pausedToReady: "PAUSED→READY"
        case .readyToNull: "READY→NULL"
        case .other: "other"
        }
    }
}

/// An element state, for applications.
public enum ElementState: Sendable, Equatable, CustomStringConvertible {
    case voidPending, null, ready, paused, playing

    init(_ raw: GstState) {
        switch raw {
        case GST_STATE_NULL: self = .null
        case GST_STATE_READY: self = .ready
        case GST_STATE_PAUSED: self = .paused
        case GST_STATE_PLAYING: self = .playing
        default: self = .voidPending
        }
    }

    var gstValue: GstState {
        switch self {
        case .voidPending: GST_STATE_VOID_PENDING
        case .null: GST_STATE_NULL
        case .ready: GST_STATE_READY
        case .paused: GST_STATE_PAUSED
        case .playing: GST_STATE_PLAYING
        }
    }

    /// GStreamer's own names ("PLAYING"), as gst-launch prints them.
    public var description: String {
        switch self {
        case .voidPending: "VOID_PENDING"
        case .null: "NULL"
        case .ready: "READY"
        case .paused: "PAUSED"
        case .playing: "PLAYING"
        }
    }
}
