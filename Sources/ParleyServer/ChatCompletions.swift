// `POST /v1/chat/completions` over the local engines, so the translator's
// cloud path (and any OpenAI chat client) runs against a real server on
// loopback. It says what it is: a translator when asked to translate, the
// offline assistant otherwise, and names the engine it used in `model`.
//
// Which one (`task(model:instructions:)`): the model `apertium` translates
// and `parley-assistant` answers; any other model (gpt-4o-mini, …) is
// decided by the system (or developer) prompt: one that asks for a
// translation ("translate", "translation", "interpret") or names two
// languages is a translation, anything else, or no prompt, is answered.
//
// A translation's pair comes from the prompt: the first two language names
// it mentions, in order ("... from English to Spanish ..."), are the source
// and target; one name is the target, from English ("Translate into
// French"); with none, English to Spanish. Text already in the target
// language comes back as it is. An answer is LocalAssistant's (the time,
// the date, sums, what was said before: the earlier user messages), in
// English, translated by apertium when the prompt names another language
// ("Answer in Spanish") and a pair is installed.
//
// The last user message is what is translated or answered; a message's
// content is a string or an array of parts (their text parts). With
// `stream=true` the answer is server-sent events in OpenAI's chunk format:
// a role chunk, one content chunk per word, a chunk with `finish_reason:
// "stop"`, a usage chunk when `stream_options.include_usage` is set, then
// `data: [DONE]`.
import ApertiumEngine
import AssistantEngine
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ParleyCore
import Synchronization

final class ChatCompletionsHandler: Sendable {
    let configuration: ServerConfiguration
    private let engines = Mutex<[String: ApertiumTranslator]>([:])

    init(configuration: ServerConfiguration) { self.configuration = configuration }

    func stop() {
        for engine in engines.withLock({ Array($0.values) }) { engine.shutdown() }
    }

    func complete(_ request: Request) async -> Response {
        let data: ByteBuffer
        switch await RequestBody.collect(request, upTo: 1024 * 1024, within: configuration.requestTimeoutSeconds) {
        case .success(let collected): data = collected
        case .failure(.tooLarge): return TranscriptionHandler.error(.contentTooLarge, "The request is larger than 1 MiB.", type: "invalid_request_error")
        case .failure(.tooSlow): return TranscriptionHandler.tooSlow(configuration)
        }
        let chat: ChatRequest
        do {
            chat = try ChatRequest(json: Data(buffer: data))
        } catch {
            return TranscriptionHandler.error(.badRequest, error.message, type: "invalid_request_error", param: "messages")
        }
        let text = chat.text
        let reply: (model: String, text: String)
        switch await answer(text, task: chat.task, earlier: chat.earlier) {
        case .success(let answered): reply = answered
        case .failure(let refused): return refused.response
        }
        let (model, content) = reply
        if configuration.delayMs > 0 || configuration.jitterMs > 0 {
            let jitter = configuration.jitterMs > 0 ? Int.random(in: -configuration.jitterMs...configuration.jitterMs) : 0
            try? await Task.sleep(for: .milliseconds(max(0, configuration.delayMs + jitter)))
        }
        let id = "chatcmpl-parley-\(UInt32.random(in: 0...UInt32.max))"
        let created = Int(Date().timeIntervalSince1970)
        let usage = ["prompt_tokens": text.split(separator: " ").count, "completion_tokens": content.split(separator: " ").count,
                     "total_tokens": text.split(separator: " ").count + content.split(separator: " ").count]
        guard chat.stream else {
            return TranscriptionHandler.json([
                "id": id, "object": "chat.completion", "created": created, "model": model,
                "choices": [["index": 0, "message": ["role": "assistant", "content": content], "finish_reason": "stop"]],
                "usage": usage,
            ])
        }
        var events: [String] = []
        func chunk(_ delta: [String: Any], finish: String?) -> String {
            let object: [String: Any] = [
                "id": id, "object": "chat.completion.chunk", "created": created, "model": model,
                "choices": [["index": 0, "delta": delta, "finish_reason": finish.map { $0 as Any } ?? NSNull()]],
            ]
            let json = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
            return "data: \(String(decoding: json, as: UTF8.self))\n\n"
        }
        events.append(chunk(["role": "assistant", "content": ""], finish: nil))
        for word in Self.words(content) { events.append(chunk(["content": word], finish: nil)) }
        events.append(chunk([:], finish: "stop"))
        if chat.includeUsage {
            let object: [String: Any] = ["id": id, "object": "chat.completion.chunk", "created": created, "model": model,
                                         "choices": [], "usage": usage]
            let json = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
            events.append("data: \(String(decoding: json, as: UTF8.self))\n\n")
        }
        events.append("data: [DONE]\n\n")
        let pieces = events
        return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"],
                        body: ResponseBody { writer in
                            for piece in pieces { try await writer.write(ByteBuffer(string: piece)) }
                            try await writer.finish(nil)
                        })
    }

    /// A request refused, as the response to send: OpenAI's error envelope
    /// (ChatRequest.Refusal is the body's own refusal, before this).
    struct ErrorAnswer: Error {
        let response: Response
    }

    /// The text translated or answered, with the name of the engine that did it.
    func answer(_ text: String, task: ChatRequest.Task, earlier: [String]) async -> Result<(model: String, text: String), ErrorAnswer> {
        switch task {
        case .translate(let source, let target):
            // "From English to English": the text as it is, not a round trip through another language.
            if LanguageTag.isSameLanguage(source, target) { return .success(("apertium", text)) }
            let installed = ApertiumTranslator.installedModes()
            guard let route = ApertiumTranslator.mode(from: source, to: target, installed: installed) else {
                return .failure(ErrorAnswer(response: TranscriptionHandler.error(
                    .badRequest, ApertiumError.noPair(from: source, to: target, installed: installed).description,
                    type: "invalid_request_error", param: "messages")))
            }
            return await translated(text, route: route).map { ("apertium-\(route)", $0) }
        case .answer(let language):
            let english = LocalAssistant(elsewhere: "for anything else, send this request to a language model's API")
                .answer(text, previous: earlier)
            guard !LanguageTag.isSameLanguage(language, "en"),
                  let route = ApertiumTranslator.mode(from: "en", to: language, installed: ApertiumTranslator.installedModes()) else {
                return .success((ChatRequest.assistantModel, english))
            }
            return await translated(english, route: route).map { ("\(ChatRequest.assistantModel)+apertium-\(route)", $0) }
        }
    }

    private func translated(_ text: String, route: String) async -> Result<String, ErrorAnswer> {
        do {
            let engine = try engine(for: route)
            return .success(try await OffPool.run { () throws(ApertiumError) in try engine.translate(text) })
        } catch {
            return .failure(ErrorAnswer(response: TranscriptionHandler.error(.internalServerError, "\(error)", type: "server_error")))
        }
    }

    /// Word-sized pieces that add up to `text` exactly (each keeps its leading space).
    static func words(_ text: String) -> [String] {
        var pieces: [String] = []
        var current = ""
        for character in text {
            if character == " " && !current.isEmpty && current != " " {
                pieces.append(current)
                current = ""
            }
            current.append(character)
        }
        if !current.isEmpty { pieces.append(current) }
        return pieces
    }

    private func engine(for mode: String) throws(ApertiumError) -> ApertiumTranslator {
        if let existing = engines.withLock({ $0[mode] }) { return existing }
        let made = try ApertiumTranslator(mode: mode)
        return engines.withLock { all in
            if let raced = all[mode] { made.shutdown(); return raced }
            all[mode] = made
            return made
        }
    }
}
