import Foundation

/// CPU time and peak memory of this process and of the engine workers it
/// starts (the Whisper worker, apertium), read from /proc. Workers come and
/// go with pipelines, so `sample` runs often during a run and keeps, per
/// process, the highest figures seen: what a worker used before it exited
/// is not lost.
final class ProcessUsage: @unchecked Sendable {
    // @unchecked: every access holds the lock.
    struct Figures: Sendable, Equatable {
        var cpuSeconds = 0.0
        var peakRSSMegabytes = 0.0
    }

    private let lock = NSLock()
    private var children: [Int32: Figures] = [:]
    /// CPU seconds of the workers already running at `init` (a previous
    /// run's, still exiting): only what they use from then on counts.
    private var baseline: [Int32: Double] = [:]
    private let startCPU: Double
    private let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))

    init() {
        startCPU = Self.ownCPUSeconds()
        sample()
        baseline = children.mapValues(\.cpuSeconds)
    }

    func sample() {
        var seen: [Int32: Figures] = [:]
        for pid in Self.descendants(of: getpid()) {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { continue }
            // Fields after the command's closing parenthesis: state is field 3, utime 14, stime 15.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { continue }
            seen[pid] = Figures(cpuSeconds: (user + system) / ticks, peakRSSMegabytes: Self.peakRSS(pid))
        }
        lock.withLock {
            for (pid, figures) in seen {
                let before = children[pid] ?? Figures()
                children[pid] = Figures(cpuSeconds: max(before.cpuSeconds, figures.cpuSeconds),
                                        peakRSSMegabytes: max(before.peakRSSMegabytes, figures.peakRSSMegabytes))
            }
        }
    }

    /// CPU seconds since `init` (this process) and of every worker seen; peak RSS of each.
    var totals: (selfCPU: Double, childCPU: Double, selfPeakMB: Double, childPeakMB: Double) {
        sample()
        let children = lock.withLock { self.children }
        let baseline = lock.withLock { self.baseline }
        return (Self.ownCPUSeconds() - startCPU, children.reduce(0) { $0 + $1.value.cpuSeconds - (baseline[$1.key] ?? 0) },
                Self.peakRSS(getpid()), children.values.map(\.peakRSSMegabytes).max() ?? 0)
    }

    static func ownCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }

    /// VmHWM: the process's peak resident set, MB.
    static func peakRSS(_ pid: Int32) -> Double {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kilobytes = Double(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") else { return 0 }
        return kilobytes / 1024
    }

    /// Every process below `pid` (children of all its threads, recursively).
    static func descendants(of pid: Int32) -> [Int32] {
        var result: [Int32] = []
        var pending = [pid]
        while let next = pending.popLast() {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(next)/task")) ?? []
            for task in tasks {
                let listed = (try? String(contentsOfFile: "/proc/\(next)/task/\(task)/children", encoding: .utf8)) ?? ""
                for child in listed.split(separator: " ").compactMap({ Int32($0) }) where !result.contains(child) {
                    result.append(child)
                    pending.append(child)
                }
            }
        }
        return result
    }
}
