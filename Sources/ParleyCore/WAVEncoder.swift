import Foundation

/// 16-bit PCM WAV (mono: the upload format every transcription API takes).
public enum WAVEncoder {
    public static func encode(_ samples: [Int16], rate: Int) -> Data {
        var data = Data(capacity: 44 + samples.count * 2)
        data.append(header(sampleCount: samples.count, rate: rate))
        samples.withUnsafeBytes { data.append(contentsOf: $0) }
        return data
    }

    /// The 44-byte header for `sampleCount` samples (all channels', interleaved):
    /// what a file written as audio arrives starts with, and gets again once
    /// its length is known.
    public static func header(sampleCount: Int, rate: Int, channels: Int = 1) -> Data {
        var data = Data(capacity: 44)
        func append32(_ value: Int) { withUnsafeBytes(of: UInt32(value).littleEndian) { data.append(contentsOf: $0) } }
        func append16(_ value: Int) { withUnsafeBytes(of: UInt16(value).littleEndian) { data.append(contentsOf: $0) } }
        data.append(contentsOf: Array("RIFF".utf8)); append32(36 + sampleCount * 2)
        data.append(contentsOf: Array("WAVEfmt ".utf8)); append32(16); append16(1); append16(channels)
        append32(rate); append32(rate * 2 * channels); append16(2 * channels); append16(16)
        data.append(contentsOf: Array("data".utf8)); append32(sampleCount * 2)
        return data
    }
}

/// A mono 16-bit WAV written a piece at a time: the header goes first with
/// no length, the samples are appended as they come, and `finish` writes the
/// header again with the length. Memory is the piece in hand, whatever the
/// file's length. (sessionrecorder keeps its own writer: it syncs and
/// renames each file for durability.)
public final class WAVFileWriter {
    public let path: String
    public let rate: Int
    /// Samples appended so far.
    public private(set) var sampleCount = 0
    private let handle: FileHandle

    /// Why the file cannot be written: the system's reason.
    public struct CannotWrite: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// Creates (or empties) the file at `path`.
    public init(path: String, rate: Int) throws(CannotWrite) {
        guard FileManager.default.createFile(atPath: path, contents: WAVEncoder.header(sampleCount: 0, rate: rate)),
              let handle = FileHandle(forWritingAtPath: path) else {
            throw CannotWrite(description: String(cString: strerror(errno)))
        }
        do { try handle.seekToEnd() } catch { throw CannotWrite(description: error.localizedDescription) }
        self.path = path
        self.rate = rate
        self.handle = handle
    }

    deinit { try? handle.close() }

    public func append(_ samples: [Int16]) throws(CannotWrite) {
        do { try handle.write(contentsOf: samples.withUnsafeBytes { Data($0) }) } catch {
            throw CannotWrite(description: error.localizedDescription)
        }
        sampleCount += samples.count
    }

    /// The header again, now that the length is known.
    public func finish() throws(CannotWrite) {
        do {
            try handle.seek(toOffset: 0)
            try handle.write(contentsOf: WAVEncoder.header(sampleCount: sampleCount, rate: rate))
            try handle.seekToEnd()
        } catch {
            throw CannotWrite(description: error.localizedDescription)
        }
    }
}
