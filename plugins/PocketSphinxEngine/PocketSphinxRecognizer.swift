// pocketsphinx (Debian's libpocketsphinx with pocketsphinx-en-us), in
// process: the speech recognizer that needs no network and no key.
import CPocketSphinx
import Dispatch
import Foundation

public enum RecognizerError: Error, Sendable, CustomStringConvertible, Equatable {
    case modelMissing(String)
    case initializationFailed
    case decodingFailed(String)

    public var description: String {
        switch self {
        case .modelMissing(let path):
            "the pocketsphinx model is missing at \(path) (apt-get install pocketsphinx-en-us)"
        case .initializationFailed: "pocketsphinx could not load its model"
        case .decodingFailed(let why): "pocketsphinx could not decode the segment: \(why)"
        }
    }
}

/// One pocketsphinx decoder. Decoding is serial (a decoder is single-threaded)
/// and runs on its own queue, never on Swift's cooperative pool.
public final class PocketSphinxRecognizer: @unchecked Sendable {
    // @unchecked: `decoder` is used only on `queue`.
    public static let sampleRate = 16_000
    public static let modelFolder = "/usr/share/pocketsphinx/model/en-us"

    private let decoder: OpaquePointer
    private let queue = DispatchQueue(label: "parley.pocketsphinx")

    /// Loads the en-us model (about half a second).
    public init(modelFolder: String = PocketSphinxRecognizer.modelFolder) throws(RecognizerError) {
        let files = ["-hmm": "\(modelFolder)/en-us", "-lm": "\(modelFolder)/en-us.lm.bin",
                     "-dict": "\(modelFolder)/cmudict-en-us.dict"]
        for path in files.values where !FileManager.default.fileExists(atPath: path) {
            throw .modelMissing(path)
        }
        // Its log goes to stderr by default; the element reports what matters.
        err_set_logfp(nil)
        var arguments = ["parley"] + files.sorted { $0.key < $1.key }.flatMap { [$0.key, $0.value] }
        let config: OpaquePointer? = arguments.withCStringArray { argv in
            cmd_ln_parse_r(nil, ps_args(), Int32(argv.count), argv.baseAddress, 0)
        }
        arguments.removeAll()
        guard let config, let decoder = ps_init(config) else { throw .initializationFailed }
        cmd_ln_free_r(config)
        self.decoder = decoder
    }

    deinit { ps_free(decoder) }

    /// The words in 16 kHz mono samples, lower case, separated by spaces.
    public func transcribe(_ samples: [Int16]) async throws(RecognizerError) -> String {
        let result: Result<String, RecognizerError> = await withCheckedContinuation { continuation in
            let decoder = UnsafeSendableDecoder(pointer: decoder)
            queue.async {
                let decoder = decoder.pointer
                guard ps_start_utt(decoder) >= 0 else {
                    continuation.resume(returning: .failure(.decodingFailed("start of utterance refused")))
                    return
                }
                let processed = samples.withUnsafeBufferPointer { ps_process_raw(decoder, $0.baseAddress, $0.count, 0, 1) }
                ps_end_utt(decoder)
                guard processed >= 0 else {
                    continuation.resume(returning: .failure(.decodingFailed("the audio was refused")))
                    return
                }
                var score: Int32 = 0
                let hypothesis = ps_get_hyp(decoder, &score).map { String(cString: $0) } ?? ""
                continuation.resume(returning: .success(hypothesis))
            }
        }
        return try result.get()
    }
}

/// The decoder handle, handed to the decoding queue (the only place it is used).
private struct UnsafeSendableDecoder: @unchecked Sendable {
    let pointer: OpaquePointer
}

extension Array where Element == String {
    /// Calls `body` with a C argv (char *[]) that lives for the call.
    func withCStringArray<R>(_ body: (UnsafeMutableBufferPointer<UnsafeMutablePointer<CChar>?>) -> R) -> R {
        var pointers = map { strdup($0) }
        defer { pointers.forEach { free($0) } }
        return pointers.withUnsafeMutableBufferPointer { body($0) }
    }
}
