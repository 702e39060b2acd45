// `POST /v1/chat/completions` over the local apertium engine, so the
// translator's cloud path (and any OpenAI chat client) runs against a real
// server on loopback.
//
// The pair comes from the system (or developer) prompt: the first two language names it
// mentions, in order ("... from English to Spanish ..."), are the source
// and target; one name is the target, from English ("Translate into
// French"); with none, English to Spanish. Text already in the target
// language comes back as it is. The last user message is
// translated; a message's content is a string or an array of parts (their
// text parts). With `stream=true` the answer is server-sent events in
// OpenAI's chunk format: a role chunk, one content chunk per word, a chunk
// with `finish_reason: "stop"`, a usage chunk when
// `stream_options.include_usage` is set, then `data: [DONE]`.
import ApertiumEngine
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
            return TranscriptionHandler.error(.badRequest, "The last user message has no text to translate.",
                                              type: "invalid_request_error", param: "messages")
        }
        // As streamtranslator bounds a segment's text: one request must not hold the engine for minutes.
        guard text.utf8.count <= Self.maxTextBytes else {
            return TranscriptionHandler.error(.badRequest,
                                              "The last user message is \(text.utf8.count) bytes; at most \(Self.maxTextBytes) are translated in one request.",
                                              type: "invalid_request_error", param: "messages")
        }
        // "developer" is OpenAI's newer name for the system message.
        let named = Self.languages(in: body.messages.first { $0.role == "system" || $0.role == "developer" }?.content ?? "")
        // Two names: from the first into the second; one ("Translate into French"): into it, from English.
        let source = named.count >= 2 ? named[0] : "en", target = named.count >= 2 ? named[1] : (named.first ?? "es")
        let installed = ApertiumTranslator.installedModes()
        let mode: String, translation: String
        if LanguageTag.isSameLanguage(source, target) {
            // "From English to English": the text as it is, not a round trip through another language.
            (mode, translation) = ("none", text)
        } else {
            guard let route = ApertiumTranslator.mode(from: source, to: target, installed: installed) else {
                return TranscriptionHandler.error(.badRequest, ApertiumError.noPair(from: source, to: target, installed: installed).description,
                                                  type: "invalid_request_error", param: "messages")
            }
            mode = route
            do {
                let engine = try engine(for: route)
                translation = try await OffPool.run { () throws(ApertiumError) in try engine.translate(text) }
            } catch {
                return TranscriptionHandler.error(.internalServerError, "\(error)", type: "server_error")
            }
        }
        if configuration.delayMs > 0 || configuration.jitterMs > 0 {
            let jitter = configuration.jitterMs > 0 ? Int.random(in: -configuration.jitterMs...configuration.jitterMs) : 0
            try? await Task.sleep(for: .milliseconds(max(0, configuration.delayMs + jitter)))
        }
        let id = "chatcmpl-parley-\(UInt32.random(in: 0...UInt32.max))"
        let model = body.model ?? "apertium-\(mode)"
        let created = Int(Date().timeIntervalSince1970)
        let usage = ["prompt_tokens": text.split(separator: " ").count, "completion_tokens": translation.split(separator: " ").count,
                     "total_tokens": text.split(separator: " ").count + translation.split(separator: " ").count]
        guard body.stream == true else {
            return TranscriptionHandler.json([
                "id": id, "object": "chat.completion", "created": created, "model": model,
                "choices": [["index": 0, "message": ["role": "assistant", "content": translation], "finish_reason": "stop"]],
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
        for word in Self.words(translation) { events.append(chunk(["content": word], finish: nil)) }
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
