import Foundation
import ParleyCore

/// A position in a pipeline file, 1-based, as compilers print them.
public struct SourcePosition: Sendable, Equatable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }
    public var description: String { "\(line):\(column)" }
}

/// A mistake in a pipeline file, with where it is and what to do about it.
public struct PipelineFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        case syntax, undeclaredVariable, unknownElement, unknownProperty, badValue, unlinkable
    }
    public var kind: Kind
    public var file: String
    public var position: SourcePosition
    public var message: String
    /// The offending source line, for the caret display.
    public var sourceLine: String

    public var description: String {
        let caret = String(repeating: " ", count: max(0, position.column - 1)) + "^"
        return "\(file):\(position): error: \(message)\n    \(sourceLine)\n    \(caret)"
    }
}

/// A declared variable: `#@ var NAME=default  help`.
public struct PipelineVariable: Sendable, Equatable {
    public var name: String
    public var defaultValue: String
    public var help: String
    public init(name: String, defaultValue: String, help: String) {
        self.name = name
        self.defaultValue = defaultValue
        self.help = help
    }
}

/// One token of gst-launch syntax, after comments, continuations and
/// variable substitution, with the place it came from.
public struct LaunchToken: Sendable, Equatable {
    public var text: String
    public var position: SourcePosition
}

/// A `.pipeline` file: gst-launch syntax plus a header.
///
///     #@ description Transcribe a recording into a text file
///     #@ var INPUT=/usr/share/sounds/alsa/Front_Center.wav  The WAV file to read
///     # Ordinary comments run to the end of the line.
///     filesrc location=${INPUT} ! wavparse ! audioconvert \
///         ! fakesink
///
/// `${NAME}` takes its value from `--set NAME=...`, then the environment, then
/// the declared default; a variable that is not declared is an error.
public struct PipelineFile: Sendable {
    public var path: String
    public var description: String
    public var variables: [PipelineVariable]
    /// The body's lines, for error display.
    public var lines: [String]

    public init(path: String) throws(PipelineFileError) {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw PipelineFileError(kind: .syntax, file: path, position: .init(line: 1, column: 1),
                                    message: "cannot read the file: \(error.localizedDescription)", sourceLine: "")
        }
        try self.init(path: path, text: text)
    }

    public init(path: String, text: String) throws(PipelineFileError) {
        self.path = path
        lines = text.components(separatedBy: "\n")
        description = ""
        variables = []
        for (index, line) in lines.enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("#@") else { continue }
            let directive = trimmed.dropFirst(2).trimmingCharacters(in: .whitespaces)
            if directive.hasPrefix("description") {
                description = directive.dropFirst("description".count).trimmingCharacters(in: .whitespaces)
            } else if directive.hasPrefix("var ") {
                variables.append(try parseVariable(String(directive.dropFirst(4)), line: index + 1))
            } else {
                throw error(.syntax, at: SourcePosition(line: index + 1, column: 1),
                            "unknown directive \"#@ \(directive.split(separator: " ").first ?? "")\"; use \"#@ description\" or \"#@ var NAME=default help\"")
            }
        }
    }

    private func parseVariable(_ text: String, line: Int) throws(PipelineFileError) -> PipelineVariable {
        let column = (lines[line - 1].range(of: "var ").map { lines[line - 1].distance(from: lines[line - 1].startIndex, to: $0.upperBound) } ?? 0) + 1
        guard let equals = text.firstIndex(of: "=") else {
            throw error(.syntax, at: .init(line: line, column: column), "a variable needs a default: \"#@ var NAME=default help\"")
        }
        let name = String(text[..<equals]).trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
            throw error(.syntax, at: .init(line: line, column: column), "\"\(name)\" is not a variable name (letters, digits, _)")
        }
        var rest = text[text.index(after: equals)...]
        var value = ""
        if rest.first == "\"" {
            rest = rest.dropFirst()
            guard let close = rest.firstIndex(of: "\"") else {
                throw error(.syntax, at: .init(line: line, column: column), "unterminated quote in the default of \(name)")
            }
            value = String(rest[..<close])
            rest = rest[rest.index(after: close)...]
        } else {
            let end = rest.firstIndex(where: { $0 == " " || $0 == "\t" }) ?? rest.endIndex
            value = String(rest[..<end])
            rest = rest[end...]
        }
        return PipelineVariable(name: name, defaultValue: value, help: rest.trimmingCharacters(in: .whitespaces))
    }

    func error(_ kind: PipelineFileError.Kind, at position: SourcePosition, _ message: String) -> PipelineFileError {
        let line = position.line >= 1 && position.line <= lines.count ? lines[position.line - 1] : ""
        return PipelineFileError(kind: kind, file: path, position: position, message: message, sourceLine: line)
    }

    /// The value each variable takes: `overrides`, then `environment`, then the default.
    public func resolvedVariables(overrides: [String: String],
                                  environment: [String: String] = ProcessInfo.processInfo.environment) -> [String: String] {
        var values: [String: String] = [:]
        for variable in variables {
            values[variable.name] = overrides[variable.name] ?? environment[variable.name] ?? variable.defaultValue
        }
        return values
    }

    /// Tokenizes the body with variables substituted.
    public func tokens(overrides: [String: String] = [:],
                       environment: [String: String] = ProcessInfo.processInfo.environment) throws(PipelineFileError) -> [LaunchToken] {
        for name in overrides.keys where !variables.contains(where: { $0.name == name }) {
            let declared = variables.map(\.name).joined(separator: ", ")
            throw error(.undeclaredVariable, at: .init(line: 1, column: 1),
                        "--set \(name): the file declares no variable \(name)" + (declared.isEmpty ? "" : " (it declares \(declared))"))
        }
        let values = resolvedVariables(overrides: overrides, environment: environment)
        var tokens: [LaunchToken] = []
        var current = ""
        var start: SourcePosition?
        var quote: Character?

        func flush() {
            // A property left empty (`location=${SESSION}` with SESSION empty) is the empty
            // string, said so: a bare `location=` would make gst-launch take the next word.
            if current.hasSuffix("=") { current += "\"\"" }
            if let start, !current.isEmpty { tokens.append(LaunchToken(text: current, position: start)) }
            current = ""
            start = nil
        }

        for (lineIndex, line) in lines.enumerated() {
            let chars = Array(line)
            if quote == nil, line.trimmingCharacters(in: .whitespaces).hasPrefix("#") { continue }
            var index = 0
            while index < chars.count {
                let char = chars[index]
                let position = SourcePosition(line: lineIndex + 1, column: index + 1)
                if char == "$", index + 1 < chars.count, chars[index + 1] == "{" {
                    guard let close = chars[index...].firstIndex(of: "}") else {
                        throw error(.syntax, at: position, "unterminated ${…}")
                    }
                    let name = String(chars[(index + 2)..<close])
                    guard let value = values[name] else {
                        let hint = Suggestions.closest(to: name, in: Array(values.keys)).map { "; did you mean ${\($0)}?" } ?? ""
                        throw error(.undeclaredVariable, at: position,
                                    "variable ${\(name)} is not declared (add \"#@ var \(name)=default help\")\(hint)")
                    }
                    if start == nil { start = position }
                    current += value
                    index = close + 1
                    continue
                }
                if let open = quote {
                    current.append(char)
                    if char == open { quote = nil }
                } else if char == "#" {
                    break  // comment to end of line
                } else if char == "\"" || char == "'" {
                    if start == nil { start = position }
                    quote = char
                    current.append(char)
                } else if char == "\\" && index == chars.count - 1 {
                    break  // line continuation: the newline is whitespace anyway
                } else if char.isWhitespace {
                    flush()
                } else if char == "!" || char == "(" || char == ")" {
                    flush()
                    tokens.append(LaunchToken(text: String(char), position: position))
                } else {
                    if start == nil { start = position }
                    current.append(char)
                }
                index += 1
            }
            if quote == nil { flush() } else { current.append(" ") }
        }
        if quote != nil, let start {
            throw error(.syntax, at: start, "unterminated quote")
        }
        flush()
        if tokens.isEmpty {
            throw error(.syntax, at: .init(line: max(1, lines.count), column: 1), "the file has no pipeline")
        }
        return tokens
    }

    /// The gst-launch description the tokens make.
    public static func launchString(_ tokens: [LaunchToken]) -> String {
        tokens.map(\.text).joined(separator: " ")
    }
}
