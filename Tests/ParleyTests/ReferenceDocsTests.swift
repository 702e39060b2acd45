import Foundation
import GstKit
import Parley
import ParleyTestSupport
import Testing

/// docs/reference.md is what the elements really produce: the page is
/// generated from the declarations, and the declarations are compared with
/// every message and event real pipelines post, as gst-launch-1.0 prints them.
@Suite struct ReferenceDocsTests {
    let scratch = TestSupport.temporaryFolder()

    @Test func theReferencePageIsCurrent() throws {
        let page = try String(contentsOf: TestSupport.packageRoot.appendingPathComponent("docs/reference.md"), encoding: .utf8)
        #expect(page == ElementDocs.referencePage(), "regenerate it: .build/debug/parley inspect --reference > docs/reference.md")
    }

    @Test func everyMessageAndEventTheElementsPostIsDocumentedFieldByField() async throws {
        let recording = try SpeechFixtures.threeUtterances(in: scratch)
        let closed = ScriptedHTTPServer.closedURL()
        // Every provider chain starts with a server that is not there, so
        // each element posts its fallback messages too.
        let remote = "provider=compatible,local base-url=\(closed)/v1 max-retries=0"
        // The translations' cache is this test's own (gstEnvironment's): one
        // kept from an earlier run (whose closed port was the same) would
        // answer before the chain is asked, and no fallback would be posted.
        let main = try await TestSupport.run("/usr/bin/gst-launch-1.0", [
            "-m", "-v",
            "recordingsrc", "location=\(recording.path)", "pace=false", "!", "vadsegmenter", "level-interval-ms=500", "!",
            "identity", "name=probe_vadsegmenter", "silent=false", "!",
            "cloudstt", remote, "local-engine=pocketsphinx", "!", "tee", "name=heard",
            "heard.", "!", "queue", "!", "sessionrecorder0.transcript_%u",
            "heard.", "!", "queue", "!", "streamtranslator", remote, "target-language=es", "!", "tee", "name=translated",
            "translated.", "!", "queue", "!", "sessionrecorder0.translation_%u",
            "translated.", "!", "queue", "!", "cloudtts", remote, "!", "identity", "name=probe_cloudtts", "silent=false", "!",
            "sessionrecorder0.audio_%u",
            "sessionrecorder", "name=sessionrecorder0", "location=\(scratch.appendingPathComponent("session").path)",
        ].flatMap { $0.split(separator: " ").map(String.init) }, environment: TestSupport.gstEnvironment(registry: scratch))
        #expect(main.status == 0, "\(main.stderr)")
        let marks = try await TestSupport.run("/usr/bin/gst-launch-1.0", [
            "-m", "espeaksrc", "text=Two sentences. Spoken here.", "!", "fakesink",
        ], environment: TestSupport.gstEnvironment(registry: scratch))
        let words = scratch.appendingPathComponent("words.txt")
        try "Two sentences. Spoken here.".write(to: words, atomically: true, encoding: .utf8)
        let tts = try await TestSupport.run("/usr/bin/gst-launch-1.0", [
            "-m", "filesrc", "location=\(words.path)", "!", "text/x-raw,format=utf8", "!", "espeaktts", "!", "fakesink",
        ], environment: TestSupport.gstEnvironment(registry: scratch))
        #expect(tts.status == 0, "\(tts.stderr)")

        // A likely end at every short pause inside the sentences, so that speech withdraws some.
        let resumed = try await TestSupport.run("/usr/bin/gst-launch-1.0", [
            "-v", "recordingsrc", "location=\(recording.path)", "pace=false", "!", "vadsegmenter", "likely-end-ms=60", "!",
            "identity", "name=probe_vadsegmenter", "silent=false", "!", "fakesink",
        ], environment: TestSupport.gstEnvironment(registry: scratch))
        #expect(resumed.status == 0, "\(resumed.stderr)")
        let observed = PostedStructures.messages(in: main.stdout + marks.stdout + tts.stdout)
            + PostedStructures.events(in: main.stdout + resumed.stdout)
        var seen: Set<String> = []
        for posted in observed {
            let factory = posted.element.replacingOccurrences(of: "probe_", with: "").trimmingCharacters(in: .decimalDigits)
            // Events pass through the elements after the one that made them:
            // any element's declaration of the event will do.
            let declared = posted.isEvent
                ? Parley.elementNames.flatMap { ElementDocs.produces($0) }.first { $0.name == posted.name }
                : ElementDocs.produces(factory).first { $0.name == posted.name }
            guard let declared else {
                Issue.record("\(factory) posts \(posted.name), which its documentation does not list")
                continue
            }
            seen.insert("\(posted.isEvent ? "event" : factory) \(posted.name)")
            for (field, type) in posted.fields {
                guard let documented = declared.field(named: field) else {
                    Issue.record("\(factory): \(posted.name) has field \(field), which is not documented")
                    continue
                }
                #expect(documented.type.rawValue == type, "\(factory): \(posted.name) \(field) is \(type), documented \(documented.type.rawValue)")
            }
            for field in declared.fields where field.onlyWhen == nil {
                #expect(posted.fields.contains { $0.name == field.name }, "\(factory): \(posted.name) lacks \(field.name)")
            }
        }
        // Everything documented was seen at least once.
        for name in Parley.elementNames {
            for structure in ElementDocs.produces(name) where structure.kind != .meta {
                let key = structure.kind == .message ? "\(name) \(structure.name)" : "event \(structure.name)"
                #expect(seen.contains(key), "documented but never posted in these runs: \(key)")
            }
        }
    }
}

/// Structures as gst-launch-1.0 prints them: `-m` messages and, with `-v`,
/// the events an `identity silent=false` passes.
enum PostedStructures {
    struct Posted {
        var element: String
        var name: String
        var fields: [(name: String, type: String)]
        var isEvent: Bool
    }

    /// `Got message #12 from element "vadsegmenter0" (element): parley/vad, segment-id=(guint64)0, ...;`
    static func messages(in output: String) -> [Posted] {
        output.split(separator: "\n").compactMap { line -> Posted? in
            guard let range = line.range(of: "from element \""), line.contains("(element): parley/") else { return nil }
            let rest = line[range.upperBound...]
            guard let quote = rest.firstIndex(of: "\""), let body = rest.range(of: "(element): ") else { return nil }
            return parse(String(rest[body.upperBound...]), element: String(rest[..<quote]), isEvent: false)
        }
    }

    /// `.../GstIdentity:probe_x: last-message = event   ******* (probe_x:sink) E (type: custom-downstream (...), parley/speech-start, ...;) 0x...`
    static func events(in output: String) -> [Posted] {
        output.split(separator: "\n").compactMap { line -> Posted? in
            guard line.contains("custom-downstream"), let start = line.range(of: "), parley/"),
                  let element = line.range(of: "GstIdentity:") else { return nil }
            let name = line[element.upperBound...].prefix { $0 != ":" }
            return parse(String(line[line.index(start.lowerBound, offsetBy: 3)...]), element: String(name), isEvent: true)
        }
    }

    /// "name, a=(t)v, b=(string)\"x, y\";" → name and the fields' names and types.
    static func parse(_ text: String, element: String, isEvent: Bool) -> Posted {
        var fields: [(name: String, type: String)] = []
        var characters = Substring(text)
        let name = String(characters.prefix { $0 != "," && $0 != ";" })
        characters = characters.dropFirst(name.count)
        while characters.first == "," {
            characters = characters.dropFirst().drop { $0 == " " }
            let field = characters.prefix { $0 != "=" }
            characters = characters.dropFirst(field.count + 1)
            guard characters.first == "(" else { break }
            let type = characters.dropFirst().prefix { $0 != ")" }
            characters = characters.dropFirst(type.count + 2)
            // The value: quoted (with backslash escapes) or up to the next , or ;
            if characters.first == "\"" {
                var index = characters.index(after: characters.startIndex)
                while index < characters.endIndex && characters[index] != "\"" {
                    if characters[index] == "\\" { index = characters.index(after: index) }
                    index = characters.index(after: index)
                }
                characters = characters[characters.index(after: index)...]
            } else {
                characters = characters.drop { $0 != "," && $0 != ";" }
            }
            fields.append((String(field), String(type)))
        }
        return Posted(element: element, name: name, fields: fields, isEvent: isEvent)
    }
}
