import Foundation
import ParleyCore

/// The offline answerer behind `mode=assistant provider=local`: not a
/// language model (none ships in Debian), a handful of intents a voice
/// assistant is asked most, answered exactly, in English:
///
/// - the time ("what time is it") and the date ("what day is it", "what's the date");
/// - sums with two numbers ("what is 12 times 7", "15 divided by 4", "3 plus 4");
/// - what was said before ("what did I say", "repeat that"), from the conversation's context;
/// - a greeting.
///
/// Anything else is answered honestly: what it heard, what it can do
/// offline, and that a chain such as `provider=openai,local` answers the rest.
/// The last provider of an assistant chain, so the conversation goes on
/// when the network or the key does not.
public struct LocalAssistant: Sendable {
    /// What the honest answer says answers the rest (streamtranslator: a
    /// provider chain; `parley serve`: nothing offline).
    public var elsewhere: String

    public init(elsewhere: String = "with a key, provider=openai,local answers the rest") {
        self.elsewhere = elsewhere
    }

    /// Answers every sentence of `text` that asks something it knows, in
    /// order ("What time is it? And what is 12 plus 30?" gets both answers:
    /// a turn often holds more than one question); a greeting only when
    /// nothing else was asked; the honest answer when nothing was, and after
    /// the answers, the questions it could not answer.
    public func answer(_ text: String, previous: [String], now: Date = Date(), timeZone: TimeZone = .current) -> String {
        let sentences = Self.sentences(of: text).map { (text: $0, intent: intent(of: $0)) }
        let intents = sentences.compactMap(\.intent)
        let asked = intents.filter { $0 != .greeting }
        guard !intents.isEmpty else {
            let heard = text.trimmingCharacters(in: .whitespacesAndNewlines)
            return "I heard: \(heard) Offline I can tell the time and the date, do sums and repeat what you said; \(elsewhere)."
        }
        guard !asked.isEmpty else { return "Hello! Ask me the time, the date or a sum." }
        var answers: [String] = []
        for intent in asked {
            let answer: String
            switch intent {
            case .time: answer = "It is \(Self.format(now, "HH:mm", timeZone))."
            case .date: answer = "Today is \(Self.format(now, "EEEE, d MMMM yyyy", timeZone))."
            case .sum(let result): answer = result
            case .repeatLast: answer = previous.last.map { "You said: \($0)" } ?? "You have not said anything before this."
            case .greeting: continue
            }
            // "What's the time? The time, please." is answered once.
            if !answers.contains(answer) { answers.append(answer) }
        }
        let unanswered = sentences.filter { $0.intent == nil && $0.text.hasSuffix("?") }.map(\.text)
        if !unanswered.isEmpty { answers.append("Offline I cannot answer: \(unanswered.joined(separator: " "))") }
        return answers.joined(separator: " ")
    }

    enum Intent: Equatable {
        case time, date, sum(String), repeatLast, greeting
    }

    /// What one sentence asks, if it is something this assistant answers.
    func intent(of sentence: String) -> Intent? {
        let words = sentence.lowercased().split { !$0.isLetter && !$0.isNumber && $0 != "." && $0 != "'" && $0 != "-" }
            .map { String($0).trimmingCharacters(in: CharacterSet(charactersIn: ".")) }.filter { !$0.isEmpty }
        let said = Set(words)
        if said.contains("time") && (said.contains("what") || said.contains("what's") || said.contains("tell")) { return .time }
        if (said.contains("date") || (said.contains("day") && (said.contains("what") || said.contains("what's")))) || said.contains("today") {
            return .date
        }
        if let sum = Self.arithmetic(words) { return .sum(sum) }
        if said.contains("repeat") || (said.contains("say") || said.contains("said")) && said.contains("what") && said.contains("i") {
            return .repeatLast
        }
        if let first = words.first, ["hello", "hi", "hey", "good"].contains(first), words.count <= 4 { return .greeting }
        return nil
    }

    /// The sentences of a transcript: cut after ?, ! and ., but not at a
    /// decimal point ("2.5 times 4") or inside "..." that runs on.
    static func sentences(of text: String) -> [String] {
        var sentences: [String] = [], current = ""
        var characters = text.makeIterator(), pending = characters.next()
        while let character = pending {
            current.append(character)
            pending = characters.next()
            let ends = character == "?" || character == "!" || (character == "." && (pending.map(\.isWhitespace) ?? true))
            if ends {
                let sentence = current.trimmingCharacters(in: .whitespacesAndNewlines)
                if !sentence.isEmpty { sentences.append(sentence) }
                current = ""
            }
        }
        let rest = current.trimmingCharacters(in: .whitespacesAndNewlines)
        if !rest.isEmpty { sentences.append(rest) }
        return sentences
    }

    private static let numberWords = ["zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                                      "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "twenty": 20, "hundred": 100]
    private enum Operation: String { case plus, minus, times, dividedBy = "divided by" }

    /// "a <op> b" with a and b numbers (digits or small number words).
    static func arithmetic(_ words: [String]) -> String? {
        func number(_ word: String) -> Double? { Double(word) ?? numberWords[word].map(Double.init) }
        for (index, word) in words.enumerated() where index > 0 {
            let operation: Operation?
            var next = index + 1
            switch word {
            case "plus", "+": operation = .plus
            case "minus", "-": operation = .minus
            case "times", "x", "*": operation = .times
            case "multiplied": operation = .times; if next < words.count, words[next] == "by" { next += 1 }
            case "divided", "over": operation = .dividedBy; if next < words.count, words[next] == "by" { next += 1 }
            default: operation = nil
            }
            guard let operation, next < words.count, let a = number(words[index - 1]), let b = number(words[next]) else { continue }
            let result: Double
            switch operation {
            case .plus: result = a + b
            case .minus: result = a - b
            case .times: result = a * b
            case .dividedBy:
                guard b != 0 else { return "\(show(a)) divided by zero has no answer." }
                result = a / b
            }
            return "\(show(a)) \(operation.rawValue) \(show(b)) is \(show(result))."
        }
        return nil
    }

    static func show(_ value: Double) -> String {
        if value.rounded() == value && abs(value) < 1e15 { return String(Int64(value)) }
        return String(format: "%.4g", value)
    }

    static func format(_ date: Date, _ pattern: String, _ timeZone: TimeZone) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = timeZone
        formatter.dateFormat = pattern
        return formatter.string(from: date)
    }
}
