import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A new folder that only this user may enter (mode 0700), with a name
/// nobody can guess (`mkdtemp`), for what a command writes on its way:
/// uploads being decoded, a job's input and session, a bench corpus, audio
/// being played. That is often private speech. A fixed or guessable name in
/// a shared temporary directory (`/tmp/parley-play-1234.wav`) would let
/// another user read it, or put a link there first and have this user's
/// program write through it to a file of the other user's choosing.
public enum PrivateFolder {
    public struct CreationError: Error, CustomStringConvertible, Sendable {
        public let parent: String
        public let reason: String
        public var description: String { "cannot make a private folder in \(parent): \(reason)" }
    }

    /// Makes `parent/prefix-XXXXXX` (six random characters) and returns it;
    /// the caller removes it when done. `parent` is the temporary directory
    /// (`TMPDIR`, else `/tmp`) unless given.
    public static func make(prefix: String, in parent: URL = FileManager.default.temporaryDirectory) throws(CreationError) -> URL {
        let parentPath = parent.path
        var template = Array("\(parentPath)/\(prefix)-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) != nil }
        guard made else { throw CreationError(parent: parentPath, reason: String(cString: strerror(errno))) }
        let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return URL(fileURLWithPath: path, isDirectory: true)
    }
}
