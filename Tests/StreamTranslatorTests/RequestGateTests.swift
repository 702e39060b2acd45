import Testing
@testable import StreamTranslator

/// One request per text: the first to ask leads, the rest wait for it.
@Suite struct RequestGateTests {
    @Test func theFirstLeadsAndTheOthersResumeWhenItLeaves() async throws {
        let gate = RequestGate<String>()
        #expect(await gate.enter("hola") == .leader)
        #expect(await gate.enter("adiós") == .leader, "another text does not wait")
        async let first = gate.enter("hola")
        async let second = gate.enter("hola")
        // Both are waiting once the key's list holds them; leave only then.
        while gate.waiters("hola") < 2 { await Task.yield() }
        gate.leave("hola")
        #expect(await [first, second] == [.waited, .waited])
        #expect(gate.busyKeys == 1, "adiós's leader has not left")
        gate.leave("adiós")
        #expect(gate.busyKeys == 0)
        #expect(await gate.enter("hola") == .leader, "after its leader left, a text leads again")
    }
}
