import Foundation
import GstKit
import Parley
import ParleyCore
import ParleyTestSupport
import Testing

/// A pipeline set back to NULL (or READY) and played again, as an app that
/// keeps one pipeline for many sessions does.
@Suite struct ReplayTests {
    let scratch = TestSupport.temporaryFolder()

    struct Played: Sendable { var started: Bool, transcripts: [String] = [], translations: [String] = [], problems: [String] = [] }

    /// Plays to EOS on a thread of its own: the elements' work runs on
    /// Swift's pool, which a blocking wait must not hold.
    func playToEOS(_ pipeline: GstKit.Element) async -> Played {
        await OffPool.run { Self.play(pipeline) }
    }

    static func play(_ pipeline: GstKit.Element) -> Played {
        var transcripts: [String] = [], translations: [String] = [], problems: [String] = []
        let started = pipeline.setState(.playing)
        let bus = pipeline.bus!
        // A bound on a stuck pipeline, not a speed check: alone the three plays
        // take 9 s here, under the whole suite on two cores one play took over 90 s.
        let deadline = Date().addingTimeInterval(300)
        var ended = false
        loop: while Date() < deadline {
            guard let message = bus.pop(timeout: 100_000_000) else { continue }
            switch message.view {
            case .eos: ended = true; break loop
            case .error(let text, let debug):
                problems.append("error \(message.sourceName): \(text) \(debug ?? "")")
                ended = true
                break loop
            case .warning(let text, let debug): problems.append("warning \(message.sourceName): \(text) \(debug ?? "")")
            case .element(let structure):
                if structure.name == "parley/transcript", structure["status"]?.string == "final" { transcripts.append(structure["text"]?.string ?? "") }
                if structure.name == "parley/translation", structure["status"]?.string == "final" { translations.append(structure["text"]?.string ?? "") }
            default: break
            }
        }
        if !ended { problems.append("no EOS or error within 300 s") }
        return Played(started: started, transcripts: transcripts, translations: translations, problems: problems)
    }

    @Test(arguments: [ElementState.null, .ready])
    func aPipelinePlaysAgainAfterGoingBackTo(_ state: ElementState) async throws {
        Parley.initialize()
        let session = scratch.appendingPathComponent("session-\(state)").path
        let pipeline = try GstKit.Element.launch("""
            filesrc location=\(SpeechFixtures.clips[0]) ! wavparse ! audioconvert ! audioresample ! audio/x-raw,format=S16LE,channels=1,rate=16000
            ! vadsegmenter ! cloudstt local-engine=pocketsphinx ! tee name=t
            t. ! queue ! rec.transcript_%u
            t. ! queue ! streamtranslator target-language=es ! tee name=u
            u. ! queue ! rec.translation_%u
            u. ! queue ! cloudtts ! rec.audio_%u
            sessionrecorder name=rec location=\(session)
            """)
        let first = await playToEOS(pipeline)
        #expect(pipeline.setState(state))
        // A session folder is never overwritten: the app names the next one.
        try pipeline.child(named: "rec")!.setProperty("location", fromString: session + "-again")
        let second = await playToEOS(pipeline)
        #expect(pipeline.setState(state))
        try pipeline.child(named: "rec")!.setProperty("location", fromString: session)
        let third = await playToEOS(pipeline)
        #expect(!third.started)
        #expect(third.problems.first?.contains("\(session): it already holds a session; choose another location") == true, "\(third)")
        #expect(pipeline.setState(.null))
        #expect(first.started && second.started)
        #expect(!first.transcripts.isEmpty && first.problems.isEmpty, "\(first)")
        #expect(second.transcripts == first.transcripts && second.translations == first.translations, "first \(first), second \(second)")
        #expect(second.problems.isEmpty, "\(second.problems)")
        for folder in [session, session + "-again"] {
            let log = try String(contentsOfFile: folder + "/session.jsonl", encoding: .utf8)
            #expect(log.split(separator: "\n").count == first.transcripts.count, "\(folder): \(log)")
        }
    }
}
