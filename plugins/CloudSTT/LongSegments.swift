import Foundation
import ParleyCore

/// A segment too long for one request (OpenAI's 25 MB upload, Google's
/// minute of synchronous recognition): cut at its quietest points and sent
/// piece by piece, in order, the texts joined; never sent to fail.
enum LongSegments {
    /// Halves `samples` at the quietest 10 ms near the middle until each
    /// piece fits in `limit` bytes. (FLAC is counted at 1 byte a sample: an
    /// upper bound for speech.)
    static func split(_ samples: [Int16], bytesPerSample: Int, limit: Int) -> [[Int16]] {
        guard samples.count * bytesPerSample > limit, samples.count > 3200 else { return [samples] }
        let window = 160
        let middle = samples.count / 2
        let searchFrom = max(0, middle - samples.count / 4), searchTo = min(samples.count - window, middle + samples.count / 4)
        var quietest = middle, lowest = Double.greatestFiniteMagnitude
        var start = searchFrom
        while start < searchTo {
            var energy = 0.0
            for index in start..<(start + window) { energy += Double(samples[index]) * Double(samples[index]) }
            if energy < lowest { lowest = energy; quietest = start + window / 2 }
            start += window
        }
        return split(Array(samples[..<quietest]), bytesPerSample: bytesPerSample, limit: limit)
            + split(Array(samples[quietest...]), bytesPerSample: bytesPerSample, limit: limit)
    }

    /// Each piece transcribed in turn (`one`), as one transcription: the
    /// texts joined, the attempts added, the first language said.
    static func transcribe(_ request: TranscriptionRequest, in pieces: [[Int16]],
                           one: (TranscriptionRequest) async throws(ProviderFailure) -> Transcription)
        async throws(ProviderFailure) -> Transcription {
        var texts: [String] = [], attempts = 0, language: String?
        for piece in pieces {
            var part = request
            part.samples = piece
            let result = try await one(part)
            texts.append(result.text)
            attempts += result.attempts
            language = language ?? result.language
        }
        return Transcription(text: texts.filter { !$0.isEmpty }.joined(separator: " "), language: language, attempts: attempts)
    }
}
