import CGStreamer
import GstBridge
import GstKit
import ParleyCore

/// Checks a pipeline file against the GStreamer registry without running it:
/// every element exists, every property exists and takes its value, and
/// every link has caps in common. Errors point at file:line:column.
public struct PipelineValidator {
    public init() { Parley.initialize() }

    /// All the errors found (empty when the file is good).
    public func validate(_ file: PipelineFile, overrides: [String: String] = [:],
                         environment: [String: String] = ProcessInfo.processInfo.environment) -> [PipelineFileError] {
        let tokens: [LaunchToken]
        do {
            tokens = try file.tokens(overrides: overrides, environment: environment)
        } catch {
            return [error]
        }
        var errors: [PipelineFileError] = []
        var current: (factory: OpaquePointer, element: UnsafeMutablePointer<GstElement>, token: LaunchToken)?
        var upstream: (factory: OpaquePointer, token: LaunchToken)?
        var filter: Caps?
        var linkPending = false
        // After an element that does not exist its properties cannot be checked.
        var skippingProperties = false
        // Elements and factories are kept until the end: `current` and `upstream` point at them.
        var created: [UnsafeMutablePointer<GstElement>] = []
        var factories: [OpaquePointer] = []
        defer {
            for element in created { gst_object_unref(UnsafeMutableRawPointer(element)) }
            for factory in factories { gst_object_unref(UnsafeMutableRawPointer(factory)) }
        }

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
            guard let factory = gst_element_factory_find(text) else {
                let names = Self.elementNames()
                let hint = Suggestions.closest(to: text, in: names).map { "; did you mean \"\($0)\"?" } ?? ""
                errors.append(file.error(.unknownElement, at: token.position, "no element \"\(text)\"\(hint)"))
                current = nil
                upstream = nil
                skippingProperties = true
                continue
            }
            let factoryPointer = factory
            factories.append(factory)
            guard let element = gst_element_factory_create(factory, nil) else {
                errors.append(file.error(.unknownElement, at: token.position, "element \"\(text)\" could not be created"))
                current = nil
                continue
            }
            gst_object_ref_sink(UnsafeMutableRawPointer(element))
            created.append(element)
            if linkPending, let upstream, !Self.canLink(upstream.factory, factoryPointer, filter: filter) {
                let via = filter.map { " through \($0)" } ?? ""
                errors.append(file.error(.unlinkable, at: token.position,
                    "cannot link \"\(upstream.token.text)\" to \"\(text)\"\(via): no caps in common (\(Self.templateSummary(upstream.factory, GST_PAD_SRC)) → \(Self.templateSummary(factoryPointer, GST_PAD_SINK)))"))
            }
            current = (factoryPointer, element, token)
            skippingProperties = false
            linkPending = false
            filter = nil
        }
        return errors
    }

    private func isCaps(_ text: String) -> Bool {
        let head = unquote(text).prefix { $0 != "," && $0 != "=" && $0 != " " }
        return head.contains("/")
    }

    private func isReference(_ text: String) -> Bool {
        !text.contains("=") && !text.contains("/") && text.contains(".")
    }

    private func unquote(_ text: String) -> String {
        if text.count >= 2, let first = text.first, first == "\"" || first == "'", text.last == first {
            return String(text.dropFirst().dropLast())
        }
        return text
    }

    struct Problem {
        var kind: PipelineFileError.Kind
        var message: String
    }

    private func checkProperty(_ element: UnsafeMutablePointer<GstElement>, factoryName: String,
                               key: String, value: String) -> Problem? {
        guard let spec = findProperty(UnsafeMutableRawPointer(element), key) else {
            let names = Self.propertyNames(element)
            let hint = Suggestions.closest(to: key, in: names).map { "; did you mean \"\($0)\"?" } ?? ""
            return Problem(kind: .unknownProperty, message: "element \"\(factoryName)\" has no property \"\(key)\"\(hint)")
        }
        var gvalue = GValue()
        g_value_init(&gvalue, spec.pointee.value_type)
        defer { g_value_unset(&gvalue) }
        let typeName = String(cString: g_type_name(spec.pointee.value_type))
        guard gst_value_deserialize_with_pspec(&gvalue, value, spec) != 0 else {
            return Problem(kind: .badValue, message: "\"\(value)\" is not a valid \(typeName) for \(factoryName).\(key)\(Self.allowed(spec))")
        }
        if g_param_value_validate(spec, &gvalue) != 0 {
            return Problem(kind: .badValue, message: "\(value) is out of range for \(factoryName).\(key)\(Self.allowed(spec))")
        }
        return nil
    }

    /// " (allowed: 0 to 100)" or " (one of: a, b)" where GStreamer can tell.
    private static func allowed(_ spec: UnsafeMutablePointer<GParamSpec>) -> String {
        switch ParamSpecRange(spec) {
        case .numeric(let minimum, let maximum): " (allowed: \(minimum) to \(maximum))"
        case .oneOf(let nicks): " (one of: \(nicks.joined(separator: ", ")))"
        case nil: ""
        }
    }

    static func elementNames() -> [String] {
        let list = gst_registry_get_feature_list(gst_registry_get(), gst_element_factory_get_type())
        defer { gst_plugin_feature_list_free(list) }
        var names: [String] = []
        var node = list
        while let current = node {
            names.append(String(cString: parley_object_name(current.pointee.data)))
            node = current.pointee.next
        }
        return names
    }

    static func propertyNames(_ element: UnsafeMutablePointer<GstElement>) -> [String] {
        let object = UnsafeMutableRawPointer(element).assumingMemoryBound(to: GObject.self)
        let klass = UnsafeMutableRawPointer(object.pointee.g_type_instance.g_class!).assumingMemoryBound(to: GObjectClass.self)
        var count: guint = 0
        guard let specs = g_object_class_list_properties(klass, &count) else { return [] }
        defer { g_free(specs) }
        return (0..<Int(count)).map { String(cString: specs[$0]!.pointee.name) }
    }

    static func templateCaps(_ factory: OpaquePointer, _ direction: GstPadDirection) -> [Caps] {
        var caps: [Caps] = []
        var node = gst_element_factory_get_static_pad_templates(factory)
        while let current = node {
            let template = current.pointee.data.assumingMemoryBound(to: GstStaticPadTemplate.self)
            if template.pointee.direction == direction, let templateCaps = gst_static_pad_template_get_caps(template) {
                caps.append(Caps(taking: templateCaps))
            }
            node = UnsafePointer(current.pointee.next)
        }
        return caps
    }

    static func templateSummary(_ factory: OpaquePointer, _ direction: GstPadDirection) -> String {
        let caps = templateCaps(factory, direction)
        if caps.isEmpty { return "no \(direction == GST_PAD_SRC ? "src" : "sink") pad" }
        return caps.map { String($0.description.prefix(60)) }.joined(separator: " | ")
    }

    static func canLink(_ upstream: OpaquePointer, _ downstream: OpaquePointer, filter: Caps?) -> Bool {
        let sources = templateCaps(upstream, GST_PAD_SRC)
        let sinks = templateCaps(downstream, GST_PAD_SINK)
        for source in sources {
            for sink in sinks {
                guard let common = gst_caps_intersect(source.pointer, sink.pointer) else { continue }
                let both = Caps(taking: common)
                if let filter {
                    if both.canIntersect(filter) { return true }
                } else if gst_caps_is_empty(both.pointer) == 0 {
                    return true
                }
            }
        }
        return false
    }
}

import Foundation
