/// Why each attempt at a job failed, read from its events: the pure part of
/// a failed job's report.
///
/// An attempt that started and then has neither a failure nor a result in
/// the events is one whose worker stopped answering (killed, or cut off from
/// the server) until the ack wait ran out and JetStream delivered the job
/// again: it is reported as such, naming the worker.
public enum AttemptHistory {
    /// One line per earlier attempt, in order, then the current attempt's
    /// `reason` (attempt `current`, on `worker`).
    public static func reasons(events: [JobEvent], current: Int, worker: String, reason: String) -> [String] {
        reasons(events: events, through: max(current, 1) - 1) + ["attempt \(max(current, 1)) on \(worker): \(reason)"]
    }

    /// One line for each of attempts 1 through `last`, as the events tell
    /// them: for a job whose every delivery went unanswered, all of them.
    public static func reasons(events: [JobEvent], through last: Int) -> [String] {
        guard last >= 1 else { return [] }
        return (1...last).map { attempt in
            let started = events.last { $0.event == .started && $0.attempt == attempt }
            let failure = events.last { $0.event == .attemptFailed && $0.attempt == attempt }
            let who = failure?.worker ?? started?.worker
            let prefix = "attempt \(attempt)" + (who.map { " on \($0)" } ?? "")
            if let failure { return "\(prefix): \(failure.reason ?? "failed")" }
            if started != nil {
                return "\(prefix): no answer within the ack wait (the worker died or lost the server)"
                    + (attempt < last ? "; delivered again" : "")
            }
            return "\(prefix): delivered, but no worker recorded starting it"
        }
    }

    /// What a job's events say about it now, for `parley jobs status`.
    public static func state(of events: [JobEvent]) -> JobState {
        guard let last = events.last else { return .unknown }
        switch last.event {
        case .queued: return .queued
        case .started: return .running(worker: last.worker ?? "?", attempt: last.attempt ?? 1)
        case .attemptFailed: return .retrying(attempt: last.attempt ?? 1, reason: last.reason ?? "")
        case .done: return .done
        case .failed: return .failed
        }
    }
}

/// Where a job is, from its events.
public enum JobState: Equatable, Sendable {
    case unknown
    case queued
    case running(worker: String, attempt: Int)
    case retrying(attempt: Int, reason: String)
    case done
    case failed

    public var isFinished: Bool { self == .done || self == .failed }

    public var label: String {
        switch self {
        case .unknown: return "unknown"
        case .queued: return "queued"
        case .running(let worker, let attempt): return "running on \(worker) (attempt \(attempt))"
        case .retrying(let attempt, let reason): return "retrying after attempt \(attempt): \(reason)"
        case .done: return "done"
        case .failed: return "failed"
        }
    }
}
