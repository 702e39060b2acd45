import Foundation
import ParleyCore

/// Real recorded speech from Debian's pocketsphinx-testdata (installed by
/// scripts/setup), assembled into test recordings with known pauses.
public enum SpeechFixtures {
    public static let librivox = "/usr/share/pocketsphinx/test/data/librivox"
    public static let clips = ["0880", "0890", "0920"].map { "\(librivox)/sense_and_sensibility_01_austen_64kb-\($0).wav" }

    /// 16 kHz mono samples of a WAV file.
    public static func samples(ofWAV path: String) throws -> [Int16] {
        try WAVDecoder.decode(try Data(contentsOf: URL(fileURLWithPath: path))).samples
    }

    public struct Recording {
        public var path: String
        /// Where each clip lies, in seconds.
        public var spans: [ClosedRange<Double>]
    }

    /// The three LibriVox clips with `gap` seconds of silence between them.
    public static func threeUtterances(gap: Double = 1.0, in folder: URL) throws -> Recording {
        try recording(of: clips, gap: gap, named: "three-utterances", in: folder)
    }

    /// WAV files (any rate) one after another at 16 kHz, `gap` seconds of silence between them.
    public static func recording(of files: [String], gap: Double = 1.0, named name: String, in folder: URL) throws -> Recording {
        var all: [Int16] = []
        var spans: [ClosedRange<Double>] = []
        for (index, file) in files.enumerated() {
            if index > 0 { all += [Int16](repeating: 0, count: Int(gap * 16_000)) }
            let start = Double(all.count) / 16_000
            let audio = try WAVDecoder.decode(try Data(contentsOf: URL(fileURLWithPath: file)))
            all += Resampler.resample(audio.samples, from: audio.rate, to: 16_000)
            spans.append(start...(Double(all.count) / 16_000))
        }
        let path = folder.appendingPathComponent("\(name).wav").path
        try writeWAV(all, rate: 16_000, to: path)
        return Recording(path: path, spans: spans)
    }

    /// A recording and what is said in it.
    public struct Transcribed {
        public var path: String
        public var text: String
    }

    /// All five LibriVox clips, with the transcripts pocketsphinx-testdata ships.
    public static func librivoxWithTranscripts() throws -> [Transcribed] {
        let lines = try String(contentsOfFile: "\(librivox)/transcription", encoding: .utf8).split(separator: "\n")
        return lines.compactMap { line in
            // "<s> he was not an ill disposed young man </s> (sense_and_sensibility_01_austen_64kb-0880)"
            guard let open = line.lastIndex(of: "("), let close = line.lastIndex(of: ")") else { return nil }
            let id = line[line.index(after: open)..<close]
            let text = line[..<open].replacingOccurrences(of: "<s>", with: "").replacingOccurrences(of: "</s>", with: "")
            return Transcribed(path: "\(librivox)/\(id).wav", text: text.trimmingCharacters(in: .whitespaces))
        }
    }

    /// Asterisk's telephony prompts (8 kHz) in `language` ("en", "fr"), with the
    /// transcripts the asterisk-core-sounds-LANG package ships: the first `count`
    /// of five words or more that are speech (no "[tones]").
    public static func asteriskPrompts(_ language: String, count: Int) async throws -> [Transcribed] {
        let listing = "/usr/share/doc/asterisk-core-sounds-\(language)/core-sounds-\(language).txt.gz"
        let unzipped = try await TestSupport.run("/bin/gzip", ["-dc", listing])
        var prompts: [Transcribed] = []
        for line in unzipped.stdout.split(separator: "\n") where !line.hasPrefix(";") && !line.contains("[") {
            guard let colon = line.range(of: ": ") else { continue }
            let name = String(line[..<colon.lowerBound]), text = String(line[colon.upperBound...])
            let path = "/usr/share/asterisk/sounds/\(language)/\(name).wav"
            guard text.split(separator: " ").count >= 5, FileManager.default.fileExists(atPath: path) else { continue }
            prompts.append(Transcribed(path: path, text: text))
            if prompts.count == count { break }
        }
        return prompts
    }

    public static func writeWAV(_ samples: [Int16], rate: Int, to path: String) throws {
        try WAVEncoder.encode(samples, rate: rate).write(to: URL(fileURLWithPath: path))
    }
}
