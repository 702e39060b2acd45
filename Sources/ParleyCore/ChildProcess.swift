import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A long-lived helper process whose standard input and output are ours,
/// started so that it inherits nothing else.
///
/// Foundation's `Process` lets a child inherit every descriptor other
/// threads have open at that moment, including the pipes and the exit-watch
/// sockets of processes they are starting. A long-lived child holding those
/// keeps their readers from seeing EOF and their waiters from seeing the
/// exit. This spawns with `posix_spawn`, every descriptor above 2 closed in
/// the child (glibc's `posix_spawn_file_actions_addclosefrom_np`), and
/// pipes made close-on-exec so no other child inherits them either.
public final class ChildProcess: @unchecked Sendable {
    // @unchecked: the descriptors are fixed after init; `terminate` is idempotent under `lock`.
    public let pid: pid_t
    /// Write requests here (the child's standard input).
    public let input: Int32
    /// Read answers here (the child's standard output).
    public let output: Int32
    private let lock = NSLock()
    private var ended = false

    public struct SpawnError: Error, CustomStringConvertible {
        public var description: String
    }

    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), looked
    /// up at run time: its declaration is not visible to Swift.
    private static let addCloseFrom: AddCloseFrom? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: AddCloseFrom.self)
    }()

    /// Adds "close every descriptor from 3 up" to `actions`: put it after the
    /// actions that set the child's 0-2. For any long-lived child spawned with
    /// `posix_spawn` (this one, the Whisper worker), so that it holds none of
    /// the pipes, sockets and files other threads have open as it starts.
    public static func closeEverythingAboveStandardStreams(in actions: inout posix_spawn_file_actions_t) {
        if let addCloseFrom { _ = addCloseFrom(&actions, 3) }
    }

    /// Starts `executable` with `arguments` (argv[1...]); standard error goes to /dev/null.
    public init(executable: String, arguments: [String]) throws(SpawnError) {
        var toChild: [Int32] = [0, 0], fromChild: [Int32] = [0, 0]
        guard Self.closeOnExecPipe(&toChild) else { throw SpawnError(description: "pipe: \(String(cString: strerror(errno)))") }
        guard Self.closeOnExecPipe(&fromChild) else {
            close(toChild[0]); close(toChild[1])
            throw SpawnError(description: "pipe: \(String(cString: strerror(errno)))")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        Self.closeEverythingAboveStandardStreams(in: &actions)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child: pid_t = 0
        let status = ProcessEnvironment.whileSpawning { posix_spawn(&child, executable, &actions, nil, argv, environ) }
        close(toChild[0])
        close(fromChild[1])
        guard status == 0 else {
            close(toChild[1]); close(fromChild[0])
            throw SpawnError(description: "\(executable): \(String(cString: strerror(status)))")
        }
        pid = child
        input = toChild[1]
        output = fromChild[0]
        signal(SIGPIPE, SIG_IGN)  // a dead child must give EPIPE, not end us
    }

    deinit { terminate() }

    /// A pipe whose ends no exec'd child inherits. (pipe2 is not visible to
    /// Swift here; the window between pipe and fcntl is a few instructions.)
    private static func closeOnExecPipe(_ fds: inout [Int32]) -> Bool {
        guard pipe(&fds) == 0 else { return false }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return true
    }

    /// Whether the child is still running (reaps it if it has exited).
    public var isRunning: Bool {
        lock.lock(); defer { lock.unlock() }
        guard !ended else { return false }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid { ended = true }
        return !ended
    }

    /// Why an exchange with the child did not complete.
    public enum ExchangeError: Error, Sendable, Equatable {
        /// Neither could more be written nor anything read for the whole timeout.
        case timedOut
        /// The child closed its input or output (it has exited, or is exiting).
        case closed
    }

    /// Sends `request` and reads the answer up to (not including) the first
    /// `terminator` byte, writing and reading at the same time: a child that
    /// answers while it still reads (a pipeline filter) fills its output pipe
    /// long before a large request is written, and writing it all first would
    /// leave both sides waiting for each other for good. `timeoutMs` bounds
    /// each wait for the child to take or give anything.
    public func exchange(_ request: [UInt8], until terminator: UInt8, timeoutMs: Int32) -> Result<[UInt8], ExchangeError> {
        let flags = fcntl(input, F_GETFL)
        _ = fcntl(input, F_SETFL, flags | O_NONBLOCK)
        defer { _ = fcntl(input, F_SETFL, flags) }
        var offset = 0
        var answer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            var waits = [pollfd(fd: output, events: Int16(POLLIN), revents: 0)]
            if offset < request.count { waits.append(pollfd(fd: input, events: Int16(POLLOUT), revents: 0)) }
            let ready = poll(&waits, nfds_t(waits.count), timeoutMs)
            if ready == 0 { return .failure(.timedOut) }
            if ready < 0 {
                if errno == EINTR { continue }
                return .failure(.closed)
            }
            if waits.count > 1 && waits[1].revents != 0 {
                let written = request[offset...].withUnsafeBytes { Glibc.write(input, $0.baseAddress, $0.count) }
                if written > 0 {
                    offset += written
                } else if written < 0 && errno != EAGAIN && errno != EINTR {
                    return .failure(.closed)
                }
            }
            if waits[0].revents != 0 {
                let count = chunk.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
                if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
                if count <= 0 { return .failure(.closed) }
                if let end = chunk[0..<count].firstIndex(of: terminator) {
                    answer += chunk[0..<end]
                    return .success(answer)
                }
                answer += chunk[0..<count]
            }
        }
    }

    /// Closes our ends, ends the child and its process group's work, reaps it.
    public func terminate() {
        lock.lock(); defer { lock.unlock() }
        guard !ended else { return }
        ended = true
        close(input)
        close(output)
        kill(pid, SIGTERM)
        var status: Int32 = 0
        // The child's pipeline ends on EOF; reap without blocking for long.
        for _ in 0..<50 {
            if waitpid(pid, &status, WNOHANG) != 0 { return }
            usleep(10_000)
        }
        kill(pid, SIGKILL)
        _ = waitpid(pid, &status, 0)
    }
}
