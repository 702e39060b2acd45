import CNats
import Foundation

/// One connection to a NATS server with JetStream: streams, publishing with
/// de-duplication ids, direct reads of stored messages, and work-queue
/// subscriptions. The only place C types of the NATS client appear.
///
/// The client reconnects by itself, forever, every 250 ms (a restarted server
/// or a network cut costs a pause, not the worker); while it is away, calls
/// fail with a transient ``JetStreamError`` and the caller decides whether to
/// wait and try again. Thread-safe: the C client's connection and context may
/// be used from any thread.
public final class JetStream: @unchecked Sendable {
    private let connection: OpaquePointer
    private let context: OpaquePointer
    public let address: ServerAddress

    /// Connects, trying for `timeout` before giving up on a server that is
    /// not (yet) there.
    public init(_ address: ServerAddress, name: String, timeout: Duration = .seconds(5)) throws(JetStreamError) {
        self.address = address
        let operation = "connecting to \(address.url)"
        var options: OpaquePointer?
        var status = natsOptions_Create(&options)
        guard status == NATS_OK, let options else { throw JetStreamError(operation, status) }
        defer { natsOptions_Destroy(options) }
        let milliseconds = Int64(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        let settings: [natsStatus] = [
            natsOptions_SetURL(options, address.url),
            natsOptions_SetName(options, name),
            natsOptions_SetTimeout(options, max(milliseconds, 100)),
            natsOptions_SetMaxReconnect(options, -1),
            natsOptions_SetReconnectWait(options, 250),
            // Publications made while reconnecting are buffered, up to 8 MiB.
            natsOptions_SetReconnectBufSize(options, 8 << 20),
        ]
        if let failed = settings.first(where: { $0 != NATS_OK }) { throw JetStreamError(operation, failed) }
        switch address.credentials {
        case .none: break
        case .token(let token): status = natsOptions_SetToken(options, token)
        case .user(let user, let password): status = natsOptions_SetUserInfo(options, user, password)
        }
        guard status == NATS_OK else { throw JetStreamError(operation, status) }
        if address.secure {
            status = natsOptions_SetSecure(options, true)
            if status == NATS_OK, let file = address.trustedCAFile { status = natsOptions_LoadCATrustedCertificates(options, file) }
            guard status == NATS_OK else { throw JetStreamError(operation + " (TLS set-up)", status) }
        }
        var connection: OpaquePointer?
        let deadline = ContinuousClock.now + timeout
        repeat {
            status = natsConnection_Connect(&connection, options)
            if status == NATS_OK { break }
            if status != NATS_NO_SERVER { throw JetStreamError(operation, status) }
            Thread.sleep(forTimeInterval: 0.1)
        } while ContinuousClock.now < deadline
        guard status == NATS_OK, let connection else { throw JetStreamError(operation, status) }
        var jsOptions = jsOptions()
        jsOptions_Init(&jsOptions)
        jsOptions.Wait = 5000
        var context: OpaquePointer?
        status = natsConnection_JetStream(&context, connection, &jsOptions)
        guard status == NATS_OK, let context else {
            natsConnection_Destroy(connection)
            throw JetStreamError(operation + " (JetStream context)", status)
        }
        self.connection = connection
        self.context = context
    }

    /// The work-queue subscriptions made on this connection, destroyed
    /// with it. Guarded by `lock`.
    private var subscriptions: [OpaquePointer] = []
    private let lock = NSLock()

    deinit {
        // Closed first: closing stops the client's reading thread, which
        // could otherwise be handing a message to a subscription being
        // destroyed (nats.c 3.4 does not hold the subscription then).
        // Destroying only releases the client's side: unsubscribing would
        // delete a durable consumer a subscription created.
        natsConnection_Close(connection)
        for subscription in subscriptions { natsSubscription_Destroy(subscription) }
        jsCtx_Destroy(context)
        natsConnection_Destroy(connection)
    }

    /// Sends what is buffered and waits for the server to have it.
    public func flush(timeout: Duration = .seconds(5)) throws(JetStreamError) {
        let status = natsConnection_FlushTimeout(connection, Int64(timeout.components.seconds * 1000))
        guard status == NATS_OK else { throw JetStreamError("flushing to \(address.url)", status) }
    }

    // MARK: Streams

    /// Creates the stream unless it exists. An existing stream is used as it
    /// is (its limits may have been tuned by an operator with `nats stream edit`).
    public func ensureStream(_ spec: StreamSpec) throws(JetStreamError) {
        var info: UnsafeMutablePointer<jsStreamInfo>?
        var code = jsErrCode(rawValue: 0)
        var status = js_GetStreamInfo(&info, context, spec.name, nil, &code)
        if status == NATS_OK { jsStreamInfo_Destroy(info); return }
        guard status == NATS_NOT_FOUND || code.rawValue == 10059 else {
            throw JetStreamError("looking up stream \(spec.name)", status, code)
        }
        var config = jsStreamConfig()
        jsStreamConfig_Init(&config)
        let subjects = spec.subjects.map { strdup($0) }
        defer { subjects.forEach { free($0) } }
        var pointers = subjects.map { UnsafePointer<CChar>($0) }
        status = spec.name.withCString { name in
            pointers.withUnsafeMutableBufferPointer { subjectList in
                config.Name = name
                config.Subjects = subjectList.baseAddress
                config.SubjectsLen = Int32(subjectList.count)
                config.Retention = spec.workQueue ? js_WorkQueuePolicy : js_LimitsPolicy
                config.Storage = js_FileStorage
                config.MaxAge = spec.maxAge.nanoseconds
                config.Duplicates = spec.duplicateWindow.nanoseconds
                config.MaxMsgSize = Int32(spec.maxMessageSize)
                config.AllowDirect = true
                code = jsErrCode(rawValue: 0)
                return js_AddStream(&info, context, &config, nil, &code)
            }
        }
        if status == NATS_OK { jsStreamInfo_Destroy(info); return }
        // Another process created it in the meantime.
        if code.rawValue == 10058 { return }
        throw JetStreamError("creating stream \(spec.name)", status, code)
    }

    // MARK: Publishing

    /// Publishes and waits for the stream's acknowledgement. With a
    /// `messageID`, JetStream stores the first publication of that id within the
    /// stream's duplicate window and answers `duplicate` to any other.
    @discardableResult
    public func publish(_ subject: String, _ data: [UInt8], messageID: String? = nil) throws(JetStreamError) -> PublishAck {
        var ack: UnsafeMutablePointer<jsPubAck>?
        var code = jsErrCode(rawValue: 0)
        var options = jsPubOptions()
        jsPubOptions_Init(&options)
        let status: natsStatus = (messageID ?? "").withCString { id in
            options.MsgId = messageID == nil ? nil : id
            return data.withUnsafeBytes { bytes in
                js_Publish(&ack, context, subject, bytes.baseAddress, Int32(bytes.count), &options, &code)
            }
        }
        guard status == NATS_OK, let ack else { throw JetStreamError("publishing to \(subject)", status, code) }
        defer { jsPubAck_Destroy(ack) }
        return PublishAck(sequence: ack.pointee.Sequence, duplicate: ack.pointee.Duplicate)
    }

    // MARK: Reading stored messages

    /// The message at `sequence` of `stream`.
    public func message(stream: String, sequence: UInt64) throws(JetStreamError) -> StoredMessage {
        guard let message = try messageIfStored(stream: stream, sequence: sequence) else {
            throw JetStreamError("reading message \(sequence) of \(stream)", message: "not found (expired or purged?)")
        }
        return message
    }

    /// The message at `sequence` of `stream`, nil when there is none.
    public func messageIfStored(stream: String, sequence: UInt64) throws(JetStreamError) -> StoredMessage? {
        var options = jsDirectGetMsgOptions()
        jsDirectGetMsgOptions_Init(&options)
        options.Sequence = sequence
        return try directGet(stream: stream, &options, operation: "reading message \(sequence) of \(stream)")
    }

    /// The last message stored on `subject`, or nil.
    public func lastMessage(stream: String, subject: String) throws(JetStreamError) -> StoredMessage? {
        let subjectText = strdup(subject)
        defer { free(subjectText) }
        var options = jsDirectGetMsgOptions()
        jsDirectGetMsgOptions_Init(&options)
        options.LastBySubject = UnsafePointer(subjectText)
        return try directGet(stream: stream, &options, operation: "reading the last message on \(subject)")
    }

    /// Every message on `subject` (wildcards allowed) stored after `sequence`,
    /// oldest first, at most `limit`.
    public func messages(stream: String, subject: String, after sequence: UInt64 = 0, limit: Int = 100_000) throws(JetStreamError) -> [StoredMessage] {
        var found: [StoredMessage] = []
        var next = sequence + 1
        let subjectText = strdup(subject)
        defer { free(subjectText) }
        while found.count < limit {
            var options = jsDirectGetMsgOptions()
            jsDirectGetMsgOptions_Init(&options)
            options.Sequence = next
            options.NextBySubject = UnsafePointer(subjectText)
            guard let message = try directGet(stream: stream, &options, operation: "reading \(subject)") else { break }
            found.append(message)
            next = message.sequence + 1
        }
        return found
    }

    /// Removes the message at `sequence` from `stream`.
    public func deleteMessage(stream: String, sequence: UInt64) throws(JetStreamError) {
        var code = jsErrCode(rawValue: 0)
        let status = js_DeleteMsg(context, stream, sequence, nil, &code)
        guard status == NATS_OK else { throw JetStreamError("deleting message \(sequence) of \(stream)", status, code) }
    }

    private func directGet(stream: String, _ options: inout jsDirectGetMsgOptions, operation: String) throws(JetStreamError) -> StoredMessage? {
        var message: OpaquePointer?
        let status = js_DirectGetMsg(&message, context, stream, nil, &options)
        guard status == NATS_OK, let message else {
            let error = JetStreamError(operation, status)
            if error.isNotFound { return nil }
            throw error
        }
        defer { natsMsg_Destroy(message) }
        return StoredMessage(message)
    }

    // MARK: Work queues

    /// A pull subscription on a durable consumer shared by every worker: each
    /// message goes to one of them, and comes back after `ackWait` unless it
    /// is acknowledged (or its worker says it is still at it), at most
    /// `maxDeliver` times. The subscription keeps this connection, and its
    /// C side lasts as long as the connection: a worker subscribes once per
    /// slot, so they do not pile up.
    public func workQueue(stream: String, subject: String, durable: String, ackWait: Duration,
                          maxDeliver: Int) throws(JetStreamError) -> WorkQueueSubscription {
        var options = jsSubOptions()
        jsSubOptions_Init(&options)
        var subscription: OpaquePointer?
        var code = jsErrCode(rawValue: 0)
        let status = stream.withCString { streamText in
            durable.withCString { durableText in
                options.Stream = streamText
                options.Config.Durable = durableText
                options.Config.AckPolicy = js_AckExplicit
                options.Config.AckWait = ackWait.nanoseconds
                options.Config.MaxDeliver = Int64(maxDeliver)
                options.Config.MaxAckPending = 1000
                return js_PullSubscribe(&subscription, context, subject, durableText, nil, &options, &code)
            }
        }
        guard status == NATS_OK, let subscription else {
            throw JetStreamError("subscribing to \(subject) as \(durable)", status, code)
        }
        lock.withLock { subscriptions.append(subscription) }
        return WorkQueueSubscription(subscription, subject: subject, on: self)
    }

    /// The durable consumer's redelivery settings as the server holds them
    /// (the first worker to subscribe set them).
    public func consumerSettings(stream: String, durable: String) throws(JetStreamError) -> (ackWait: Duration, maxDeliver: Int) {
        var info: UnsafeMutablePointer<jsConsumerInfo>?
        var code = jsErrCode(rawValue: 0)
        let status = js_GetConsumerInfo(&info, context, stream, durable, nil, &code)
        guard status == NATS_OK, let info, let config = info.pointee.Config else {
            throw JetStreamError("reading consumer \(durable) of \(stream)", status, code)
        }
        defer { jsConsumerInfo_Destroy(info) }
        return (.nanoseconds(config.pointee.AckWait), Int(config.pointee.MaxDeliver))
    }
}

/// What the stream answered to a publication.
public struct PublishAck: Sendable, Equatable {
    public let sequence: UInt64
    /// JetStream had already stored a message with the same id: this one was dropped.
    public let duplicate: Bool
}

/// A message read back from a stream.
public struct StoredMessage: Sendable {
    public let subject: String
    public let sequence: UInt64
    public let data: [UInt8]

    init(_ message: OpaquePointer) {
        subject = String(cString: natsMsg_GetSubject(message))
        var value: UnsafePointer<CChar>?
        sequence = natsMsgHeader_Get(message, "Nats-Sequence", &value) == NATS_OK
            ? value.flatMap { UInt64(String(cString: $0)) } ?? 0 : 0
        let count = Int(natsMsg_GetDataLength(message))
        data = count == 0 ? [] : Array(UnsafeRawBufferPointer(start: natsMsg_GetData(message), count: count))
    }
}

/// How a stream is made when Parley is the first to need it.
public struct StreamSpec: Sendable {
    public var name: String
    public var subjects: [String]
    /// Work-queue retention: a message is removed once a worker acknowledges it.
    public var workQueue: Bool
    public var maxAge: Duration
    public var duplicateWindow: Duration
    public var maxMessageSize: Int

    public init(name: String, subjects: [String], workQueue: Bool = false, maxAge: Duration,
                duplicateWindow: Duration = .seconds(120), maxMessageSize: Int = 1 << 20) {
        self.name = name
        self.subjects = subjects
        self.workQueue = workQueue
        self.maxAge = maxAge
        self.duplicateWindow = duplicateWindow
        self.maxMessageSize = maxMessageSize
    }
}

extension Duration {
    var nanoseconds: Int64 { components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000 }
}
