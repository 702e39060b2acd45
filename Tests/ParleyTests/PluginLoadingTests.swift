import Foundation
import ParleyTestSupport
import Testing

/// libgstparley.so as GStreamer's own tools and other languages load it.
@Suite struct PluginLoadingTests {
    let scratch = TestSupport.temporaryFolder()

    @Test func gstInspectLoadsThePluginAndDocumentsItsElements() async throws {
        #expect(FileManager.default.fileExists(atPath: TestSupport.pluginFolder + "/libgstparley.so"),
                "run `swift build` first: the plugin is a product of its own")
        let environment = TestSupport.gstEnvironment(registry: scratch)
        let plugin = try await TestSupport.run("/usr/bin/gst-inspect-1.0", ["parley"], environment: environment)
        #expect(plugin.status == 0, "\(plugin.stderr)")
        #expect(plugin.stdout.contains("transcriptsink"))
        let element = try await TestSupport.run("/usr/bin/gst-inspect-1.0", ["transcriptsink"], environment: environment)
        #expect(element.stdout.contains("Sink/Text"))
        #expect(element.stdout.contains("How each result is written"), "property blurbs are shown")
        #expect(element.stdout.contains("gst-launch-1.0"), "the example is part of the docs")
    }

    @Test func gstInspectShowsWhereEachElementIsDocumentedAndWhatItIs() async throws {
        let environment = TestSupport.gstEnvironment(registry: scratch)
        let plugin = try await TestSupport.run("/usr/bin/gst-inspect-1.0", ["parley"], environment: environment)
        #expect(!plugin.stdout.contains(".invalid"), "a real origin: \(plugin.stdout)")
        #expect(plugin.stdout.contains("Origin URL"))
        let names = ["vadsegmenter", "cloudstt", "streamtranslator", "cloudtts", "espeaktts", "espeaksrc", "transcriptsink",
                     "sessionrecorder", "linesplitter", "recordingsrc"]
        for name in names {
            let page = try await TestSupport.run("/usr/bin/gst-inspect-1.0", [name], environment: environment).stdout
            #expect(page.contains("docs/reference.md#\(name)"), "\(name) links its reference section")
        }
        let espeak = try await TestSupport.run("/usr/bin/gst-inspect-1.0", ["espeaktts"], environment: environment).stdout
        #expect(espeak.contains("Audio/Text/Filter"), "a text-to-speech klass, not a decoder's")
        // Instances are named as GStreamer's own: the factory name and a number.
        let launch = try await TestSupport.run("/usr/bin/gst-launch-1.0", ["-v", "espeaksrc", "text=hi", "!", "fakesink"], environment: environment)
        #expect(launch.stdout.contains("GstEspeakSrc:espeaksrc0"), "\(launch.stdout)")
        // Every category is there as soon as the plugin loads, before any element logs.
        let help = try await TestSupport.run("/usr/bin/gst-inspect-1.0", ["--gst-debug-help"], environment: environment).stdout
        for name in names {
            #expect(help.contains(" \(name) ") || help.contains("\(name) "), "--gst-debug-help lists \(name)")
        }
    }

    @Test func gstLaunchShowsAnElementsInfoTextAndItsDebugLog() async throws {
        var environment = TestSupport.gstEnvironment(registry: scratch)
        environment["GST_DEBUG"] = "linesplitter:6"
        environment["GST_DEBUG_NO_COLOR"] = "1"
        let input = scratch.appendingPathComponent("lines.txt")
        try "one\ntwo\n".write(to: input, atomically: true, encoding: .utf8)
        let result = try await TestSupport.run("/usr/bin/gst-launch-1.0", [
            "filesrc", "location=\(input.path)", "!", "text/x-raw,format=utf8", "!", "linesplitter", "!", "fakesink",
        ], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("state change NULL→READY"), "DEBUG: state changes")
        #expect(result.stderr.contains("LOG") && result.stderr.contains("buffer in: pts"), "LOG: each buffer")
        // gst-launch-1.0 prints an INFO message's details only: they carry the text.
        let stt = try await TestSupport.run("/usr/bin/gst-launch-1.0", [
            "audiotestsrc", "num-buffers=1", "!", "audio/x-raw,format=S16LE,channels=1,rate=16000", "!",
            "cloudstt", "local-engine=pocketsphinx", "!", "fakesink",
        ], environment: TestSupport.gstEnvironment(registry: scratch))
        #expect(stt.stdout.contains("provider local (pocketsphinx)"), "\(stt.stdout)")
    }

    @Test func cloudsttsDebugLogNamesEachRequestAndWhyItWasRetriedButNeverTheKey() async throws {
        let key = "sk-debuglog-DoNotPrint0123456789"
        let server = try ScriptedHTTPServer([
            .respond(status: 429, headers: ["Retry-After": "0"], body: #"{"error":{"message":"Rate limit reached for \#(key)"}}"#),
            .respond(status: 200, body: #"{"text":"hello"}"#),
        ])
        defer { server.stop() }
        var environment = TestSupport.gstEnvironment(registry: scratch)
        environment["GST_DEBUG"] = "cloudstt:5"
        environment["GST_DEBUG_NO_COLOR"] = "1"
        environment["PARLEY_TEST_KEY"] = key
        let result = try await TestSupport.run("/usr/bin/gst-launch-1.0", [
            "audiotestsrc", "num-buffers=10", "!", "audio/x-raw,format=S16LE,channels=1,rate=16000", "!",
            "cloudstt", "provider=compatible", "base-url=\(server.url)/v1", "api-key-env=PARLEY_TEST_KEY", "max-segment-ms=1000",
            "!", "fakesink",
        ], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        let log = result.stderr
        #expect(log.contains("POST 127.0.0.1:\(server.port)/v1/audio/transcriptions: attempt 1 of 3"), "\(log)")
        #expect(log.contains("429") && log.contains("retrying in"), "the retry and its cause")
        #expect(log.contains("attempt 2 of 3") && log.contains(": 200,"), "the second attempt and its answer")
        #expect(log.contains("work queued:"), "the queue's depth")
        #expect(!log.contains(key) && !result.stdout.contains(key), "the key never reaches a log")
    }

    @Test func gstLaunchRunsAPipelineWithPropertiesFromTheCommandLine() async throws {
        let input = scratch.appendingPathComponent("in.txt")
        try "hello from gst-launch".write(to: input, atomically: true, encoding: .utf8)
        let output = scratch.appendingPathComponent("out.jsonl")
        let result = try await TestSupport.run("/usr/bin/gst-launch-1.0", [
            "-q", "filesrc", "location=\(input.path)", "!", "text/x-raw,format=utf8", "!",
            "transcriptsink", "location=\(output.path)", "format=jsonl",
        ], environment: TestSupport.gstEnvironment(registry: scratch))
        #expect(result.status == 0, "\(result.stderr)")
        let written = try String(contentsOf: output, encoding: .utf8)
        #expect(written.hasSuffix("\n") && written.split(separator: "\n").count == 1, "one line: \(written)")
        let object = try JSONSerialization.jsonObject(with: Data(written.utf8)) as? [String: Any]
        #expect(object?["text"] as? String == "hello from gst-launch", "\(written)")
    }

    @Test func transcriptsinkWritesWhereLocationPointsAndReplacesNothing() async throws {
        let input = scratch.appendingPathComponent("in.txt")
        try "written in place".write(to: input, atomically: true, encoding: .utf8)
        let target = scratch.appendingPathComponent("target.txt")
        try "old".write(to: target, atomically: true, encoding: .utf8)
        let link = scratch.appendingPathComponent("link.txt")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        let privateFile = scratch.appendingPathComponent("private.txt")
        _ = FileManager.default.createFile(atPath: privateFile.path, contents: nil, attributes: [.posixPermissions: 0o600])
        let hardLink = scratch.appendingPathComponent("hard.txt")
        try FileManager.default.linkItem(at: privateFile, to: hardLink)
        for location in [link.path, privateFile.path, "/dev/null"] {
            let result = try await TestSupport.run("/usr/bin/gst-launch-1.0", [
                "-q", "filesrc", "location=\(input.path)", "!", "text/x-raw,format=utf8", "!", "transcriptsink", "location=\(location)",
            ], environment: TestSupport.gstEnvironment(registry: scratch))
            #expect(result.status == 0, "\(location): \(result.stderr)")
        }
        let manager = FileManager.default
        #expect(try manager.destinationOfSymbolicLink(atPath: link.path) == target.path, "the symlink is still a symlink")
        #expect(try String(contentsOf: target, encoding: .utf8) == "written in place\n", "its target was written")
        #expect(try manager.attributesOfItem(atPath: privateFile.path)[.posixPermissions] as? Int == 0o600, "the mode is kept")
        #expect(try String(contentsOf: hardLink, encoding: .utf8) == "written in place\n", "the hard link still shares the file")
        #expect(try manager.attributesOfItem(atPath: "/dev/null")[.type] as? FileAttributeType == .typeCharacterSpecial)
    }

    @Test func aPythonProgramLoadsThePluginThroughPyGObject() async throws {
        let input = scratch.appendingPathComponent("in.txt")
        try "embedded from Python".write(to: input, atomically: true, encoding: .utf8)
        let output = scratch.appendingPathComponent("out.srt")
        let script = """
            import sys
            import gi
            gi.require_version("Gst", "1.0")
            from gi.repository import Gst
            Gst.init(None)
            pipeline = Gst.parse_launch(
                "filesrc location=\(input.path) ! text/x-raw,format=utf8 ! transcriptsink name=sink format=srt location=\(output.path)")
            pipeline.set_state(Gst.State.PLAYING)
            message = pipeline.get_bus().timed_pop_filtered(10 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
            if message is None or message.type != Gst.MessageType.EOS:
                sys.exit("pipeline did not reach EOS: %s" % (message.parse_error() if message else "timeout"))
            print("written", pipeline.get_by_name("sink").get_property("results-written"))
            pipeline.set_state(Gst.State.NULL)
            """
        let result = try await TestSupport.run("/usr/bin/python3", ["-c", script],
                                               environment: TestSupport.gstEnvironment(registry: scratch))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("written 1"))
        let written = try String(contentsOf: output, encoding: .utf8)
        #expect(written.contains("00:00:00,000 --> "))
        #expect(written.contains("embedded from Python"))
    }

    /// ParleySpeechMeta is GStreamer's custom meta: a program in another
    /// language reads its fields from the buffer by name.
    @Test func aPythonProgramReadsTheSpeechMetaOfEachTranscript() async throws {
        let recording = try SpeechFixtures.threeUtterances(in: scratch)
        let script = """
            import gi
            gi.require_version("Gst", "1.0")
            from gi.repository import Gst
            Gst.init(None)
            pipeline = Gst.parse_launch(
                "filesrc location=\(recording.path) ! wavparse ! audioconvert ! audioresample"
                " ! audio/x-raw,format=S16LE,channels=1,rate=16000 ! vadsegmenter ! cloudstt local-engine=pocketsphinx"
                " ! appsink name=sink sync=false")
            sink = pipeline.get_by_name("sink")
            pipeline.set_state(Gst.State.PLAYING)
            while True:
                sample = sink.emit("pull-sample")
                if sample is None:
                    break
                meta = sample.get_buffer().get_custom_meta("ParleySpeechMeta").get_structure()
                print(meta.get_value("segment-id"), meta.get_value("status"), meta.get_value("language"),
                      meta.get_value("provider"), meta.has_field("stamp-request-sent"), meta.has_field("stamp-result-complete"))
            pipeline.set_state(Gst.State.NULL)
            """
        let result = try await TestSupport.run("/usr/bin/python3", ["-c", script],
                                               environment: TestSupport.gstEnvironment(registry: scratch))
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines == (0..<3).map { "\($0) final en local (pocketsphinx) True True" }, "\(result.stdout)")
    }

    @Test func thePythonExampleTranscribesARecordingWhoseNameHasSpaces() async throws {
        let recording = try SpeechFixtures.threeUtterances(in: scratch)
        let awkward = scratch.appendingPathComponent("my talk's.wav")
        try FileManager.default.copyItem(atPath: recording.path, toPath: awkward.path)
        let example = TestSupport.packageRoot.appendingPathComponent("Examples/python/transcribe.py").path
        let environment = TestSupport.gstEnvironment(registry: scratch)
        let result = try await TestSupport.run("/usr/bin/python3", [example, awkward.path, "--engine", "pocketsphinx"],
                                               environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("segment ") }.count == 3, "\(result.stdout)")
        #expect(lines.filter { $0.hasPrefix("transcript ") }.count == 3, "\(result.stdout)")
        #expect(result.stdout.contains("rather selfish"), "real words: \(result.stdout)")
        let missing = try await TestSupport.run("/usr/bin/python3", [example, "/nonexistent.wav"], environment: environment)
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("no such recording: /nonexistent.wav"))
    }
}
