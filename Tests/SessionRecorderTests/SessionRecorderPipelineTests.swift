import Foundation
import Parley
import ParleyCore
import ParleyTestSupport
import PipelineTestSupport
import Testing

/// sessionrecorder in real pipelines: every segment recorded with its
/// status, and what was written before a SIGKILL still readable.
@Suite struct SessionRecorderPipelineTests {
    init() { Parley.register(testElements) }

    @Test func skippedAndFailedResultsAreRecordedWithTheirReasonNeverDropped() async throws {
        let folder = TestSupport.temporaryFolder().appendingPathComponent("session")
        let long = String(repeating: "word ", count: 1000)
        let pipeline = try Pipeline(launch: """
            parleytestsrc texts="The young man went home.| |\(long)|Good night." spacing-ms=2000 ! tee name=texts
            texts. ! queue ! rec.transcript_0
            texts. ! queue ! streamtranslator source-language=en target-language=es cache=false ! tee name=tr
            tr. ! queue ! rec.translation_0
            tr. ! queue ! cloudtts ! rec.audio_0
            sessionrecorder name=rec location=\(folder.path)
            """)
        try await pipeline.run()
        let session = SessionFolder(url: folder)
        #expect(session.records.map(\.segment) == [0, 1, 2, 3])
        #expect(session.records.map(\.status) == ["final", "skipped", "failed", "final"], "\(session.records.map(\.status))")
        #expect(session.records[1].reason?.contains("empty") == true, "\(String(describing: session.records[1].reason))")
        // The long text translates; speaking it is refused, and the session says so (cloudtts's parley/tts-end status=failed).
        #expect(session.records[2].translations.first?.status == "final")
        #expect(session.records[2].reason?.hasPrefix("speech: ") == true && session.records[2].reason?.contains("limit") == true,
                "\(String(describing: session.records[2].reason))")
        #expect(session.records[0].audio == ["audio/0000.es.wav"] && session.records[2].audio.isEmpty && session.records[3].audio.count == 1)
        #expect(session.records[0].translations.first?.provider == "local (apertium eng-spa)")
        #expect(session.records[0].voices == ["local (espeak-ng)"])
        #expect(session.records[0].start == 0 && session.records[3].start == 6)
        #expect(session.info?.segments == 4)
    }

    @Test func audioAloneIsOneSegmentAsLongAsItsAudio() async throws {
        // The element's own gst-inspect example: no text pad times the segment, its audio does.
        let folder = TestSupport.temporaryFolder().appendingPathComponent("hello")
        try await Pipeline(launch: "espeaksrc text=\"Hello there.\" ! rec.audio_0 sessionrecorder name=rec location=\(folder.path)").run()
        let session = SessionFolder(url: folder)
        let record = try #require(session.records.first)
        let wav = try WAVDecoder.decode(try Data(contentsOf: folder.appendingPathComponent(try #require(record.audio.first))))
        #expect(session.records.count == 1 && record.start == 0)
        #expect(abs(record.end - Double(wav.samples.count) / Double(wav.rate)) < 0.001, "end \(record.end), audio \(wav.samples.count) at \(wav.rate)")
        #expect(record.end > 0.3, "Hello there. is speech: \(record.end)")
        // Recorded speech is the user's alone: nobody else may enter the session or read its log.
        let mode = { (path: String) in (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue }
        #expect(mode(folder.path) == 0o700 && mode(folder.appendingPathComponent(Session.logFile).path) == 0o600)
    }

    /// Links planted in a folder before the recorder writes there (the
    /// log, the temporary session.json, a WAV's .part) are never written
    /// through, and a folder another user owns is refused.
    @Test func plantedLinksAreNotFollowedAndAnotherUsersFolderIsRefused() async throws {
        let scratch = TestSupport.temporaryFolder()
        let victim = scratch.appendingPathComponent("victim.txt")
        try "untouched\n".write(to: victim, atomically: true, encoding: .utf8)
        func record(into folder: URL) async -> PipelineError? {
            do {
                try await Pipeline(launch: "espeaksrc text=\"Hello there.\" ! rec.audio_0 sessionrecorder name=rec location=\(folder.path)").run()
                return nil
            } catch {
                return error
            }
        }
        // The log planted as a link: the recorder refuses to start rather than write through it.
        let planted = scratch.appendingPathComponent("planted")
        try FileManager.default.createDirectory(at: planted.appendingPathComponent("audio"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: planted.appendingPathComponent(Session.logFile), withDestinationURL: victim)
        try FileManager.default.createSymbolicLink(at: planted.appendingPathComponent(".session.json.tmp"), withDestinationURL: victim)
        try FileManager.default.createSymbolicLink(at: planted.appendingPathComponent("audio/0000.wav.part"), withDestinationURL: victim)
        let refused = await record(into: planted)
        #expect(refused.map { "\($0)".contains(Session.logFile) } == true, "\(String(describing: refused))")
        #expect(try String(contentsOf: victim, encoding: .utf8) == "untouched\n")

        // Only the temporary names planted: they are not the recorder's (unguessable now), the session is written.
        try FileManager.default.removeItem(at: planted.appendingPathComponent(Session.logFile))
        #expect(await record(into: planted) == nil)
        #expect(SessionFolder(url: planted).records.count == 1)
        #expect(try String(contentsOf: victim, encoding: .utf8) == "untouched\n")

        // A folder of another user's (a shared one made beforehand): refused, naming its owner.
        let theirs = scratch.appendingPathComponent("theirs")
        try FileManager.default.createDirectory(at: theirs, withIntermediateDirectories: true)
        guard chown(theirs.path, 65_534, 65_534) == 0 else { return }  // not root: nothing to hand over
        let other = await record(into: theirs)
        #expect(other.map { "\($0)".contains("belongs to another user (uid 65534)") } == true, "\(String(describing: other))")
    }

    @Test func speechThatNoProviderCouldGiveIsRecordedAsFailed() async throws {
        let folder = TestSupport.temporaryFolder().appendingPathComponent("session")
        let pipeline = try Pipeline(launch: """
            parleytestsrc texts="Good morning.|Good night." spacing-ms=2000 ! tee name=texts
            texts. ! queue ! rec.transcript_%u
            texts. ! queue ! cloudtts provider=compatible base-url=\(ScriptedHTTPServer.closedURL()) max-retries=0 ! rec.audio_%u
            sessionrecorder name=rec location=\(folder.path)
            """)
        try await pipeline.run()
        let session = SessionFolder(url: folder)
        #expect(session.records.map(\.segment) == [0, 1])
        #expect(session.records.allSatisfy { $0.status == "failed" && $0.audio.isEmpty }, "\(session.records)")
        #expect(session.records.first?.reason?.hasPrefix("speech: provider compatible") == true, "\(String(describing: session.records.first?.reason))")
        #expect(session.info?.failures == 2)
    }

    @Test func aSessionKilledMidwayIsStillReadable() async throws {
        let scratch = TestSupport.temporaryFolder()
        let session = scratch.appendingPathComponent("killed")
        let file = scratch.appendingPathComponent("slow.pipeline")
        // The three LibriVox clips at real-time speed: about 14 s, killed once the first segment is written.
        try """
            #@ description Translate and speak in real time, recording a session
            #@ var SESSION=  where
            concat name=recording ! identity sync=true ! audioconvert ! audioresample ! audio/x-raw,format=S16LE,channels=1,rate=16000
              ! vadsegmenter silence-duration-ms=200 ! cloudstt local-engine=pocketsphinx ! tee name=stt
            stt. ! queue ! rec.transcript_0
            stt. ! queue ! streamtranslator target-language=es ! tee name=tr
            tr. ! queue ! rec.translation_0
            tr. ! queue ! cloudtts ! rec.audio_0
            sessionrecorder name=rec location=${SESSION}
            filesrc location=\(SpeechFixtures.librivox)/sense_and_sensibility_01_austen_64kb-0880.wav ! wavparse ! recording.
            filesrc location=\(SpeechFixtures.librivox)/sense_and_sensibility_01_austen_64kb-0890.wav ! wavparse ! recording.
            filesrc location=\(SpeechFixtures.librivox)/sense_and_sensibility_01_austen_64kb-0920.wav ! wavparse ! recording.
            """.write(to: file, atomically: true, encoding: .utf8)
        let child = try ChildProcess(executable: TestSupport.parleyExecutable,
                                     arguments: ["run", file.path, "--quiet", "--set", "SESSION=\(session.path)"])
        let log = session.appendingPathComponent("session.jsonl")
        // Watched on a thread of its own: on Swift's pool, with the rest of
        // the suite running beside it, the wake-up can come seconds late
        // (the whole run recorded before the kill, in a fresh-clone CI).
        await onThread {
            var waited = 0
            while waited < 600, ((try? Data(contentsOf: log))?.count ?? 0) == 0 {
                usleep(50_000)
                waited += 1
            }
            kill(child.pid, SIGKILL)
        }
        await onThread { child.terminate() }
        let recorded = SessionFolder(url: session)
        #expect(recorded.records.count >= 1 && recorded.records.count < 3, "killed mid-way: \(recorded.records.count) segments")
        #expect(recorded.records.first?.segment == 0 && recorded.info?.ended == nil)
        for name in ["source.srt", "translation.es.srt"] {
            let text = try String(contentsOf: session.appendingPathComponent(name), encoding: .utf8)
            let cues = SubtitleCheck.cues(text).count
            #expect(cues == recorded.records.count || cues == recorded.records.count + 1, "\(name) parses, one cue per finished segment: \(text)")
        }
        for record in recorded.records {
            for audio in record.audio {
                let data = try Data(contentsOf: session.appendingPathComponent(audio))
                let wav = try WAVDecoder.decode(data)
                #expect(wav.samples.count * 2 + 44 == data.count, "\(audio) is complete")
            }
        }
        let show = try await TestSupport.run(TestSupport.parleyExecutable, ["sessions", "show", "killed", "--dir", scratch.path])
        #expect(show.status == 0 && show.stdout.contains("[0] "), "\(show.stdout) \(show.stderr)")
        let list = try await TestSupport.run(TestSupport.parleyExecutable, ["sessions", "list", "--dir", scratch.path])
        #expect(list.stdout.contains("(unfinished)"))
    }
}
