import GstKit
import Testing

/// Reading the bus must not keep the pipeline alive: every state-changed
/// message of a child used to leak a reference to its parent.
@Suite struct ElementReferenceTests {
    @Test func readingStateChangesLeavesThePipelineWithOneReference() async throws {
        let pipeline = try Element.launch("audiotestsrc num-buffers=20 ! audioconvert ! fakesink")
        let bus = try #require(pipeline.bus)
        #expect(pipeline.setState(.playing))
        var childStateChanges = 0
        var sawEOS = false
        while !sawEOS, let message = bus.pop(timeout: 5_000_000_000) {
            switch message.view {
            case .stateChanged(_, _, let isTopLevel): if !isTopLevel { childStateChanges += 1 }
            case .eos: sawEOS = true
            default: break
            }
        }
        #expect(sawEOS)
        #expect(childStateChanges >= 6, "three children went NULL→READY→PAUSED→PLAYING")
        pipeline.setState(.null)
        // GstBin finishes an asynchronous state change (here PAUSED to
        // PLAYING) on a thread-pool thread that holds a reference to the
        // pipeline until that thread returns, which can be just after EOS and
        // NULL on a loaded machine. Wait for that one to go: a leaked
        // reference (one per child's message) never does.
        for _ in 0..<250 where pipeline.referenceCount > 1 { try await Task.sleep(nanoseconds: 20_000_000) }
        #expect(pipeline.referenceCount == 1, "only our own reference is left")
    }

    @Test func flowResultsMapBothWays() {
        #expect(FlowResult.ok.ignoringNotLinked == .ok)
        #expect(FlowResult.failure(.notLinked).ignoringNotLinked == .ok)
        #expect(FlowResult.failure(.flushing).ignoringNotLinked == .failure(.flushing))
    }

    @Test func anElementHasTypedProperties() throws {
        let factory = try #require(ElementFactory(named: "audiotestsrc"))
        let source = try #require(factory.makeElement())
        try source.setProperty("num-buffers", fromString: "7")
        #expect(source.property("num-buffers") == .int(7))
        #expect(throws: PropertyValueProblem.noSuchProperty) { try source.setProperty("no-such", fromString: "1") }
        #expect(throws: PropertyValueProblem.notParseable(typeName: "gint")) { try source.setProperty("num-buffers", fromString: "many") }
        #expect(source.paramInfo("wave")?.range != nil)
        try source.setProperty("num-buffers", .int(9))
        #expect(source.property("num-buffers") == .int(9))
        #expect(throws: PropertyValueProblem.outOfRange) { try source.setProperty("num-buffers", .int(-5)) }
        // A C string ends at a NUL: the rest is kept, the NUL shown as U+FFFD.
        try source.setProperty("name", .string("before\0after"))
        #expect(source.property("name") == .string("before\u{FFFD}after"))
    }
}
