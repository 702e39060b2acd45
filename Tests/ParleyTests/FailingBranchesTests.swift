import Foundation
import Parley
import ParleyCore
import ParleyTestSupport
import Testing

/// A result with no speech (its transcription failed) must not stop the
/// branches after a tee: the audio branch gets a GAP where the speech would
/// have been, so its sinks preroll and the pipeline plays to the end.
@Suite struct FailingBranchesTests {
    let scratch = TestSupport.temporaryFolder()

    /// translate-file.pipeline's shape with every transcription failing (a
    /// provider that is not there): it used to hang from the second failure
    /// on, the audio branch never prerolling while the others' queues filled.
    @Test(arguments: ["cloudtts", "espeaktts"])
    func everySegmentFailingStillPlaysToTheEndWithEveryFileWritten(voice: String) async throws {
        let recording = try SpeechFixtures.threeUtterances(in: scratch)
        let spoken = scratch.appendingPathComponent("spoken.wav").path
        let transcript = scratch.appendingPathComponent("transcript.srt").path
        let pipeline = try Pipeline(launch: """
            filesrc location=\(recording.path) ! wavparse ! vadsegmenter
              ! cloudstt provider=compatible base-url=\(ScriptedHTTPServer.closedURL())/v1 max-retries=0 ! tee name=results
            results. ! queue ! transcriptsink location=\(transcript) format=srt
            results. ! queue ! session.transcript_%u
            results. ! queue ! streamtranslator target-language=es ! tee name=translated
            translated. ! queue ! session.translation_%u
            translated. ! queue ! \(voice) ! tee name=spoken
            spoken. ! queue ! audioconvert ! wavenc ! filesink location=\(spoken)
            spoken. ! queue ! session.audio_%u
            sessionrecorder name=session location=\(scratch.appendingPathComponent("session").path)
            """)
        let hung = Flag()
        let watchdog = Task {
            try await Task.sleep(for: .seconds(120))
            hung.set()
            pipeline.stop()
        }
        var transcripts: [TextResult] = []
        var ended = false
        try await pipeline.run { event in
            if case .transcript(let result) = event { transcripts.append(result) }
            if case .eos = event { ended = true }
        }
        watchdog.cancel()
        #expect(!hung.isSet && ended, "the pipeline hung: its audio branch never prerolled")
        #expect(transcripts.map(\.status) == [.failed, .failed, .failed])
        #expect(FileManager.default.fileExists(atPath: spoken), "the spoken WAV is written, empty of speech")
        #expect(FileManager.default.fileExists(atPath: transcript))
    }
}
