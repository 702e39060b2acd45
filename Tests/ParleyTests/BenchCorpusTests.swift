import Foundation
import ParleyCore
import ParleyTestSupport
import Testing
@testable import Parley

/// Manifests, the conversation builder and how segments meet references:
/// the bench's pure parts, on files in a scratch folder.
@Suite struct BenchCorpusTests {
    let scratch = TestSupport.temporaryFolder()

    func write(_ name: String, _ text: String) throws -> String {
        let path = scratch.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func clip() throws -> String {
        let path = scratch.appendingPathComponent("clip.wav").path
        try FileManager.default.copyItem(atPath: SpeechFixtures.clips[0], toPath: path)
        return "clip.wav"
    }

    @Test func jsonLinesAndTSVSayTheSameCorpus() throws {
        let audio = try clip()
        let jsonl = try write("c.jsonl", """
            # a comment
            {"audio": "\(audio)", "text": "he was not an ill disposed young man", "translations": {"es": "no era un joven mal dispuesto"}, "speech": [[0.2, 2.5]]}

            """)
        let tsv = try write("c.tsv", "audio\ttext\ttranslation:es\tspeech\n\(audio)\the was not an ill disposed young man\tno era un joven mal dispuesto\t0.2-2.5\n")
        let fromJSON = try Corpus(manifest: jsonl), fromTSV = try Corpus(manifest: tsv)
        #expect(fromJSON.entries == fromTSV.entries)
        #expect(fromJSON.entries[0].id == "clip")
        #expect(fromJSON.entries[0].speech == [SpeechSpan(start: 0.2, end: 2.5)])
        #expect(fromJSON.audioPath(fromJSON.entries[0]) == scratch.appendingPathComponent("clip.wav").standardizedFileURL.path)
        // What the importers write reads back the same.
        let written = try write("again.jsonl", JSONLines.text(fromJSON.entries))
        #expect(try Corpus(manifest: written).entries == fromJSON.entries)
    }

    /// Pipecat's harness TSV: no header, a recording and its speech ends.
    @Test func recordingsAndTheirSpeechEndsNeedNoConversion() throws {
        let audio = try clip()
        let corpus = try Corpus(manifest: try write("ends.tsv", "\(audio)\t1.2,2.9\n"))
        #expect(corpus.entries == [CorpusEntry(id: "clip", audio: audio, speech: [SpeechSpan(start: 0, end: 1.2), SpeechSpan(start: 1.2, end: 2.9)])])
        let falling = try write("falling.tsv", "\(audio)\t2.9,1.2\n")
        do { _ = try Corpus(manifest: falling); Issue.record("falling ends were read") } catch {
            #expect(error.description.contains("falling.tsv:1: the speech ends must rise"), "\(error)")
        }
        let ragged = try write("ragged.tsv", "\(audio)\t1.2\n\(audio)\n")
        do { _ = try Corpus(manifest: ragged); Issue.record("a line without ends was read") } catch {
            #expect(error.description.contains("ragged.tsv:2: write the recording, a tab and its speech ends"), "\(error)")
        }
    }

    @Test func errorsNameTheFileAndLine() throws {
        let audio = try clip()
        let cases: [(String, String, String)] = [
            ("missing.jsonl", "{\"audio\": \"\(audio)\"}\n{\"audio\": \"nope.wav\"}\n", "missing.jsonl:2: audio nope.wav: no such readable file"),
            ("broken.jsonl", "{\"audio\": \"\(audio)\"}\n\n{\"audio\": \n", "broken.jsonl:3: not a manifest object"),
            ("noaudio.jsonl", "{\"text\": \"hello\"}\n", "noaudio.jsonl:1: no \"audio\""),
            ("span.jsonl", "{\"audio\": \"\(audio)\", \"speech\": [[2, 1]]}\n", "span.jsonl:1: speech span [2.0, 1.0]"),
            ("twice.jsonl", "{\"audio\": \"\(audio)\"}\n{\"audio\": \"\(audio)\"}\n", "twice.jsonl:2: id \"clip\" is also on line 1"),
            ("column.tsv", "audio\twords\n\(audio)\thi\n", "column.tsv:1: unknown column \"words\""),
            ("cells.tsv", "audio\ttext\n\(audio)\n", "cells.tsv:2: 1 cells, the header has 2"),
            ("speech.tsv", "audio\tspeech\n\(audio)\t1.5\n", "speech.tsv:2: speech \"1.5\""),
            ("manifest.csv", "audio\n", "a manifest is .jsonl or .tsv"),
        ]
        for (name, text, expected) in cases {
            let path = try write(name, text)
            #expect(throws: CorpusError.self) { try Corpus(manifest: path) }
            do { _ = try Corpus(manifest: path) } catch { #expect(error.description.contains(expected), "\(error)") }
        }
    }

    @Test func librispeechAndCommonVoiceLayoutsImport() throws {
        let chapter = scratch.appendingPathComponent("LibriSpeech/test-clean/84/121123")
        try FileManager.default.createDirectory(at: chapter, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: SpeechFixtures.clips[0], toPath: chapter.appendingPathComponent("84-121123-0000.flac").path)
        try "84-121123-0000 HE WAS NOT AN ILL DISPOSED YOUNG MAN\n".write(to: chapter.appendingPathComponent("84-121123.trans.txt"), atomically: true, encoding: .utf8)
        let libri = try CorpusBuilder.librispeech(root: scratch.appendingPathComponent("LibriSpeech").path)
        #expect(libri == [CorpusEntry(id: "84-121123-0000", audio: chapter.appendingPathComponent("84-121123-0000.flac").path,
                                      text: "he was not an ill disposed young man")])

        let voice = scratch.appendingPathComponent("cv-corpus/en")
        try FileManager.default.createDirectory(at: voice.appendingPathComponent("clips"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: SpeechFixtures.clips[0], toPath: voice.appendingPathComponent("clips/common_voice_en_1.mp3").path)
        try "client_id\tpath\tsentence\tup_votes\nabc\tcommon_voice_en_1.mp3\tHe was not an ill-disposed young man.\t2\n"
            .write(to: voice.appendingPathComponent("test.tsv"), atomically: true, encoding: .utf8)
        let common = try CorpusBuilder.commonVoice(tsv: voice.appendingPathComponent("test.tsv").path)
        #expect(common.map(\.id) == ["common_voice_en_1"])
        #expect(common.first?.text == "He was not an ill-disposed young man.")
        #expect(throws: CorpusError.self) { try CorpusBuilder.librispeech(root: voice.path) }
    }

    @Test func conversationsRecordWhereEachUtteranceIs() throws {
        let clips = try SpeechFixtures.librivoxWithTranscripts().prefix(3).map {
            CorpusEntry(id: URL(fileURLWithPath: $0.path).lastPathComponent, audio: $0.path, text: $0.text)
        }
        let talks = try CorpusBuilder.conversations(of: Array(clips), perConversation: 3, folder: scratch.path)
        #expect(talks.count == 1)
        let talk = try #require(talks.first)
        let spans = try #require(talk.speech)
        #expect(spans.count == 3)
        // In order, with pauses of 0.5-3 s of digital silence between them.
        let samples = try SpeechFixtures.samples(ofWAV: scratch.appendingPathComponent(talk.audio).path)
        for (before, after) in zip(spans, spans.dropFirst()) {
            #expect(after.start - before.end >= 0.5)
            // The clips' own quiet edges are noise; the pause between them is zeros.
            let between = samples[Int(before.end * 16_000)..<Int(after.start * 16_000)]
            var longestZeros = 0, run = 0
            for sample in between { run = sample == 0 ? run + 1 : 0; longestZeros = max(longestZeros, run) }
            #expect(longestZeros >= 8_000)
        }
        #expect(talk.text == clips.map { $0.text! }.joined(separator: " "))
        // The same corpus every time.
        let again = try CorpusBuilder.conversations(of: Array(clips), perConversation: 3, folder: scratch.path)
        #expect(again == talks)
    }

    @Test func eachReferenceEndIsMatchedToTheSegmentThatClosedIt() {
        func segment(_ id: UInt64, _ start: Double, _ end: Double) -> RunObservations.Segment {
            RunObservations.Segment(id: id, start: start, end: end, speechEnd: end - 0.5, reason: "silence")
        }
        let references = [SpeechSpan(start: 1, end: 3), SpeechSpan(start: 4, end: 6), SpeechSpan(start: 6.2, end: 8),
                          SpeechSpan(start: 20, end: 21)]
        // 0 closes the first; 1 stays open into the third's start (merged); nothing near the last (missed).
        let (matches, missed, merged) = BenchAnalysis.match(references, [segment(0, 0.7, 3.5), segment(1, 3.7, 8.5)])
        #expect(matches == [0: 0, 1: 2])
        #expect(missed == 1)
        #expect(merged == 1)
    }

    @Test func framesCountAsVadbenchDoes() {
        let counts = FrameCounts(reference: [true, true, false, false, true], hypothesis: [true, false, true, false, true])
        #expect(counts == FrameCounts(truePositives: 2, falsePositives: 1, falseNegatives: 1, trueNegatives: 1))
        #expect(counts.f1 == 2.0 / 3.0)
        #expect(counts.falseAlarmRate == 0.5)
        #expect(BenchAnalysis.grid([(0.0, 0.02), (0.04, 0.05)], count: 6) == [true, true, false, false, true, false])
    }

    @Test func aStagesElementsHaveTheSameKeysInEveryRun() throws {
        // Three translators and one cloudtts, parsed as every run parses them again.
        let launch = """
            fakesrc ! tee name=t t. ! queue ! streamtranslator target-language=es ! fakesink
            t. ! queue ! streamtranslator target-language=it ! fakesink
            t. ! queue ! streamtranslator name=french target-language=fr ! cloudtts ! fakesink
            """
        let first = BenchRunner.stageReporters(try Pipeline(launch: launch))
        let second = BenchRunner.stageReporters(try Pipeline(launch: launch))
        #expect(Set(first.values) == ["translate@streamtranslator0", "translate@streamtranslator1", "translate@french", "tts"], "\(first)")
        #expect(Set(second.values) == Set(first.values), "\(second)")
    }
}
