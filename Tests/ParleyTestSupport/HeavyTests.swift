import Testing

/// Suites that run several speech engines at once (parley workers, `parley
/// serve` with Whisper, whole-corpus benches) take turns: on a 2-core
/// machine two of them side by side starve each other's requests into
/// timeouts, and a test of one would fail for the other's load. Light
/// tests still run beside them.
///
///     @Suite(.heavy) struct WorkQueueTests { ... }
public struct HeavyTests: SuiteTrait, TestScoping {
    public var isRecursive: Bool { false }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        await Turns.shared.take()
        do {
            try await function()
        } catch {
            await Turns.shared.give()
            throw error
        }
        await Turns.shared.give()
    }

    /// One heavy suite at a time, first come first served.
    actor Turns {
        static let shared = Turns()
        private var busy = false
        private var waiting: [CheckedContinuation<Void, Never>] = []

        func take() async {
            guard busy else { busy = true; return }
            await withCheckedContinuation { waiting.append($0) }
        }

        func give() {
            if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
        }
    }
}

extension Trait where Self == HeavyTests {
    /// Runs the suite while no other heavy suite runs.
    public static var heavy: Self { HeavyTests() }
}
