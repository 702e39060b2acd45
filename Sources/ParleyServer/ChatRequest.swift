import Foundation
import ParleyCore

/// A `POST /v1/chat/completions` body as parley serve reads it, checked:
/// untrusted JSON in, the text to translate or answer and what is asked of
/// it out, or a refusal that names what is wrong (the fuzzer's `chat` target
/// feeds it mutants).
public struct ChatRequest: Sendable, Equatable {
    /// What a request asks of the server.
    public enum Task: Sendable, Equatable {
        case translate(from: String, into: String)
        /// Answered by the offline assistant, in this language.
        case answer(in: String)
    }

    public struct Refusal: Error, Sendable {
        public let message: String
    }

    public static let assistantModel = "parley-assistant"
    /// The longest text translated or answered in one request (streamtranslator's own limit).
    public static let maxTextBytes = 16 * 1024

    /// The last user message.
    public var text: String
    /// The user messages before it, oldest first (what "what did I say" repeats).
    public var earlier: [String]
    /// The system (or developer) prompt.
    public var instructions: String
    public var model: String?
    public var stream: Bool
    public var includeUsage: Bool

    /// The model named decides; otherwise the instructions do (ChatCompletions.swift says how).
    public var task: Task { Self.task(model: model, instructions: instructions) }

    public init(json: Data) throws(Refusal) {
        guard let body = try? JSONDecoder().decode(Body.self, from: json) else {
            throw Refusal(message: "The body must be JSON with a messages array of {role, content}.")
        }
        guard let text = body.messages.last(where: { $0.role == "user" })?.content else {
            throw Refusal(message: "No user message to answer.")
        }
        guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw Refusal(message: "The last user message has no text to translate or answer.")
        }
        // As streamtranslator bounds a segment's text: one request must not hold the engine for minutes.
        guard text.utf8.count <= Self.maxTextBytes else {
            throw Refusal(message: "The last user message is \(text.utf8.count) bytes; at most \(Self.maxTextBytes) are translated in one request.")
        }
        self.text = text
        earlier = body.messages.filter { $0.role == "user" }.dropLast().map(\.content)
        // "developer" is OpenAI's newer name for the system message.
        instructions = body.messages.first { $0.role == "system" || $0.role == "developer" }?.content ?? ""
        model = body.model
        stream = body.stream ?? false
        includeUsage = body.stream_options?.include_usage ?? false
    }

    public static func task(model: String?, instructions: String) -> Task {
        let named = languages(in: instructions)
        let lowered = instructions.lowercased()
        let asksForTranslation = ["translat", "interpret"].contains { lowered.contains($0) } || named.count >= 2
        let translate = model == assistantModel ? false : model.map { $0 == "apertium" || $0.hasPrefix("apertium-") } == true || asksForTranslation
        guard translate else { return .answer(in: named.first ?? "en") }
        // Two names: from the first into the second; one ("Translate into French"): into it, from English.
        return named.count >= 2 ? .translate(from: named[0], into: named[1]) : .translate(from: "en", into: named.first ?? "es")
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
            /// A content part; only text parts carry words.
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
}
