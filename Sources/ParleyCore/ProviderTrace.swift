/// Where a provider's requests are reported (an element's debug log): each
/// line with the call site that wrote it, so `GST_DEBUG` shows the step
/// (attempt, outcome, retry) and not the place the element made the trace.
public struct ProviderTrace: Sendable {
    private let write: @Sendable (_ message: String, _ file: String, _ function: String, _ line: Int) -> Void

    public init(_ write: @escaping @Sendable (_ message: String, _ file: String, _ function: String, _ line: Int) -> Void) {
        self.write = write
    }

    public func callAsFunction(_ message: String, file: String = #fileID, function: String = #function, line: Int = #line) {
        write(message, file, function, line)
    }

    /// The same trace with every line transformed first (a key redacted).
    public func map(_ transform: @escaping @Sendable (String) -> String) -> ProviderTrace {
        let write = self.write
        return ProviderTrace { message, file, function, line in write(transform(message), file, function, line) }
    }
}
