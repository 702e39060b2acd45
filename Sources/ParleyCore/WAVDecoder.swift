import Foundation

/// Reads 16-bit PCM WAV (any rate; channels are mixed down to mono): whole,
/// from memory (`decode`), or a file a piece at a time (`WAVFileReader`).
public enum WAVDecoder {
    public enum DecodeError: Error, Sendable, CustomStringConvertible, Equatable {
        case notWAV
        case unsupported(String)
        public var description: String {
            switch self {
            case .notWAV: "the file is not a WAV file"
            case .unsupported(let what): "unsupported WAV: \(what); send 16-bit PCM"
            }
        }
    }

    /// The samples at `rate` (resampled when the file has another).
    public static func decode(_ data: Data, resampledTo rate: Int) throws(DecodeError) -> [Int16] {
        let decoded = try decode(data)
        return Resampler.resample(decoded.samples, from: decoded.rate, to: rate)
    }

    public static func decode(_ data: Data) throws(DecodeError) -> (samples: [Int16], rate: Int) {
        let bytes = [UInt8](data)
        let layout = try WAVLayout.parse(size: bytes.count) { offset, count in
            Array(bytes[min(offset, bytes.count)..<min(offset + count, bytes.count)])
        }
        let samples = bytes.withUnsafeBytes { raw in
            WAVLayout.mono(UnsafeRawBufferPointer(rebasing: raw[layout.dataOffset..<(layout.dataOffset + layout.frames * layout.frameBytes)]),
                           channels: layout.channels)
        }
        return (samples, layout.rate)
    }
}

/// Where a WAV file's samples are and how they are laid out.
public struct WAVLayout: Sendable, Equatable {
    public var rate: Int
    public var channels: Int
    /// Byte offset of the first sample.
    public var dataOffset: Int
    /// Whole frames the data holds (what its header says, cut at the file's end).
    public var frames: Int
    public var frameBytes: Int { 2 * channels }

    /// Walks the chunks up to the samples. `read(offset, count)` gives the
    /// file's bytes there (fewer at its end); `size` is the file's length.
    static func parse(size: Int, read: (Int, Int) -> [UInt8]) throws(WAVDecoder.DecodeError) -> WAVLayout {
        let head = read(0, 12)
        guard head.count == 12, head[0..<4] == Array("RIFF".utf8)[...], head[8..<12] == Array("WAVE".utf8)[...] else {
            throw .notWAV
        }
        func u16(_ bytes: [UInt8], _ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        func u32(_ bytes: [UInt8], _ at: Int) -> Int { u16(bytes, at) | u16(bytes, at + 2) << 16 }
        var offset = 12
        var rate = 0, channels = 0, bits = 0, format = 0
        while offset + 8 <= size {
            let header = read(offset, 8)
            guard header.count == 8 else { break }
            let id = String(decoding: header[0..<4], as: UTF8.self)
            let length = u32(header, 4)
            let body = offset + 8
            if id == "fmt ", body + 16 <= size {
                let fmt = read(body, 16)
                format = u16(fmt, 0); channels = u16(fmt, 2); rate = u32(fmt, 4); bits = u16(fmt, 14)
            } else if id == "data" {
                guard format == 1 || format == 0xFFFE else { throw .unsupported("format \(format)") }
                guard bits == 16, channels >= 1 else { throw .unsupported("\(bits)-bit, \(channels) channels") }
                let end = min(size, body + length)
                return WAVLayout(rate: rate, channels: channels, dataOffset: body, frames: (end - body) / (2 * channels))
            }
            offset = body + length + (length & 1)
        }
        throw .notWAV
    }

    /// Interleaved little-endian 16-bit frames as mono: each frame's mean.
    static func mono(_ bytes: UnsafeRawBufferPointer, channels: Int) -> [Int16] {
        let frames = bytes.count / (2 * channels)
        var samples = [Int16](repeating: 0, count: frames)
        for frame in 0..<frames {
            var sum = 0
            for channel in 0..<channels {
                let at = (frame * channels + channel) * 2
                sum += Int(Int16(bitPattern: UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8))
            }
            samples[frame] = Int16(sum / channels)
        }
        return samples
    }
}

/// A WAV file read a piece at a time, so a recording of any length takes
/// the same memory: `read(frames:)` gives the next frames as mono samples.
/// Not thread-safe: one reader at a time (recordingsrc's streaming thread).
public final class WAVFileReader {
    public enum Failure: Error, Sendable, CustomStringConvertible {
        case cannotOpen(String)
        case notReadable(WAVDecoder.DecodeError)
        case readFailed(String)
        public var description: String {
            switch self {
            case .cannotOpen(let why): why
            case .notReadable(let error): error.description
            case .readFailed(let why): "reading failed: \(why)"
            }
        }
    }

    public let layout: WAVLayout
    private let handle: FileHandle
    /// Frames read so far.
    private var position = 0

    public init(path: String) throws(Failure) {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw .cannotOpen(String(cString: strerror(errno)))
        }
        let size: Int
        do { size = Int(try handle.seekToEnd()) } catch { throw .readFailed(error.localizedDescription) }
        do {
            layout = try WAVLayout.parse(size: size) { offset, count in
                guard (try? handle.seek(toOffset: UInt64(offset))) != nil else { return [] }
                return [UInt8]((try? handle.read(upToCount: count)) ?? Data())
            }
        } catch {
            throw .notReadable(error)
        }
        self.handle = handle
        do { try handle.seek(toOffset: UInt64(layout.dataOffset)) } catch { throw .readFailed(error.localizedDescription) }
    }

    /// Up to `frames` next frames as mono samples; empty at the end.
    public func read(frames: Int) throws(Failure) -> [Int16] {
        let count = min(frames, layout.frames - position)
        guard count > 0 else { return [] }
        let data: Data
        do { data = try handle.read(upToCount: count * layout.frameBytes) ?? Data() } catch {
            throw .readFailed(error.localizedDescription)
        }
        let whole = data.count / layout.frameBytes
        position += whole
        if whole < count { position = layout.frames }  // the file is shorter than its header said
        return data.withUnsafeBytes { WAVLayout.mono(UnsafeRawBufferPointer(rebasing: $0[0..<(whole * layout.frameBytes)]), channels: layout.channels) }
    }
}
