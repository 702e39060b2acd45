import CFLAC
import Foundation

/// FLAC for uploads (about half the bytes of WAV for speech) and for
/// `parley serve`, on Debian's libFLAC.
public enum FLACCodec {
    public enum CodecError: Error, Sendable, CustomStringConvertible, Equatable {
        case encoderFailed
        case notFLAC(String)
        /// The stream decodes to more than the `maxSeconds` asked for.
        case tooLong(maxSeconds: Double)
        public var description: String {
            switch self {
            case .encoderFailed: "libFLAC could not encode the audio"
            case .notFLAC(let why): "the file is not readable FLAC: \(why)"
            case .tooLong(let limit): "the audio is longer than \(Int(limit)) s"
            }
        }
    }

    private final class Sink { var data = Data() }

    /// 16-bit mono samples → a FLAC file.
    public static func encode(_ samples: [Int16], rate: Int) throws(CodecError) -> Data {
        guard let encoder = FLAC__stream_encoder_new() else { throw .encoderFailed }
        defer { FLAC__stream_encoder_delete(encoder) }
        FLAC__stream_encoder_set_channels(encoder, 1)
        FLAC__stream_encoder_set_bits_per_sample(encoder, 16)
        FLAC__stream_encoder_set_sample_rate(encoder, UInt32(rate))
        FLAC__stream_encoder_set_compression_level(encoder, 5)
        FLAC__stream_encoder_set_total_samples_estimate(encoder, UInt64(samples.count))
        let sink = Sink()
        let context = Unmanaged.passUnretained(sink).toOpaque()
        let status = FLAC__stream_encoder_init_stream(encoder, { _, buffer, bytes, _, _, client in
            Unmanaged<Sink>.fromOpaque(client!).takeUnretainedValue().data.append(buffer!, count: bytes)
            return FLAC__STREAM_ENCODER_WRITE_STATUS_OK
        }, nil, nil, nil, context)
        guard status == FLAC__STREAM_ENCODER_INIT_STATUS_OK else { throw .encoderFailed }
        let wide = samples.map { FLAC__int32($0) }
        let ok = wide.withUnsafeBufferPointer { FLAC__stream_encoder_process_interleaved(encoder, $0.baseAddress, UInt32($0.count)) }
        guard ok != 0, FLAC__stream_encoder_finish(encoder) != 0 else { throw .encoderFailed }
        return withExtendedLifetime(sink) { sink.data }
    }

    private final class Source {
        let data: Data
        var position = 0
        var samples: [Int16] = []
        var rate = 0
        var failure: String?
        var maxSeconds: Double?
        var tooLong = false
        init(_ data: Data) { self.data = data }
    }

    /// A FLAC file → 16-bit mono samples (channels mixed down) and its rate.
    /// `maxSeconds` stops a stream that
    /// decodes to more audio than that (a few MB of FLAC silence can be
    /// hours): it fails before the samples outgrow the bound.
    public static func decode(_ data: Data, maxSeconds: Double? = nil) throws(CodecError) -> (samples: [Int16], rate: Int) {
        guard data.starts(with: Data("fLaC".utf8)) else { throw .notFLAC("no fLaC signature") }
        guard let decoder = FLAC__stream_decoder_new() else { throw .notFLAC("no decoder") }
        defer { FLAC__stream_decoder_delete(decoder) }
        let source = Source(data)
        source.maxSeconds = maxSeconds
        let context = Unmanaged.passUnretained(source).toOpaque()
        let status = FLAC__stream_decoder_init_stream(
            decoder,
            { _, buffer, bytes, client in
                let source = Unmanaged<Source>.fromOpaque(client!).takeUnretainedValue()
                let count = min(bytes!.pointee, source.data.count - source.position)
                guard count > 0 else {
                    bytes!.pointee = 0
                    return FLAC__STREAM_DECODER_READ_STATUS_END_OF_STREAM
                }
                source.data.copyBytes(to: buffer!, from: source.position..<(source.position + count))
                source.position += count
                bytes!.pointee = count
                return FLAC__STREAM_DECODER_READ_STATUS_CONTINUE
            },
            nil, nil, nil, nil,
            { _, frame, channels, client in
                let source = Unmanaged<Source>.fromOpaque(client!).takeUnretainedValue()
                let header = frame!.pointee.header
                source.rate = Int(header.sample_rate)
                let count = Int(header.blocksize), width = Int(header.channels)
                if let limit = source.maxSeconds, Double(source.samples.count + count) > limit * Double(max(1, source.rate)) {
                    source.tooLong = true
                    return FLAC__STREAM_DECODER_WRITE_STATUS_ABORT
                }
                let shift = Int(header.bits_per_sample) - 16
                for index in 0..<count {
                    var sum = 0
                    for channel in 0..<width { sum += Int(channels![channel]![index]) }
                    let mixed = sum / max(1, width)
                    source.samples.append(Int16(clamping: shift >= 0 ? mixed >> shift : mixed << -shift))
                }
                return FLAC__STREAM_DECODER_WRITE_STATUS_CONTINUE
            },
            nil,
            { _, status, client in
                Unmanaged<Source>.fromOpaque(client!).takeUnretainedValue().failure = "decoder status \(status.rawValue)"
            },
            context)
        guard status == FLAC__STREAM_DECODER_INIT_STATUS_OK else { throw .notFLAC("the decoder would not start") }
        let ok = FLAC__stream_decoder_process_until_end_of_stream(decoder)
        FLAC__stream_decoder_finish(decoder)
        if source.tooLong, let maxSeconds { throw .tooLong(maxSeconds: maxSeconds) }
        if let failure = source.failure { throw .notFLAC(failure) }
        guard ok != 0 else { throw .notFLAC("the stream ended badly") }
        return (source.samples, source.rate)
    }
}
