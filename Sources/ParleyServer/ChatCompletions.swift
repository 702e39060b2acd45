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

    /// Language codes in the order a prompt names them ("English", "Spanish").
    static func languages(in prompt: String) -> [String] {
        let lowered = prompt.lowercased()
        let found = LanguageNames.allNames.compactMap { name -> (String.Index, String)? in
            guard let range = lowered.range(of: name) else { return nil }
            return (range.lowerBound, LanguageNames.code(name))
        }
        return found.sorted { $0.0 < $1.0 }.map(\.1)
    }

    private struct Body: Decodable {
        struct Message: Decodable {
            var role: String
            var content: String

            enum CodingKeys: String, CodingKey { case role, content }
            /// A content part; only text parts carry words to translate.
            struct Part: Decodable { var type: String; var text: String? }

            /// `content` is a string, or (as OpenAI takes it too) an array of
            /// parts whose text parts are joined; null (an assistant's tool call) is empty.
            init(from decoder: Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                role = try container.decode(String.self, forKey: .role)
                if let text = try? container.decode(String.self, forKey: .content) {
                    content = text
                } else if let parts = try? container.decode([Part].self, forKey: .content) {
                    content = parts.filter { $0.type == "text" }.compactMap(\.text).joined(separator: " ")
                } else if try container.decodeNil(forKey: .content) {
                    content = ""
                } else {
                    throw DecodingError.dataCorruptedError(forKey: .content, in: container,
                                                           debugDescription: "content must be a string or an array of parts")
                }
            }
        }
        struct StreamOptions: Decodable { var include_usage: Bool? }
        var model: String?
        var messages: [Message]
        var stream: Bool?
        var stream_options: StreamOptions?
    }

    /// The longest text translated in one request (streamtranslator's own limit).
    static let maxTextBytes = 16 * 1024

    func complete(_ request: Request) async -> Response {
        let data: ByteBuffer
        switch await RequestBody.collect(request, upTo: 1024 * 1024, within: configuration.requestTimeoutSeconds) {
        case .success(let collected): data = collected
        case .failure(.tooLarge): return TranscriptionHandler.error(.contentTooLarge, "The request is larger than 1 MiB.", type: "invalid_request_error")
        case .failure(.tooSlow): return TranscriptionHandler.tooSlow(configuration)
        }
        guard let body = try? JSONDecoder().decode(Body.self, from: Data(buffer: data)) else {
            return TranscriptionHandler.error(.badRequest, "The body must be JSON with a messages array of {role, content}.",
                                              type: "invalid_request_error", param: "messages")
        }
        guard let text = body.messages.last(where: { $0.role == "user" })?.content else {
            return TranscriptionHandler.error(.badRequest, "No user message to answer.", type: "invalid_request_error", param: "messages")
        }
        guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            return TranscriptionHandler.error(.badRequest, "The last user message has no text to translate or answer.",
                                              type: "invalid_request_error", param: "messages")
        }
        // As streamtranslator bounds a segment's text: one request must not hold the engine for minutes.
        guard text.utf8.count <= Self.maxTextBytes else {
            return TranscriptionHandler.error(.badRequest,
                                              "The last user message is \(text.utf8.count) bytes; at most \(Self.maxTextBytes) are translated in one request.",
                                              type: "invalid_request_error", param: "messages")
        }
        // "developer" is OpenAI's newer name for the system message.
        let instructions = body.messages.first { $0.role == "system" || $0.role == "developer" }?.content ?? ""
        let earlier = body.messages.filter { $0.role == "user" }.dropLast().map(\.content)
        let reply: (model: String, text: String)
        switch await answer(text, task: Self.task(model: body.model, instructions: instructions), earlier: earlier) {
        case .success(let answered): reply = answered
        case .failure(let refusal): return refusal.response
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
        guard body.stream == true else {
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
        if body.stream_options?.include_usage == true {
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

    /// What a request asks of the server.
    enum ChatTask: Equatable {
        case translate(from: String, into: String)
        /// Answered by the offline assistant, in this language.
        case answer(in: String)
    }

    static let assistantModel = "parley-assistant"

    /// The model named decides; otherwise the instructions do (see the top of this file).
    static func task(model: String?, instructions: String) -> ChatTask {
        let named = languages(in: instructions)
        let lowered = instructions.lowercased()
        let asksForTranslation = ["translat", "interpret"].contains { lowered.contains($0) } || named.count >= 2
        let translate = model == assistantModel ? false : model.map { $0 == "apertium" || $0.hasPrefix("apertium-") } == true || asksForTranslation
        guard translate else { return .answer(in: named.first ?? "en") }
        // Two names: from the first into the second; one ("Translate into French"): into it, from English.
        return named.count >= 2 ? .translate(from: named[0], into: named[1]) : .translate(from: "en", into: named.first ?? "es")
    }

    /// A request refused with OpenAI's error envelope.
    struct Refusal: Error {
        let response: Response
    }

    /// The text translated or answered, with the name of the engine that did it.
    func answer(_ text: String, task: ChatTask, earlier: [String]) async -> Result<(model: String, text: String), Refusal> {
        switch task {
        case .translate(let source, let target):
            // "From English to English": the text as it is, not a round trip through another language.
            if LanguageTag.isSameLanguage(source, target) { return .success(("apertium", text)) }
            let installed = ApertiumTranslator.installedModes()
            guard let route = ApertiumTranslator.mode(from: source, to: target, installed: installed) else {
                return .failure(Refusal(response: TranscriptionHandler.error(
                    .badRequest, ApertiumError.noPair(from: source, to: target, installed: installed).description,
                    type: "invalid_request_error", param: "messages")))
            }
            return await translated(text, route: route).map { ("apertium-\(route)", $0) }
        case .answer(let language):
            let english = LocalAssistant(elsewhere: "for anything else, send this request to a language model's API")
                .answer(text, previous: earlier)
            guard !LanguageTag.isSameLanguage(language, "en"),
                  let route = ApertiumTranslator.mode(from: "en", to: language, installed: ApertiumTranslator.installedModes()) else {
                return .success((Self.assistantModel, english))
            }
            return await translated(english, route: route).map { ("\(Self.assistantModel)+apertium-\(route)", $0) }
        }
    }

    private func translated(_ text: String, route: String) async -> Result<String, Refusal> {
        do {
            let engine = try engine(for: route)
            return .success(try await OffPool.run { () throws(ApertiumError) in try engine.translate(text) })
        } catch {
            return .failure(Refusal(response: TranscriptionHandler.error(.internalServerError, "\(error)", type: "server_error")))
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
