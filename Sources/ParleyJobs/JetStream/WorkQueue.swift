import CNats
import Foundation

/// One worker slot's pull subscription on the shared durable consumer.
///
/// It keeps its connection (``JetStream``), and each ``Delivery`` keeps its
/// subscription: the C client's message points at its subscription and the
/// subscription at its connection without holding them, so a delivery
/// settled after the rest were let go (a heartbeat firing late) read freed
/// memory. The C subscription itself is destroyed with its connection,
/// after the connection is closed (see ``JetStream``).
public final class WorkQueueSubscription: @unchecked Sendable {
    private let subscription: OpaquePointer
    private let subject: String
    private let connection: JetStream

    init(_ subscription: OpaquePointer, subject: String, on connection: JetStream) {
        self.subscription = subscription
        self.subject = subject
        self.connection = connection
    }

    /// The next message, or nil when none came within `timeout`.
    public func next(timeout: Duration) throws(JetStreamError) -> Delivery? {
        var list = natsMsgList()
        let status = natsSubscription_Fetch(&list, subscription, 1, max(timeout.nanoseconds / 1_000_000, 1), nil)
        if status == NATS_TIMEOUT { return nil }
        guard status == NATS_OK else { throw JetStreamError("fetching from \(subject)", status) }
        defer { natsMsgList_Destroy(&list) }
        guard list.Count > 0, let messages = list.Msgs, let message = messages[0] else { return nil }
        // The list gives up this message: the delivery owns it from here.
        messages[0] = nil
        return Delivery(message, from: self)
    }
}

/// A message handed to this worker: settled exactly once by ``acknowledge()``,
/// ``retryLater(after:)`` or ``terminate()``; ``stillWorking()`` in between
/// restarts the server's ack-wait clock.
public final class Delivery: @unchecked Sendable {
    /// The C message until it is settled; guarded by `lock`.
    private var message: OpaquePointer?
    private let lock = NSLock()
    /// Held for the message, which settles through it.
    private let subscription: WorkQueueSubscription
    public let data: [UInt8]
    public let subject: String
    /// How many times the server has delivered it, this time included (1 = first).
    public let deliveryCount: Int
    /// The message's sequence in the work-queue stream.
    public let streamSequence: UInt64

    init(_ message: OpaquePointer, from subscription: WorkQueueSubscription) {
        self.subscription = subscription
        subject = String(cString: natsMsg_GetSubject(message))
        let count = Int(natsMsg_GetDataLength(message))
        data = count == 0 ? [] : Array(UnsafeRawBufferPointer(start: natsMsg_GetData(message), count: count))
        var meta: UnsafeMutablePointer<jsMsgMetaData>?
        if natsMsg_GetMetaData(&meta, message) == NATS_OK, let meta {
            deliveryCount = Int(meta.pointee.NumDelivered)
            streamSequence = meta.pointee.Sequence.Stream
            jsMsgMetaData_Destroy(meta)
        } else {
            deliveryCount = 1
            streamSequence = 0
        }
        self.message = message
    }

    deinit {
        if let message { natsMsg_Destroy(message) }
    }

    /// Tells the server the job is alive, so it is not redelivered yet.
    public func stillWorking() throws(JetStreamError) {
        try settle("reporting progress", final: false) { natsMsg_InProgress($0, nil) }
    }

    /// Done: the server removes it from the work queue and waits for the
    /// server's confirmation, so that a lost acknowledgement is an error here.
    public func acknowledge() throws(JetStreamError) {
        try settle("acknowledging", final: true) { natsMsg_AckSync($0, nil, nil) }
    }

    /// Failed this time: deliver it again after `delay` (to any worker).
    public func retryLater(after delay: Duration) throws(JetStreamError) {
        try settle("asking for redelivery", final: true) { natsMsg_NakWithDelay($0, delay.nanoseconds / 1_000_000, nil) }
    }

    /// Never deliver it again.
    public func terminate() throws(JetStreamError) {
        try settle("terminating", final: true) { natsMsg_Term($0, nil) }
    }

    private func settle(_ operation: String, final: Bool, _ call: (OpaquePointer) -> natsStatus) throws(JetStreamError) {
        let status: natsStatus? = lock.withLock {
            guard let current = message else { return nil }
            let status = call(current)
            // Settled once: later calls (a heartbeat racing the
            // acknowledgement) find nothing to do.
            if final && status == NATS_OK {
                natsMsg_Destroy(current)
                message = nil
            }
            return status
        }
        guard let status else { return }
        guard status == NATS_OK else { throw JetStreamError("\(operation) message \(streamSequence) on \(subject)", status) }
    }
}
