import ParleyCore
import Testing

@Suite struct CountedTests {
    @Test func oneTakesTheSingularEveryOtherCountThePlural() {
        #expect(counted(1, "segment") == "1 segment")
        #expect(counted(0, "segment") == "0 segments")
        #expect(counted(3, "warm-up recording") == "3 warm-up recordings")
    }
}
