import Synchronization

/// The kind of element with one sink pad and `src_%u` request pads: what it
/// returns for each buffer goes to every requested src pad (one listener per
/// language, one branch per consumer). Events go to every src pad too.
public protocol FanOut: ElementImpl {
    /// One input buffer; the buffers every src pad receives, in order. The
    /// default passes it through.
    func route(_ buffer: Buffer) -> [Buffer]
}

extension FanOut {
    public func route(_ buffer: Buffer) -> [Buffer] { [buffer] }
    public static var bridgeKind: ElementKind { .element }
    public static func makeDriver(for implementation: Self) -> any ElementDriver { FanOutDriver(implementation) }
}

final class FanOutDriver<F: FanOut>: ElementDriver {
    let fanOut: F
    private let outputs = Mutex<[Pad]>([])
    init(_ fanOut: F) { self.fanOut = fanOut }
    var implementation: any ElementImpl { fanOut }

    func padAdded(_ pad: Pad) { if !pad.isSink { outputs.withLock { $0.append(pad) } } }
    func padRemoved(_ pad: Pad) { outputs.withLock { $0.removeAll { $0 == pad } } }

    func chain(pad: Pad, buffer: Buffer) -> FlowResult {
        let targets = outputs.withLock { $0 }  // never push under the lock
        var result = FlowResult.ok
        for out in fanOut.route(buffer) {
            // Each pad gets its own reference; an unlinked branch does not stop the others.
            for target in targets {
                let flow = target.push(out).ignoringNotLinked
                if case .success = result { result = flow }
            }
        }
        return result
    }
}
