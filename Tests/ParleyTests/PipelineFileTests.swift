import Foundation
import Parley
import GstKit
import Testing

@Suite struct PipelineFileTests {
    let header = """
        #@ description Say something and save it
        #@ var WORDS="hello world"  What to say
        #@ var OUT=out.txt  Where the transcript goes

        """

    func file(_ body: String) throws -> PipelineFile {
        try PipelineFile(path: "test.pipeline", text: header + body)
    }

    func errors(_ body: String, set: [String: String] = [:]) throws -> [PipelineFileError] {
        PipelineValidator().validate(try file(body), overrides: set, environment: [:])
    }

    @Test func headerDeclaresDescriptionAndVariables() throws {
        let parsed = try file("fakesrc ! fakesink")
        #expect(parsed.description == "Say something and save it")
        #expect(parsed.variables == [
            PipelineVariable(name: "WORDS", defaultValue: "hello world", help: "What to say"),
            PipelineVariable(name: "OUT", defaultValue: "out.txt", help: "Where the transcript goes"),
        ])
    }

    @Test func commentsAndContinuationsAreWhitespace() throws {
        let tokens = try file("""
            fakesrc num-buffers=3 # three buffers \\
              ! fakesink   # the end
            # a comment line with ! and = in it
            """).tokens(environment: [:])
        #expect(PipelineFile.launchString(tokens) == "fakesrc num-buffers=3 ! fakesink")
        #expect(tokens[2].position == SourcePosition(line: 5, column: 3))
    }

    @Test func variablesComeFromSetThenEnvironmentThenDefault() throws {
        let parsed = try file("filesink location=${OUT}")
        let byDefault = try parsed.tokens(environment: [:])
        #expect(byDefault.last?.text == "location=out.txt")
        let byEnvironment = try parsed.tokens(environment: ["OUT": "env.txt"])
        #expect(byEnvironment.last?.text == "location=env.txt")
        let bySet = try parsed.tokens(overrides: ["OUT": "set.txt"], environment: ["OUT": "env.txt"])
        #expect(bySet.last?.text == "location=set.txt")
        let empty = try parsed.tokens(overrides: ["OUT": ""], environment: [:])
        #expect(empty.last?.text == "location=\"\"", "an empty value stays this property's, not the next word's")
    }

    @Test func aGoodFileHasNoErrors() throws {
        #expect(try errors("audiotestsrc num-buffers=2 wave=silence ! audio/x-raw,rate=16000 ! audioconvert ! fakesink sync=false").isEmpty)
    }

    @Test func unknownElementSaysWhereAndSuggests() throws {
        let found = try errors("audiotestsrc ! audioconvrt ! fakesink")
        #expect(found.count == 1)
        #expect(found[0].kind == .unknownElement)
        #expect(found[0].position == SourcePosition(line: 4, column: 16))
        #expect(found[0].message.contains("did you mean \"audioconvert\""))
        #expect(found[0].description.hasPrefix("test.pipeline:4:16: error:"))
    }

    @Test func unknownPropertySuggestsTheNearOne() throws {
        let found = try errors("fakesrc num-bufers=3 ! fakesink")
        #expect(found.map(\.kind) == [.unknownProperty])
        #expect(found[0].position == SourcePosition(line: 4, column: 9))
        #expect(found[0].message.contains("did you mean \"num-buffers\""))
    }

    @Test func valuesOfTheWrongTypeOrOutOfRangeAreRejected() throws {
        let found = try errors("audiotestsrc wave=loud volume=11 ! fakesink sync=maybe")
        #expect(found.map(\.kind) == [.badValue, .badValue, .badValue])
        #expect(found[0].message.contains("one of: sine"))
        #expect(found[1].message.contains("out of range"))
        #expect(found[1].message.contains("allowed: 0.0 to 1.0"))
        #expect(found[2].position == SourcePosition(line: 4, column: 45))
    }

    @Test func valuesTheElementWouldRefuseAtStartAreFoundBeforeIt() throws {
        // Strings GObject takes, that the element's own rule refuses when it starts.
        let found = try errors("fdsrc ! text/x-raw,format=utf8 ! streamtranslator target-language=english provider=local,opnai ! cloudtts provider=elevenlab ! fakesink")
        #expect(found.map(\.kind) == [.badValue, .badValue, .badValue], "\(found)")
        #expect(found[0].position == SourcePosition(line: 4, column: 51))
        #expect(found[0].message.contains("streamtranslator: target-language 'english' is not a BCP-47 language tag"))
        #expect(found[1].message.contains("provider has \"opnai\" at position 2 of \"local,opnai\" (did you mean openai?)"))
        #expect(found[2].message.contains("cloudtts: provider has \"elevenlab\" at position 1") && found[2].message.contains("did you mean elevenlabs?"))
        #expect(try errors("fdsrc ! text/x-raw,format=utf8 ! streamtranslator target-language=pt-BR provider=openai,local ! fakesink").isEmpty)
        let stt = try errors("fakesrc ! cloudstt language=english ! fakesink")
        #expect(stt.map(\.kind) == [.badValue] && stt[0].message.contains("cloudstt: language 'english'"), "\(stt)")
        #expect(try errors("fakesrc ! cloudstt language= ! fakesink").isEmpty, "empty: Whisper detects it")
    }

    @Test func aChainsListsLongerThanItsProvidersAreFoundBeforeItRuns() throws {
        let audio = "audiotestsrc ! audio/x-raw,format=S16LE,channels=1,rate=16000 ! "
        // What dictation's groq,local with model=whisper-large-v3, became when only the chain was set to local.
        let found = try errors(audio + "cloudstt provider=local model=whisper-large-v3, ! fakesink")
        #expect(found.map(\.kind) == [.badValue])
        #expect(found.first?.position == SourcePosition(line: 4, column: 65), "at the element: \(found)")
        #expect(found.first?.message.hasPrefix("cloudstt: model has 2 comma-separated entries but provider names 1") == true, "\(found)")
        let voices = try errors("fakesrc ! text/x-raw,format=utf8 ! cloudtts provider=local voice=alloy,es ! fakesink")
        #expect(voices.map(\.message) == ["cloudtts: voice has 2 comma-separated entries but provider names 1: give one per provider, in order (an empty entry keeps that provider's default)"])
        #expect(try errors(audio + "cloudstt provider=groq,local model=whisper-large-v3, ! fakesink").isEmpty)
        #expect(try errors("fakesrc ! text/x-raw,format=utf8 ! streamtranslator provider=openai,local base-url=http://127.0.0.1:9/v1 ! fakesink").isEmpty,
                "a shorter list leaves the rest at their defaults")
    }

    @Test func undeclaredVariablesAreErrors() throws {
        let found = try errors("filesink location=${OUTPUT}")
        #expect(found.map(\.kind) == [.undeclaredVariable])
        #expect(found[0].position == SourcePosition(line: 4, column: 19))
        #expect(found[0].message.contains("did you mean ${OUT}"))
        let fromSet = try errors("fakesrc ! fakesink", set: ["OUTT": "1"])
        #expect(fromSet.map(\.kind) == [.undeclaredVariable])
        // The command line's mistake, not a line of the file's: no line or caret shown.
        #expect(fromSet.first?.description
                == "test.pipeline: error: --set OUTT: the file declares no variable OUTT; did you mean OUT? (it declares WORDS, OUT)")
        let several = try errors("filesrc location=${IN} ! fakesink name=${NAME}\nfakesrc ! filesink location=${OTU}")
        #expect(several.map(\.position) == [SourcePosition(line: 4, column: 18), SourcePosition(line: 4, column: 40),
                                             SourcePosition(line: 5, column: 29)], "every one, not only the first: \(several)")
    }

    @Test func everyMistakeOfTheHeaderIsReportedAtOnce() throws {
        let text = "#@ description bad\n#@ var X=1  a\n#@ var X=2  b\n#@ bogus\n#@ each L in NOPE\nfakesrc ! fakesink\n"
        do {
            _ = try PipelineFile(path: "h.pipeline", text: text)
            Issue.record("the header has three mistakes")
        } catch {
            #expect(error.all.map(\.position.line) == [3, 4, 5], "\(error.all)")
            #expect(error.all.map(\.kind) == [.syntax, .syntax, .undeclaredVariable])
            #expect(error.description.components(separatedBy: ": error: ").count == 4, "three compiler-style lines: \(error.description)")
        }
    }

    @Test func aFileThatCannotBeReadOrHasNoPipelineSaysSoInOneLine() throws {
        do {
            _ = try PipelineFile(path: "/nonexistent/missing.pipeline")
            Issue.record("the file does not exist")
        } catch {
            #expect(error.description.hasPrefix("/nonexistent/missing.pipeline: error: cannot read the file"), "\(error)")
            #expect(!error.description.contains("\n"), "no empty source line or lone caret: \(error)")
        }
        let empty = try PipelineFile(path: "e.pipeline", text: "#@ var A=1  x\n\n")
        do {
            _ = try empty.tokens(environment: [:])
            Issue.record("the file has no pipeline")
        } catch {
            #expect(error.description == "e.pipeline:3:1: error: the file has no pipeline")
        }
    }

    @Test func padsWithNoCapsInCommonCannotLink() throws {
        let found = try errors("audiotestsrc ! transcriptsink")
        #expect(found.map(\.kind) == [.unlinkable])
        #expect(found[0].position == SourcePosition(line: 4, column: 16))
        let throughCaps = try errors("audiotestsrc ! video/x-raw ! fakesink")
        #expect(throughCaps.map(\.kind) == [.unlinkable])
    }

    @Test func syntaxErrorsHavePositions() throws {
        let found = try errors("fakesrc ! fakesink name=\"open")
        #expect(found.map(\.kind) == [.syntax])
        #expect(found[0].position == SourcePosition(line: 4, column: 20))
        #expect(throws: PipelineFileError.self) {
            try PipelineFile(path: "x.pipeline", text: "#@ bogus directive\nfakesrc ! fakesink")
        }
    }

    @Test func aValueIsAlwaysDataNeverElements() throws {
        let parsed = try file("filesrc location=${OUT} ! fakesink")
        let spaced = try parsed.tokens(overrides: ["OUT": "/tmp/my clip.wav"], environment: [:])
        #expect(PipelineFile.launchString(spaced) == #"filesrc location="/tmp/my clip.wav" ! fakesink"#)
        let hostile = try parsed.tokens(overrides: ["OUT": #"a.wav ! fakesink  fakesrc ! filesink location="/tmp/x" \"#], environment: [:])
        #expect(hostile.count == 4, "the value stays in its token: \(hostile.map(\.text))")
        #expect(hostile[1].text == #"location="a.wav ! fakesink  fakesrc ! filesink location=\"/tmp/x\" \\""#)
        // What GStreamer makes of it: one filesrc whose location is the whole value.
        let pipeline = try Pipeline(launch: PipelineFile.launchString(hostile))
        #expect(pipeline.elements(factory: "filesrc").first?.property("location")?.string
                == #"a.wav ! fakesink  fakesrc ! filesink location="/tmp/x" \"#)
        #expect(pipeline.elements(factory: "fakesrc").isEmpty)
        // Inside quotes a value's quotes are escaped.
        let quoted = try file(#"fakesrc ! fakesink name="sink ${OUT}""#).tokens(overrides: ["OUT": #"a" b"#], environment: [:])
        #expect(quoted.last?.text == #"name="sink a\" b""#)
    }

    @Test func aFragmentIsElementsWrittenAlone() throws {
        let text = """
            #@ fragment SOURCE="audiotestsrc num-buffers=2 ! audioconvert"  The input
            #@ var RATE=16000  Rate
            ${SOURCE} ! audio/x-raw,rate=${RATE} ! fakesink
            """
        let parsed = try PipelineFile(path: "f.pipeline", text: text)
        #expect(parsed.variables.first == PipelineVariable(name: "SOURCE", defaultValue: "audiotestsrc num-buffers=2 ! audioconvert",
                                                           help: "The input", kind: .fragment))
        let tokens = try parsed.tokens(environment: [:])
        #expect(PipelineFile.launchString(tokens) == "audiotestsrc num-buffers=2 ! audioconvert ! audio/x-raw,rate=16000 ! fakesink")
        #expect(tokens.first?.position == SourcePosition(line: 3, column: 1), "a fragment's tokens point at where it is written")
        let replaced = try parsed.tokens(overrides: ["SOURCE": #"filesrc location="/tmp/a b.wav" ! wavparse"#], environment: [:])
        #expect(PipelineFile.launchString(replaced) == #"filesrc location="/tmp/a b.wav" ! wavparse ! audio/x-raw,rate=16000 ! fakesink"#)
        #expect(PipelineValidator().validate(parsed, environment: [:]).isEmpty)
        // Glued to other text it is an error, with its place.
        let glued = try PipelineFile(path: "g.pipeline", text: "#@ fragment SINK=fakesink  Out\nfakesrc ! x${SINK}")
        #expect(throws: PipelineFileError.self) { try glued.tokens(environment: [:]) }
    }

    @Test func aLoopRepeatsItsLinesPerItem() throws {
        let text = """
            #@ var TARGETS=es,ca  Listener languages
            fakesrc ! tee name=heard
            #@ each LANG in TARGETS
            heard. ! queue name=q_${LANG_INDEX} ! fakesink name=to_${LANG}
            #@ end
            """
        let parsed = try PipelineFile(path: "l.pipeline", text: text)
        #expect(parsed.loops == [PipelineLoop(name: "LANG", list: "TARGETS", body: 3...3)])
        let launch = PipelineFile.launchString(try parsed.tokens(overrides: ["TARGETS": "es, fr,it"], environment: [:]))
        #expect(launch == "fakesrc ! tee name=heard heard. ! queue name=q_0 ! fakesink name=to_es "
                + "heard. ! queue name=q_1 ! fakesink name=to_fr heard. ! queue name=q_2 ! fakesink name=to_it")
        #expect(PipelineValidator().validate(parsed, environment: [:]).isEmpty)
        // A mistake in the loop's lines is reported once, not once per item;
        // one that depends on the item is reported for each item that makes it.
        let misspelled = try PipelineFile(path: "m.pipeline", text: text.replacingOccurrences(of: "fakesink name", with: "fakesnk name"))
        let once = PipelineValidator().validate(misspelled, overrides: ["TARGETS": "es,fr,it"], environment: [:])
        #expect(once.map(\.message) == [#"no element "fakesnk"; did you mean "fakesink"?"#])
        let byItem = try PipelineFile(path: "v.pipeline", text: text.replacingOccurrences(of: "queue name", with: "queue max-size-buffers=${LANG} name"))
        let each = PipelineValidator().validate(byItem, overrides: ["TARGETS": "es,fr"], environment: [:])
        #expect(each.count == 2 && each.allSatisfy { $0.kind == .badValue && $0.position.line == 4 }, "\(each)")
        for bad in ["#@ each LANG in NOPE\nfakesrc ! fakesink\n#@ end",
                    "#@ var L=a  x\n#@ each X in L\nfakesrc ! fakesink",
                    "#@ end\nfakesrc ! fakesink"] {
            #expect(throws: PipelineFileError.self, "\(bad)") { try PipelineFile(path: "b.pipeline", text: bad) }
        }
    }

    @Test func aConditionKeepsTheLinesItsVariableSelects() throws {
        let text = """
            #@ var INPUT=  A recording instead of the default source
            #@ fragment SOURCE="audiotestsrc"  Where sound comes from
            #@ if INPUT
            filesrc location=${INPUT} ! decodebin
            #@ else
            ${SOURCE}
            #@ end
              ! audioconvert ! fakesink
            """
        let parsed = try PipelineFile(path: "c.pipeline", text: text)
        #expect(parsed.conditions == [PipelineCondition(name: "INPUT", whenSet: 3...3, whenEmpty: 5...5)])
        #expect(PipelineFile.launchString(try parsed.tokens(environment: [:])) == "audiotestsrc ! audioconvert ! fakesink")
        #expect(PipelineFile.launchString(try parsed.tokens(overrides: ["INPUT": "/tmp/talk.wav"], environment: [:]))
                == "filesrc location=/tmp/talk.wav ! decodebin ! audioconvert ! fakesink")
        #expect(PipelineValidator().validate(parsed, environment: [:]).isEmpty)
        // A mistake in the branch not taken is still found, at its line.
        let misspelled = try PipelineFile(path: "m.pipeline", text: text.replacingOccurrences(of: "decodebin", with: "decodbin"))
        let found = PipelineValidator().validate(misspelled, environment: [:])
        #expect(found.map(\.position.line) == [4] && found.first?.kind == .unknownElement, "\(found)")
        for bad in ["#@ if NOPE\nfakesrc ! fakesink\n#@ end",
                    "#@ var X=  x\n#@ if X\nfakesrc ! fakesink",
                    "#@ var X=  x\n#@ else\nfakesrc ! fakesink",
                    "#@ var X=  x\n#@ if X\n#@ else\n#@ else\n#@ end\nfakesrc ! fakesink",
                    "#@ var X=  x\n#@ var L=a  x\n#@ if X\n#@ each I in L\n#@ end\n#@ end\nfakesrc ! fakesink"] {
            #expect(throws: PipelineFileError.self, "\(bad)") { try PipelineFile(path: "b.pipeline", text: bad) }
        }
    }
}
