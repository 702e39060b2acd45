/// What a `${NAME}` stands for.
enum Substitution {
    /// Data: it joins the token it is written in, quoted if it has to be.
    case value(String)
    /// Elements: scanned as gst-launch syntax where it stands.
    case fragment(String)
}

/// Splits gst-launch syntax into tokens, line by line, keeping where each
/// token came from. Comments (`#` to the end of a line) and continuations
/// (`\` at the end) are whitespace; `!`, `(` and `)` are tokens of their own.
///
/// A variable's value can never change the pipeline's shape: an unquoted
/// token that takes a value holding anything but `[A-Za-z0-9_.,:/+@%~=-]`
/// has its value part (after the first `=`) wrapped in double quotes, and
/// inside quotes the value's quote and `\` characters are escaped, which
/// `gst_parse_launch` undoes. So `INPUT=/tmp/my clip.wav`
/// stays one location, and `a.wav ! fakesink …` is a strange file name, not
/// two more elements.
struct LaunchScanner {
    private(set) var tokens: [LaunchToken] = []
    private var current = ""
    private var start: SourcePosition?
    private var quote: Character?
    /// The token took a value that is only data once quoted.
    private var quoteAtFlush = false

    var inQuote: Bool { quote != nil }

    typealias Resolve = (String, SourcePosition) throws(PipelineFileError) -> Substitution
    typealias MakeError = (SourcePosition, String) -> PipelineFileError

    mutating func scanLine(_ chars: [Character], line: Int, resolve: Resolve, onError: MakeError) throws(PipelineFileError) {
        var index = 0
        while index < chars.count {
            let char = chars[index]
            let position = SourcePosition(line: line, column: index + 1)
            if char == "$", index + 1 < chars.count, chars[index + 1] == "{" {
                guard let close = chars[index...].firstIndex(of: "}") else { throw onError(position, "unterminated ${…}") }
                let name = String(chars[(index + 2)..<close])
                switch try resolve(name, position) {
                case .value(let value):
                    if start == nil { start = position }
                    if let quote {
                        current += Self.escape(value, quote: quote)
                    } else {
                        current += value
                        if !value.allSatisfy({ Self.safe.contains($0) }) { quoteAtFlush = true }
                    }
                case .fragment(let text):
                    guard current.isEmpty, quote == nil else {
                        throw onError(position, "${\(name)} is a fragment of pipeline: write it alone, where elements go")
                    }
                    try scanFragment(Array(text), name: name, at: position, onError: onError)
                }
                index = close + 1
                continue
            }
            if let open = quote {
                index = takeQuoted(chars, at: index, closing: open)
                continue
            } else if char == "#" {
                break  // comment to end of line
            } else if char == "\\" && index == chars.count - 1 {
                break  // continuation: the newline is whitespace anyway
            } else {
                take(char, at: position)
            }
            index += 1
        }
        if quote == nil { flush() } else { current.append(" ") }
    }

    /// A fragment's elements, every token placed where `${NAME}` is written.
    private mutating func scanFragment(_ chars: [Character], name: String, at position: SourcePosition,
                                       onError: MakeError) throws(PipelineFileError) {
        var index = 0
        while index < chars.count {
            let char = chars[index]
            if let open = quote {
                index = takeQuoted(chars, at: index, closing: open)
                continue
            } else if char == "$", index + 1 < chars.count, chars[index + 1] == "{" {
                throw onError(position, "the value of ${\(name)} uses a variable; a fragment is plain gst-launch syntax")
            } else {
                take(char, at: position)
            }
            index += 1
        }
        guard quote == nil else { throw onError(position, "the value of ${\(name)} has an unterminated quote") }
        flush()
    }

    /// Inside a quote: the character at `index` (with the one a backslash
    /// escapes), closing the quote at `open`; returns the next index.
    private mutating func takeQuoted(_ chars: [Character], at index: Int, closing open: Character) -> Int {
        let char = chars[index]
        current.append(char)
        if char == "\\", index + 1 < chars.count {
            current.append(chars[index + 1])
            return index + 2
        }
        if char == open { quote = nil }
        return index + 1
    }

    private mutating func take(_ char: Character, at position: SourcePosition) {
        if char == "\"" {  // gst_parse_launch knows double quotes only
            if start == nil { start = position }
            quote = char
            current.append(char)
        } else if char.isWhitespace {
            flush()
        } else if char == "!" || char == "(" || char == ")" {
            flush()
            tokens.append(LaunchToken(text: String(char), position: position))
        } else {
            if start == nil { start = position }
            current.append(char)
        }
    }

    private mutating func flush() {
        // A property left empty (`location=${SESSION}` with SESSION empty) is the empty
        // string, said so: a bare `location=` would make gst-launch take the next word.
        if current.hasSuffix("=") { current += "\"\"" }
        if quoteAtFlush {
            if let equals = current.firstIndex(of: "=") {
                current = current[...equals] + "\"" + Self.escape(String(current[current.index(after: equals)...]), quote: "\"") + "\""
            } else {
                current = "\"" + Self.escape(current, quote: "\"") + "\""
            }
            quoteAtFlush = false
        }
        if let start, !current.isEmpty { tokens.append(LaunchToken(text: current, position: start)) }
        current = ""
        start = nil
    }

    mutating func finish(onError: (SourcePosition?, String) -> PipelineFileError) throws(PipelineFileError) -> [LaunchToken] {
        if quote != nil { throw onError(start, "unterminated quote") }
        flush()
        if tokens.isEmpty { throw onError(nil, "the file has no pipeline") }
        return tokens
    }

    private static let safe = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.,:/+@%~=-")

    private static func escape(_ value: String, quote: Character) -> String {
        var out = ""
        for char in value {
            if char == "\\" || char == quote { out.append("\\") }
            out.append(char)
        }
        return out
    }
}
