/// What JetStream publishes on
/// `$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.STREAM.CONSUMER` when a message
/// has been delivered `max-deliver` times without being acknowledged and
/// will not be delivered again (schema
/// `io.nats.jetstream.advisory.v1.max_deliver`). The message itself stays in
/// its stream, at `streamSequence`, until someone deletes it.
public struct MaxDeliveriesAdvisory: Decodable, Sendable, Equatable {
    public static let type = "io.nats.jetstream.advisory.v1.max_deliver"

    public let stream: String
    public let consumer: String
    public let streamSequence: UInt64
    public let deliveries: Int

    public static func subject(stream: String, consumer: String) -> String {
        "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.\(stream).\(consumer)"
    }

    private enum CodingKeys: String, CodingKey {
        case type, stream, consumer, deliveries
        case streamSequence = "stream_seq"
    }

    public init(stream: String, consumer: String, streamSequence: UInt64, deliveries: Int) {
        self.stream = stream
        self.consumer = consumer
        self.streamSequence = streamSequence
        self.deliveries = deliveries
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let type = try container.decode(String.self, forKey: .type)
        guard type == Self.type else {
            throw DecodingError.dataCorruptedError(forKey: .type, in: container, debugDescription: "an advisory of type \(type), not \(Self.type)")
        }
        stream = try container.decode(String.self, forKey: .stream)
        consumer = try container.decode(String.self, forKey: .consumer)
        streamSequence = try container.decode(UInt64.self, forKey: .streamSequence)
        deliveries = try container.decode(Int.self, forKey: .deliveries)
    }
}
