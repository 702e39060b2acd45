// A request's head must arrive whole within --request-timeout-s of its first
// byte. The body has the same bound (RequestBody.collect answers 408), but
// the head is Hummingbird's to read: a client that sends a header byte now
// and then resets the idle timeout for ever, and such connections are not
// requests yet, so --max-requests does not count them. As nginx does
// (client_header_timeout), the connection gets a 408 and is closed.
//
// Two handlers share one clock: `HeaderDeadline.Bytes`, first in the
// pipeline, sees every byte and starts the clock at a request's first one;
// `HeaderDeadline.Heads`, after the HTTP decoder (Hummingbird's
// additionalChannelHandlers), stops it when the head is decoded and lets the
// next byte start it again once the response has ended. A connection that
// sends nothing stays the idle timeout's to close.
import HTTPTypes
import NIOCore
import NIOHTTPTypes

enum HeaderDeadline {
    /// What both handlers share; touched only on the channel's event loop.
    final class Clock {
        let limit: TimeAmount
        /// Between a response's end (or the connection's start) and the next head.
        var waitingForHead = true
        var deadline: Scheduled<Void>?

        init(limit: TimeAmount) { self.limit = limit }

        func stop() {
            deadline?.cancel()
            deadline = nil
        }
    }

    /// The handlers for one connection.
    static func handlers(limitSeconds: Int64) -> [any RemovableChannelHandler] {
        [Heads(clock: Clock(limit: .seconds(limitSeconds)))]
    }

    /// First in the pipeline: starts the clock at the first byte of a request.
    final class Bytes: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = ByteBuffer
        typealias InboundOut = ByteBuffer
        typealias OutboundOut = ByteBuffer

        let clock: Clock
        init(clock: Clock) { self.clock = clock }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            if clock.waitingForHead && clock.deadline == nil {
                let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
                clock.deadline = context.eventLoop.scheduleTask(in: clock.limit) {
                    let answer = "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"
                    let buffer = loopBound.value.channel.allocator.buffer(string: answer)
                    loopBound.value.writeAndFlush(NIOAny(buffer)).whenComplete { _ in loopBound.value.close(promise: nil) }
                }
            }
            context.fireChannelRead(data)
        }

        func handlerRemoved(context: ChannelHandlerContext) { clock.stop() }
    }

    /// After the HTTP decoder: a whole head stops the clock; a response's end
    /// lets the next request's first byte start it.
    final class Heads: ChannelDuplexHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPRequestPart
        typealias InboundOut = HTTPRequestPart
        typealias OutboundIn = HTTPResponsePart
        typealias OutboundOut = HTTPResponsePart

        let clock: Clock
        init(clock: Clock) { self.clock = clock }

        func handlerAdded(context: ChannelHandlerContext) {
            // Where the bytes are still bytes: before the HTTP decoder.
            try? context.pipeline.syncOperations.addHandler(Bytes(clock: clock), position: .first)
        }

        func handlerRemoved(context: ChannelHandlerContext) { clock.stop() }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            if case .head = unwrapInboundIn(data) {
                clock.waitingForHead = false
                clock.stop()
            }
            context.fireChannelRead(data)
        }

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            if case .end = unwrapOutboundIn(data) { clock.waitingForHead = true }
            context.write(data, promise: promise)
        }
    }
}
