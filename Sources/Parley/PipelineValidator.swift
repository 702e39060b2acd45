import GstKit
import ParleyCore

/// Checks a pipeline file against the GStreamer registry without running it:
/// every element exists, every property exists and takes its value, and
/// every link has caps in common. Errors point at file:line:column.
public struct PipelineValidator {
    public init() { Parley.initialize() }

    /// All the errors found (empty when the file is good), each once: a loop's
    /// lines are checked once per item, and a mistake that every repetition
    /// makes alike (a misspelled element) is one mistake at one place. One
    /// that differs by item (a value written with `${LANG}`) names its value,
    /// so each repetition that makes it is kept. The lines a condition leaves
    /// out are checked too, with its variable flipped (an empty one set to
    /// "1"): mistakes found on those lines are added.
    public func validate(_ file: PipelineFile, overrides: [String: String] = [:],
                         environment: [String: String] = ProcessInfo.processInfo.environment) -> [PipelineFileError] {
        var errors = validateTaken(file, overrides: overrides, environment: environment)
        let values = file.resolvedVariables(overrides: overrides, environment: environment)
        for condition in file.conditions {
            let isSet = !(values[condition.name] ?? "").isEmpty
            guard let leftOut = isSet ? condition.whenEmpty : condition.whenSet else { continue }
            var flipped = overrides
            flipped[condition.name] = isSet ? "" : "1"
            for error in validateTaken(file, overrides: flipped, environment: environment)
            where leftOut.contains(error.position.line - 1) && !errors.contains(error) {
                errors.append(error)
            }
        }
        return errors
    }

    /// The errors of the lines the variables' values select.
    private func validateTaken(_ file: PipelineFile, overrides: [String: String],
                               environment: [String: String]) -> [PipelineFileError] {
        let tokens: [LaunchToken]
        do {
            tokens = try file.tokens(overrides: overrides, environment: environment)
        } catch {
            return error.all
        }
        var errors: [PipelineFileError] = []
        var current: (factory: ElementFactory, element: Element, token: LaunchToken)?
        var upstream: (factory: ElementFactory, token: LaunchToken)?
        var filter: Caps?
        var linkPending = false
        // After an element that does not exist its properties cannot be checked.
        var skippingProperties = false
        // Each element made, with the properties the file sets on it, for the
        // checks of its settings taken together once all are read.
        var made: [(token: LaunchToken, given: [String: String])] = []

        for token in tokens {
            let text = token.text
            if text == "!" {
                linkPending = true
                if let current { upstream = (current.factory, current.token) }
                continue
            }
            if text == "(" || text == ")" {
                // Bins: links across their borders are resolved by gst_parse.
                upstream = nil
                current = nil
                linkPending = false
                continue
            }
            if let equals = text.firstIndex(of: "="), !isCaps(text) {
                let key = String(text[..<equals])
                let value = unquote(String(text[text.index(after: equals)...]))
                guard let current else {
                    if skippingProperties { continue }
                    errors.append(file.error(.syntax, at: token.position, "property \"\(key)\" comes before any element"))
                    continue
                }
                if let problem = checkProperty(current.element, factoryName: current.token.text, key: key, value: value) {
                    errors.append(file.error(problem.kind, at: token.position, problem.message))
                } else {
                    made[made.count - 1].given[key] = value
                }
                continue
            }
            if isCaps(text) {
                guard let caps = Caps(unquote(text)) else {
                    errors.append(file.error(.badValue, at: token.position, "\"\(text)\" is not valid caps"))
                    continue
                }
                filter = caps
                continue
            }
            if isReference(text) {
                current = nil
                upstream = nil
                linkPending = false
                filter = nil
                continue
            }
            // An element.
            guard let factory = ElementFactory(named: text) else {
                let names = ElementFactory.allNames
                let hint = Suggestions.closest(to: text, in: names).map { "; did you mean \"\($0)\"?" } ?? ""
                errors.append(file.error(.unknownElement, at: token.position, "no element \"\(text)\"\(hint)"))
                current = nil
                upstream = nil
                skippingProperties = true
                continue
            }
            guard let element = factory.makeElement(named: "parley-validate") else {
                errors.append(file.error(.unknownElement, at: token.position, "element \"\(text)\" could not be created"))
                current = nil
                continue
            }
            if linkPending, let upstream, !upstream.factory.canLink(to: factory, filter: filter) {
                let via = filter.map { " through \($0)" } ?? ""
                errors.append(file.error(.unlinkable, at: token.position,
                    "cannot link \"\(upstream.token.text)\" to \"\(text)\"\(via): no caps in common (\(Self.templateSummary(upstream.factory, .src)) → \(Self.templateSummary(factory, .sink)))"))
            }
            current = (factory, element, token)
            made.append((token, [:]))
            skippingProperties = false
            linkPending = false
            filter = nil
        }
        for (token, given) in made {
            if let problem = Parley.settingsProblem(factory: token.text, given: given) {
                errors.append(file.error(.badValue, at: token.position, "\(token.text): \(problem)"))
            }
        }
        return errors.reduce(into: []) { kept, error in
            if !kept.contains(error) { kept.append(error) }
        }
    }

    private func isCaps(_ text: String) -> Bool {
        let head = unquote(text).prefix { $0 != "," && $0 != "=" && $0 != " " }
        return head.contains("/")
    }

    private func isReference(_ text: String) -> Bool {
        !text.contains("=") && !text.contains("/") && text.contains(".")
    }

    /// The text gst_parse_launch makes of a quoted value: quotes off, `\x` → `x`.
    private func unquote(_ text: String) -> String {
        guard text.count >= 2, text.first == "\"", text.last == "\"" else { return text }
        var out = ""
        var escaped = false
        for char in text.dropFirst().dropLast() {
            if !escaped, char == "\\" { escaped = true; continue }
            escaped = false
            out.append(char)
        }
        return out
    }

    struct Problem {
        var kind: PipelineFileError.Kind
        var message: String
    }

    private func checkProperty(_ element: Element, factoryName: String, key: String, value: String) -> Problem? {
        do throws(PropertyValueProblem) {
            try element.checkProperty(key, value: value)
            if let problem = Parley.propertySpec(factory: factoryName, name: key)?.check?(value) {
                return Problem(kind: .badValue, message: "\(factoryName): \(problem)")
            }
            return nil
        } catch {
            switch error {
            case .noSuchProperty:
                let hint = Suggestions.closest(to: key, in: element.propertyNames).map { "; did you mean \"\($0)\"?" } ?? ""
                return Problem(kind: .unknownProperty, message: "element \"\(factoryName)\" has no property \"\(key)\"\(hint)")
            case .notParseable(let typeName):
                return Problem(kind: .badValue, message: "\"\(value)\" is not a valid \(typeName) for \(factoryName).\(key)\(Self.allowed(element.paramInfo(key)?.range))")
            case .outOfRange:
                return Problem(kind: .badValue, message: "\(value) is out of range for \(factoryName).\(key)\(Self.allowed(element.paramInfo(key)?.range))")
            }
        }
    }

    /// " (allowed: 0 to 100)" or " (one of: a, b)" where GStreamer can tell.
    private static func allowed(_ range: ParamRange?) -> String {
        switch range {
        case .numeric(let minimum, let maximum): " (allowed: \(minimum) to \(maximum))"
        case .oneOf(let nicks): " (one of: \(nicks.joined(separator: ", ")))"
        case nil: ""
        }
    }

    static func templateSummary(_ factory: ElementFactory, _ direction: PadDirection) -> String {
        let caps = factory.templateCaps(direction)
        if caps.isEmpty { return "no \(direction == .src ? "src" : "sink") pad" }
        return caps.map { String($0.description.prefix(60)) }.joined(separator: " | ")
    }
}

import Foundation
