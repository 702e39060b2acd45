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
    /// Not a place in the file: a mistake in the file as a whole (it cannot be
    /// read) or on the command line (a `--set` it does not declare).
    public static let wholeFile = SourcePosition(line: 0, column: 0)
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
    /// The header's other mistakes, after this first one: a file's header is
    /// read to its end, so all of them are reported at once.
    public var alsoFound: [PipelineFileError] = []

    /// This mistake and those found with it.
    public var all: [PipelineFileError] {
        var first = self
        first.alsoFound = []
        return [first] + alsoFound
    }

    /// Compiler style: `file:line:column: error: message`, the line, a caret
    /// (for each mistake found); `file: error: message` for the file as a
    /// whole, and no line or caret where the line is empty.
    public var description: String {
        all.map { error in
            let place = error.position == .wholeFile ? "" : ":\(error.position)"
            let heading = "\(error.file)\(place): error: \(error.message)"
            guard !error.sourceLine.isEmpty else { return heading }
            let caret = String(repeating: " ", count: max(0, error.position.column - 1)) + "^"
            return "\(heading)\n    \(error.sourceLine)\n    \(caret)"
        }.joined(separator: "\n")
    }
}

/// A declared variable: `#@ var NAME=default  help`, or a fragment of
/// pipeline: `#@ fragment NAME="default elements"  help`.
public struct PipelineVariable: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// A value: it always lands inside the one token it is written in
        /// (quoted when it needs to be), so it can never add elements.
        case value
        /// Elements in gst-launch syntax (`filesrc location=a.wav ! wavparse`),
        /// written alone where elements go: how a file lets its source and
        /// sink be replaced (`SOURCE` and `SINK` by convention; `parley bench`
        /// replaces those two).
        case fragment
    }
    public var name: String
    public var defaultValue: String
    public var help: String
    public var kind: Kind
    public init(name: String, defaultValue: String, help: String, kind: Kind = .value) {
        self.name = name
        self.defaultValue = defaultValue
        self.help = help
        self.kind = kind
    }
}

/// Lines repeated once per item of a comma-separated variable:
///
///     #@ var TARGETS=es,ca  Listener languages
///     #@ each LANG in TARGETS
///     heard. ! queue ! streamtranslator target-language=${LANG} ! room.translation_%u
///     #@ end
///
/// Inside, `${LANG}` is the item and `${LANG_INDEX}` its position (0, 1, …),
/// for unique element names.
public struct PipelineLoop: Sendable, Equatable {
    public var name: String
    public var list: String
    /// 0-based indices of the first and last repeated line.
    public var body: ClosedRange<Int>
    public init(name: String, list: String, body: ClosedRange<Int>) {
        self.name = name
        self.list = list
        self.body = body
    }
}

/// Lines kept or left out by whether a value variable is set:
///
///     #@ var INPUT=  A recording instead of the microphone
///     #@ if INPUT
///     filesrc location=${INPUT} ! decodebin
///     #@ else
///     ${SOURCE}
///     #@ end
///       ! audioconvert ! …
///
/// The first lines when `NAME` is not empty, the `else` lines (if any)
/// when it is. Conditions and loops do not nest.
public struct PipelineCondition: Sendable, Equatable {
    public var name: String
    /// 0-based indices of the lines taken when the variable is set, and of
    /// those taken when it is empty (nil where there are none).
    public var whenSet: ClosedRange<Int>?
    public var whenEmpty: ClosedRange<Int>?
    public init(name: String, whenSet: ClosedRange<Int>?, whenEmpty: ClosedRange<Int>?) {
        self.name = name
        self.whenSet = whenSet
        self.whenEmpty = whenEmpty
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
    public var loops: [PipelineLoop]
    public var conditions: [PipelineCondition]
    /// The body's lines, for error display.
    public var lines: [String]

    public init(path: String) throws(PipelineFileError) {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw PipelineFileError(kind: .syntax, file: path, position: .wholeFile,
                                    message: "cannot read the file: \(error.localizedDescription)", sourceLine: "")
        }
        try self.init(path: path, text: text)
    }

    public init(path: String, text: String) throws(PipelineFileError) {
        self.path = path
        lines = text.components(separatedBy: "\n")
        description = ""
        variables = []
        loops = []
        conditions = []
        var open: OpenBlock?
        var problems: [PipelineFileError] = []
        for (index, line) in lines.enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("#@") else { continue }
            do throws(PipelineFileError) {
                try readDirective(trimmed, index: index, open: &open)
            } catch {
                problems.append(error)
            }
        }
        if let open {
            problems.append(error(.syntax, at: .init(line: open.line + 1, column: 1), "\"#@ \(open.opening)\" has no \"#@ end\""))
        }
        if var first = problems.first {
            first.alsoFound = Array(problems.dropFirst())
            throw first
        }
    }

    /// A loop or a condition whose `#@ end` has not come yet.
    private struct OpenBlock {
        enum Kind { case loop(list: String), condition(elseLine: Int?) }
        var kind: Kind
        var name: String
        /// 0-based index of its `#@ each` or `#@ if` line.
        var line: Int
        var opening: String {
            switch kind {
            case .loop: "each \(name)"
            case .condition: "if \(name)"
            }
        }
    }

    /// One `#@` line of the header.
    private mutating func readDirective(_ trimmed: String, index: Int, open: inout OpenBlock?) throws(PipelineFileError) {
        let directive = trimmed.dropFirst(2).trimmingCharacters(in: .whitespaces)
        let here = SourcePosition(line: index + 1, column: 1)
        if directive.hasPrefix("description") {
            description = directive.dropFirst("description".count).trimmingCharacters(in: .whitespaces)
        } else if directive.hasPrefix("var ") {
            try declare(try parseVariable(String(directive.dropFirst(4)), line: index + 1, kind: .value), at: here)
        } else if directive.hasPrefix("fragment ") {
            try declare(try parseVariable(String(directive.dropFirst(9)), line: index + 1, kind: .fragment), at: here)
        } else if directive.hasPrefix("each ") {
            let words = directive.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            guard words.count == 4, words[2] == "in", Self.isName(words[1]), Self.isName(words[3]) else {
                throw error(.syntax, at: here, "write a loop as \"#@ each NAME in LIST\", LIST a declared variable of comma-separated items")
            }
            if let open { throw error(.syntax, at: here, "blocks do not nest: close \"#@ \(open.opening)\" above with \"#@ end\" first") }
            guard variables.contains(where: { $0.name == words[3] && $0.kind == .value }) else {
                throw error(.undeclaredVariable, at: here, "\(words[3]) is not declared above (\"#@ var \(words[3])=a,b help\")")
            }
            guard !variables.contains(where: { $0.name == words[1] }) else {
                throw error(.syntax, at: here, "the loop's name \(words[1]) is already a declared variable")
            }
            open = OpenBlock(kind: .loop(list: words[3]), name: words[1], line: index)
        } else if directive.hasPrefix("if ") {
            let words = directive.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            guard words.count == 2, Self.isName(words[1]) else {
                throw error(.syntax, at: here, "write a condition as \"#@ if NAME\", NAME a declared variable: its lines are used when it is not empty")
            }
            if let open { throw error(.syntax, at: here, "blocks do not nest: close \"#@ \(open.opening)\" above with \"#@ end\" first") }
            guard variables.contains(where: { $0.name == words[1] && $0.kind == .value }) else {
                throw error(.undeclaredVariable, at: here, "\(words[1]) is not declared above (\"#@ var \(words[1])= help\")")
            }
            open = OpenBlock(kind: .condition(elseLine: nil), name: words[1], line: index)
        } else if directive == "else" {
            guard let block = open, case .condition(nil) = block.kind else {
                throw error(.syntax, at: here, "\"#@ else\" belongs between \"#@ if NAME\" and \"#@ end\", once")
            }
            open?.kind = .condition(elseLine: index)
        } else if directive == "end" {
            guard let block = open else { throw error(.syntax, at: here, "\"#@ end\" with no \"#@ each\" or \"#@ if\" above") }
            switch block.kind {
            case .loop(let list):
                if index > block.line + 1 {
                    loops.append(PipelineLoop(name: block.name, list: list, body: (block.line + 1)...(index - 1)))
                }
            case .condition(let elseLine):
                let thenEnd = (elseLine ?? index) - 1
                conditions.append(PipelineCondition(
                    name: block.name,
                    whenSet: thenEnd > block.line ? (block.line + 1)...thenEnd : nil,
                    whenEmpty: elseLine.flatMap { $0 + 1 < index ? ($0 + 1)...(index - 1) : nil }))
            }
            open = nil
        } else {
            throw error(.syntax, at: here,
                        "unknown directive \"#@ \(directive.split(separator: " ").first ?? "")\"; use \"#@ description\", \"#@ var NAME=default help\", \"#@ fragment NAME=\"elements\" help\", \"#@ each NAME in LIST\" … \"#@ end\" or \"#@ if NAME\" … \"#@ else\" … \"#@ end\"")
        }
    }

    private mutating func declare(_ variable: PipelineVariable, at position: SourcePosition) throws(PipelineFileError) {
        guard !variables.contains(where: { $0.name == variable.name }) else {
            throw error(.syntax, at: position, "\(variable.name) is declared twice")
        }
        variables.append(variable)
    }

    static func isName(_ text: String) -> Bool {
        !text.isEmpty && text.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
    }

    private func parseVariable(_ text: String, line: Int, kind: PipelineVariable.Kind) throws(PipelineFileError) -> PipelineVariable {
        let column = (lines[line - 1].range(of: kind == .value ? "var " : "fragment ").map { lines[line - 1].distance(from: lines[line - 1].startIndex, to: $0.upperBound) } ?? 0) + 1
        guard let equals = text.firstIndex(of: "=") else {
            throw error(.syntax, at: .init(line: line, column: column), "a variable needs a default: \"#@ var NAME=default help\"")
        }
        let name = String(text[..<equals]).trimmingCharacters(in: .whitespaces)
        guard Self.isName(name) else {
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
        return PipelineVariable(name: name, defaultValue: value, help: rest.trimmingCharacters(in: .whitespaces), kind: kind)
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

    /// Tokenizes the body with variables substituted and loops unrolled.
    public func tokens(overrides: [String: String] = [:],
                       environment: [String: String] = ProcessInfo.processInfo.environment) throws(PipelineFileError) -> [LaunchToken] {
        for name in overrides.keys where !variables.contains(where: { $0.name == name }) {
            let names = variables.map(\.name)
            let hint = Suggestions.closest(to: name, in: names).map { "; did you mean \($0)?" } ?? ""
            throw error(.undeclaredVariable, at: .wholeFile,
                        "--set \(name): the file declares no variable \(name)\(hint)"
                            + (names.isEmpty ? "" : " (it declares \(names.joined(separator: ", ")))"))
        }
        let values = resolvedVariables(overrides: overrides, environment: environment)
        var scanner = LaunchScanner()
        // Every undeclared variable is reported, not just the first: each is
        // read as empty so the scan goes on.
        var undeclared: [PipelineFileError] = []
        for (lineIndex, bindings) in unrolledLines(values) {
            let line = lines[lineIndex]
            if !scanner.inQuote, line.trimmingCharacters(in: .whitespaces).hasPrefix("#") { continue }
            try scanner.scanLine(Array(line), line: lineIndex + 1) { (name, position) throws(PipelineFileError) in
                if let bound = bindings[name] { return .value(bound) }
                guard let variable = variables.first(where: { $0.name == name }), let value = values[name] else {
                    let known = Array(values.keys) + Array(bindings.keys)
                    let hint = Suggestions.closest(to: name, in: known).map { "; did you mean ${\($0)}?" } ?? ""
                    if !undeclared.contains(where: { $0.position == position }) {
                        undeclared.append(error(.undeclaredVariable, at: position,
                                                "variable ${\(name)} is not declared (add \"#@ var \(name)=default help\")\(hint)"))
                    }
                    return .value("")
                }
                return variable.kind == .fragment ? .fragment(value) : .value(value)
            } onError: { position, message in error(.syntax, at: position, message) }
        }
        let tokens = try scanner.finish { position, message in
            error(.syntax, at: position ?? .init(line: max(1, lines.count), column: 1), message)
        }
        if var first = undeclared.first {
            first.alsoFound = Array(undeclared.dropFirst())
            throw first
        }
        return tokens
    }

    /// Every body line in order, loop bodies once per item, with the loop
    /// variables each repetition binds; of a condition's lines, only the
    /// branch its variable takes.
    private func unrolledLines(_ values: [String: String]) -> [(Int, [String: String])] {
        var result: [(Int, [String: String])] = []
        var left = Set<Int>()
        for condition in conditions {
            let set = !(values[condition.name] ?? "").isEmpty
            if let lines = set ? condition.whenEmpty : condition.whenSet { left.formUnion(lines) }
        }
        var index = 0
        while index < lines.count {
            if left.contains(index) {
                index += 1
                continue
            }
            guard let loop = loops.first(where: { $0.body.lowerBound == index }) else {
                result.append((index, [:]))
                index += 1
                continue
            }
            let items = (values[loop.list] ?? "").split(separator: ",")
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            for (position, item) in items.enumerated() {
                for line in loop.body { result.append((line, [loop.name: item, loop.name + "_INDEX": String(position)])) }
            }
            index = loop.body.upperBound + 1
        }
        return result
    }

    /// The gst-launch description the tokens make.
    public static func launchString(_ tokens: [LaunchToken]) -> String {
        tokens.map(\.text).joined(separator: " ")
    }
}
