import Foundation
import Parley
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

    @Test func undeclaredVariablesAreErrors() throws {
        let found = try errors("filesink location=${OUTPUT}")
        #expect(found.map(\.kind) == [.undeclaredVariable])
        #expect(found[0].position == SourcePosition(line: 4, column: 19))
        #expect(found[0].message.contains("did you mean ${OUT}"))
        let fromSet = try errors("fakesrc ! fakesink", set: ["NOPE": "1"])
        #expect(fromSet.map(\.kind) == [.undeclaredVariable])
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
}
