import GstKit
import ParleySpeech

extension VADSegmenterElement {
    public static let produces: [StructureDoc] = [
        StructureDoc(.message, "parley/vad", when: "once per segment, when the VAD ends it", fields: [
            SpeechDocs.segmentID,
            .init("start", .uint64, "Stream time of the segment's first sample, prefix padding included (ns)"),
            .init("end", .uint64, "Stream time where the segment was cut (ns); by silence, silence-duration-ms after speech-end less the detector's \(lookaheadMs) ms lookahead, which was heard by then and counts towards the silence (sooner when frames it doubted, under threshold + \(Segmenter.doubtBand), came before speech-end: they count in part)"),
            .init("speech-end", .uint64, "Stream time where its last speech frame ended (ns)"),
            .init("reason", .string, "Why it ended: silence, max-duration, ptt-release, eos, mode-change"),
            .init("mean-probability", .double, "Mean speech probability of its frames, 0 to 1"),
        ]),
        StructureDoc(.message, "parley/vad-level", when: "every level-interval-ms of audio, when that property is above 0", fields: [
            .init("start", .uint64, "Stream time of the interval's first sample (ns); in vad mode posted once the detector's lookahead after the interval has arrived (in ptt and always at once, with the detector's latest probability)"),
            .init("duration", .uint64, "Length of the interval (ns), a whole number of 10 ms frames"),
            .init("probability", .double, "Highest speech probability of the interval's frames, 0 to 1"),
            .init("level-db", .double, "RMS level of the interval in dBFS (-100 for digital silence)"),
            .init("peak-db", .double, "Peak sample level of the interval in dBFS (-100 for digital silence)"),
            .init("speaking", .boolean, "Whether a segment was open at the interval's end"),
        ]),
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
