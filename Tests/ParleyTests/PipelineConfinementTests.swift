import Foundation
import Parley
import ParleyTestSupport
import Testing

/// What a worker lets a job's pipeline reach, on real built pipelines.
@Suite struct PipelineConfinementTests {
    let job = TestSupport.temporaryFolder().path

    func violations(_ launch: String) throws -> [String] {
        PipelineConfinement(folder: job).violations(in: try Pipeline(launch: launch))
    }

    @Test func aPipelineKeepingToTheJobsFolderPasses() throws {
        let inside = try violations("""
            filesrc location=\(job)/input/a.wav ! wavparse ! audioconvert ! audioresample ! vadsegmenter
              ! cloudstt provider=local ! tee name=t
            t. ! queue ! transcriptsink location=\(job)/outputs/out/t.srt
            t. ! queue ! streamtranslator cache-dir=none ! cloudtts ! wavenc ! filesink location=\(job)/outputs/../outputs/s.wav
            """)
        #expect(inside.isEmpty, "\(inside)")
        // Left empty, a place is the worker's own (standard output, its translation cache): not the job's to choose.
        #expect(try violations("fakesrc num-buffers=1 ! streamtranslator ! transcriptsink").isEmpty)
    }

    @Test func filesOutsideTheFolderAreNamedWithTheirElement() throws {
        let found = try violations("""
            filesrc name=secret location=/etc/passwd ! fakesink
            fakesrc ! filesink name=climb location=\(job)/outputs/../../escape.wav
            fakesrc ! filesink name=here location=relative.wav
            fakesrc ! streamtranslator name=cache cache-dir=/tmp/elsewhere ! fakesink
            uridecodebin name=web uri=http://example.com/a.wav ! fakesink
            mp4mux name=mux moov-recovery-file=/tmp/recovery faststart-file=\(job)/outputs/faststart.tmp
            """)
        #expect(found.count == 6, "\(found)")
        for expected in ["secret (filesrc): location \"/etc/passwd\" is outside the job's folder",
                         "climb (filesink): location", "here (filesink): location \"relative.wav\"",
                         "cache (streamtranslator): cache-dir \"/tmp/elsewhere\"",
                         "web (uridecodebin): uri \"http://example.com/a.wav\" is not a file inside the job's folder",
                         "mux (mp4mux): moov-recovery-file \"/tmp/recovery\""] {
            #expect(found.contains { $0.hasPrefix(expected) }, "\(expected) in \(found)")
        }
    }

    /// Only what a speech job needs: a file descriptor (the worker's own
    /// NATS connection is one), a program or anything newly installed is
    /// refused by name; "-" and "none" are places except where they are not.
    @Test func elementsOutsideTheAllowListAndFileNamesThatLookSpecialAreRefused() throws {
        let found = try violations("""
            filesrc location=\(job)/input/a.wav ! fdsink name=wire fd=6
            fdsrc name=tap fd=0 ! fakesink
            fakesrc ! filesink name=dash location=-
            fakesrc ! filesink name=word location=none
            fakesrc ! transcriptsink location=-
            fakesrc ! streamtranslator cache-dir=none ! fakesink
            """)
        #expect(found.count == 4, "\(found)")
        #expect(found.contains { $0.hasPrefix("wire (fdsink) is not an element a job may use") }, "\(found)")
        #expect(found.contains { $0.hasPrefix("tap (fdsrc) is not an element a job may use") }, "\(found)")
        #expect(found.contains { $0.hasPrefix("dash (filesink): location \"-\" is outside the job's folder") }, "\(found)")
        #expect(found.contains { $0.hasPrefix("word (filesink): location \"none\" is outside the job's folder") }, "\(found)")
    }

    @Test func theNetworkDevicesAndASubmittersProviderAddressAreRefused() throws {
        let found = try violations("""
            fakesrc ! tcpclientsink name=out host=192.0.2.1 port=9
            fakesrc ! audioconvert ! autoaudiosink name=speakers
            playbin name=player uri=file://\(job)/input/a.wav
            fakesrc ! cloudstt name=stt provider=compatible base-url=http://192.0.2.1/v1 api-key-env=OPENAI_API_KEY ! fakesink
            """)
        #expect(found.count == 6, "\(found)")  // playbin, and the playsink and streamsynchronizer inside it
        #expect(found.contains { $0.hasPrefix("player (playbin) opens a device") }, "\(found)")
        #expect(found.contains { $0.hasPrefix("out (tcpclientsink) reaches the network (Sink/Network)") }, "\(found)")
        #expect(found.contains { $0.hasPrefix("speakers (autoaudiosink) opens a device") }, "\(found)")
        #expect(found.contains { $0.hasPrefix("stt (cloudstt): base-url \"http://192.0.2.1/v1\" is an address this worker was not given") },
                "\(found)")
    }
}
