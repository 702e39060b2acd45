import GstKit
import ParleySpeech

extension VADSegmenterElement {
    public static let produces: [StructureDoc] = [
        VADSegmentMessage.doc.describing("end", as: "Stream time where the segment was cut (ns); by silence, silence-duration-ms after speech-end less the detector's \(lookaheadMs) ms lookahead, which was heard by then and counts towards the silence (sooner when frames it doubted, under threshold + \(Segmenter.doubtBand), came before speech-end: they count in part)"),
        VADLevelMessage.doc,
        SpeechDocs.latency(stage: "vad", when: "once per segment", figures: [
            .init("eos-detection-ms", .double,
                  "From the end of speech to the decision that the segment is over, in audio time (in vad mode the detector's \(lookaheadMs) ms lookahead included, but for a segment closed by EOS; ptt and always do not wait for it). A segment closed by silence reports silence-duration-ms, the lookahead counting towards it, or less when frames the detector doubted (under threshold + \(Segmenter.doubtBand)) came before its last speech frame: they count towards the silence in part"),
        ], queued: false),
        SpeechDocs.speechStart,
        SpeechDocs.speechEnd,
        SpeechDocs.speechLikelyEnd,
        SpeechDocs.speechResumed,
        SpeechDocs.meta,
    ]
}
