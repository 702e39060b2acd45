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

    /// The three LibriVox sentences read on, as a reader who pauses briefly
    /// between them: each clip cut to its sentence with some of its own room
    /// tone kept around it, joined with no silence added. The pauses between
    /// sentences are then about 0.3 and 0.25 s of the reader's room (from the
    /// clips' 10 ms energy: 0880's speech ends at 2.78 s, 0890's runs
    /// 0.27-4.99 s, 0920's starts at 0.27 s): longer than vadsegmenter's
    /// likely end (100 ms), shorter than its 500 ms silence. The clips whole
    /// pause for longer than they seem: each keeps 0.2-0.3 s of quiet before
    /// and after its sentence, so `threeUtterances(gap: 0.2)` pauses 0.7-0.8 s.
    public static func threeSentencesReadOn(in folder: URL) throws -> Recording {
        try recording(of: clips, cuts: [0...2.99, 0.18...5.10, 0.15...6.05], gap: 0, named: "read-on", in: folder)
    }

    /// WAV files (any rate) one after another at 16 kHz, `gap` seconds of silence between them;
    /// `cuts`, when given, the part of each file to take, in seconds.
    public static func recording(of files: [String], cuts: [ClosedRange<Double>]? = nil, gap: Double = 1.0,
                                 named name: String, in folder: URL) throws -> Recording {
        precondition(cuts == nil || cuts?.count == files.count, "one cut per file")
        var all: [Int16] = []
        var spans: [ClosedRange<Double>] = []
        for (index, file) in files.enumerated() {
            if index > 0 { all += [Int16](repeating: 0, count: Int(gap * 16_000)) }
            let start = Double(all.count) / 16_000
            let audio = try WAVDecoder.decode(try Data(contentsOf: URL(fileURLWithPath: file)))
            var samples = Resampler.resample(audio.samples, from: audio.rate, to: 16_000)
            if let cut = cuts?[index] {
                samples = Array(samples[min(Int(cut.lowerBound * 16_000), samples.count)..<min(Int(cut.upperBound * 16_000), samples.count)])
            }
            all += samples
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
