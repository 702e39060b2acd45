import Foundation
import ParleyCore
import Synchronization

/// `POST {base}/chat/completions` with `stream=true`, as OpenAI, any
/// compatible server and `parley serve` take it: the system prompt, the
/// context pairs as earlier user/assistant turns, then the text. The answer
/// is read as server-sent events while it arrives.
struct ChatCompletionsTranslator: RemoteTranslator {
    var provider: String
    var service: RemoteService
    var model: String

    var name: String { "\(provider) (\(service.host))" }

    func translate(_ request: TranslationRequest,
                   onPartial: @escaping @Sendable (String) -> Void) async throws(ProviderFailure) -> Translation {
        var messages: [[String: String]] = [["role": "system", "content": request.systemPrompt]]
        for pair in request.context {
            messages.append(["role": "user", "content": pair.source])
            messages.append(["role": "assistant", "content": pair.result])
        }
        messages.append(["role": "user", "content": request.text])
        let body: [String: Any] = [
            "model": model, "stream": true, "stream_options": ["include_usage": true],
            "temperature": request.temperature, "messages": messages,
        ]
        var headers: [(name: String, value: String)] = [("Content-Type", "application/json"), ("Accept", "text/event-stream")]
        if !service.apiKey.isEmpty { headers.append(("Authorization", "Bearer \(service.apiKey)")) }
        var http = HTTPRequest(method: "POST", url: service.root + "/chat/completions", headers: headers,
                               body: try? JSONSerialization.data(withJSONObject: body))
        http.timeout = service.timeout
        http.maxResponseBytes = HTTPRequest.maxTextResponseBytes
        let stream = ChatStream()
        let sentAt = MonotonicClock.nanoseconds()
        let response: HTTPResponse, attempts: Int
        do throws(RetryingSender.Failure) {
            (response, attempts) = try await service.sender.send(http) { chunk in
                for partial in stream.feed(chunk) { onPartial(partial) }
            }
        } catch {
            throw ProviderFailure(ProviderError.scrubbed(error.error, key: service.apiKey), attempts: error.attempts)
        }
        _ = stream.feed(Data([10, 10]))  // a last event without its blank line
        let outcome = stream.outcome
        if let message = outcome.error {
            // An error event inside the stream: the provider's words, scrubbed like an error body's.
            throw ProviderFailure(ProviderError.scrubbed(.server(status: response.status, message: message), key: service.apiKey),
                                  attempts: attempts)
        }
        guard outcome.sawContent || outcome.finishReason != nil else {
            throw ProviderFailure(.decoding("the answer had no chat completion chunks"), attempts: attempts)
        }
        return Translation(text: outcome.text, finishReason: outcome.finishReason ?? .stop, attempts: attempts,
                           firstTokenAt: outcome.firstTokenAt.map { max($0, sentAt) })
    }

    func shutdown() {}
}

/// One streamed chat completion: `choices[0].delta.content` pieces add up
/// to the text; a role chunk starts a stream (and, after a retry, retracts
/// the broken attempt's text); a usage chunk has no choices; `[DONE]` ends;
/// an `error` payload or `event: error` is an error.
final class ChatStream: Sendable {
    struct Outcome: Sendable {
        var text = ""
        var finishReason: FinishReason?
        var error: String?
        var sawContent = false
        var firstTokenAt: UInt64?
        var done = false
    }

    private struct State {
        var parser = SSEParser()
        var outcome = Outcome()
    }

    private let state = Mutex(State())

    var outcome: Outcome { state.withLock { $0.outcome } }

    /// Feeds bytes; returns the partial texts to show, in order ("" retracts):
    /// the text as it stands after these bytes, once, however many tokens
    /// they held (a copy per token made a long answer quadratic).
    func feed(_ bytes: Data) -> [String] {
        state.withLock { state in
            var partials: [String] = []
            var grew = false
            for event in state.parser.feed(bytes) {
                if event.name == "error" {
                    state.outcome.error = Self.errorMessage(event.data) ?? String(event.data.prefix(500))
                    continue
                }
                if event.data == "[DONE]" { state.outcome.done = true; continue }
                guard let chunk = try? JSONDecoder().decode(Chunk.self, from: Data(event.data.utf8)) else { continue }
                if let error = chunk.error {
                    state.outcome.error = error.message ?? "the provider sent an error"
                    continue
                }
                guard let choice = chunk.choices?.first else { continue }  // the usage chunk
                if choice.delta?.role != nil && state.outcome.sawContent {
                    // A new stream after a broken one: what was shown is withdrawn.
                    if grew { partials.append(state.outcome.text) }
                    grew = false
                    state.outcome = Outcome()
                    partials.append("")
                }
                if let content = choice.delta?.content, !content.isEmpty {
                    if state.outcome.firstTokenAt == nil { state.outcome.firstTokenAt = MonotonicClock.nanoseconds() }
                    state.outcome.text += content
                    state.outcome.sawContent = true
                    grew = true
                }
                switch choice.finish_reason {
                case "length": state.outcome.finishReason = .length
                case "content_filter": state.outcome.finishReason = .contentFilter
                case .some: state.outcome.finishReason = .stop
                case nil: break
                }
            }
            if grew { partials.append(state.outcome.text) }
            return partials
        }
    }

    private static func errorMessage(_ data: String) -> String? {
        (try? JSONDecoder().decode(Chunk.self, from: Data(data.utf8)))?.error?.message
    }

    struct Chunk: Decodable {
        struct Choice: Decodable {
            struct Delta: Decodable {
                var role: String?
                var content: String?
            }
            var delta: Delta?
            var finish_reason: String?
        }
        struct ErrorBody: Decodable { var message: String? }
        var choices: [Choice]?
        var error: ErrorBody?
    }
}
