"""Trains vadsegmenter's speech classifier and writes its weights as Swift.

    benchmarks/vad/train/run          (builds parley-bench, makes a venv with numpy)

Training audio never comes from vadbench (which stays the test): speech is
Asterisk's Italian (Carlo, male), Spanish (Allison), French (June) and Russian
prompts (8 kHz; `--wideband` adds their 16 kHz G.722 takes and Menardi's Italian),
espeak-ng sentences, 1000 utterances by flite's four English voices (16 kHz;
`--flite`) and 2,331 words, letters, prompts and lines of dialogue by real
talkers (`--more-speech`, package_speech.py: KTuberling, KLettres, two more
Asterisk voices, Fish Fillets); non-speech is the freedesktop sound theme (bells,
alarms, phone tones; not its spoken channel names), Asterisk's tone files
other than the ones vadbench uses, OpenTTD's sound effects (openttd-opensfx:
machines, vehicles, animals, crowds), 662 animal, instrument, music and work
recordings (`--more-sounds`, package_sounds.py: GCompris, Wesnoth, Widelands,
Sonic Pi), and synthetic tones, DTMF, chirps, clicks,
buzzes, harmonic glides and noise bursts. Items are laid out with pauses and
mixed into room tone, white and pink noise at 20/10/5/0/-3 dB, like vadbench's
conditions but with other seeds and other audio. Labels come from each clean
speech clip's energy (vadbench's rule: floor + 12 dB or peak - 35 dB, runs under
30 ms dropped, 20 ms dilation, pauses under 200 ms filled).

Features are computed by the Swift front end itself (`parley-bench
vad-features`), so training and the element can never disagree.

Distillation: Silero VAD v5 (the ONNX model shipped in the MIT-licensed
silero-vad wheel, run with onnxruntime; none of its code is used) listens
to every training stream too, and its per-frame probability is kept with
the frames; `--teacher-weight` mixes it into the target. Trials on this
front end (teacher 0.3; speech weight 1.4-1.6; sound weight 4-5; 800 ms of
block context) moved frame F1 and distractor false alarms against each
other without beating the shipped weights on both, so the default is 0
and the shipped weights are the labels-only model. The frames (features,
labels, teacher) are cached in --work, named by the front end's feature
count and a digest of what it makes of a fixed probe (so a changed front
end makes them again); --fresh makes them again regardless.

The shipped detector is `--model context` (the default): the frame
network (180 features -> 32 -> 16 -> 1, ReLU, trained plain), then a second
network on its last hidden layer and logit now and their means over 1-2,
3-6, 7-14 and 15-30 frames back (85 -> 64 -> 1), trained with the first
150 ms of each utterance weighed 3x and the 200 ms after each end 5x
(`--onset-weight`, `--tail-weight`): it must open fast and let go on time.
Beside that second network each member has a recurrent head on the same
inputs (85 -> 32 -> GRU 16 -> 1, `--recurrent-state`, gru.py; see "A
recurrent head" at the end), trained on the same weights, and the member
averages the two.
Both learn each frame's label four frames late (`--lookahead 4`, see "A
decision that waits" and "The lookahead again" at the end): the element
decides a frame 40 ms after it.
Speech frames weigh 1.5x non-speech and sounds 7x (`--positive-weight`,
`--sound-weight`; see "Weighing speech up", "Fricatives over 4 kHz",
"A voice under 80 Hz" and "Sounds at other speeds" below for why), and speech in the long streams' white noise at 10 dB and
under 1.75x more again (`--noisy-speech-weight`, `--noisy-colours`; see
"White noise" and "Sounds at other speeds"). 60% of the non-speech items
are recordings, each also played at two other speeds (`--recorded-share`,
`--sound-variants`; "Sounds at other speeds").
The element smooths its logit unevenly (rises kept at 0.3, falls at 0.7;
0.6 since the lookahead, below).
On vadbench (as the element decides) it brought distractor false alarms to
at most 5% in every condition (the frame network alone: up to 14%) and F1 at
0 dB up by 0.010-0.011, at the cost of 0.001-0.004 in the clear and at white
20 and 5 dB; end of speech held at 500 ms (median). What it could not fix: pocketsphinx's cards recordings,
whose loud syllables the frame network scores near 0 (a recording noise bed
under the training speech, `--beds 0.5`, moved them little and raised false
alarms; default off).

`--model mlp` trains the frame network alone (the detector before the
context stage). `--model gru` trains a recurrent classifier instead
(gru.py). Its Swift forward pass lives on the `vad-gru` branch, not on main:
on vadbench it cut distractor false alarms to 0-4% in every condition (sound
weight 4, teacher 0.3) but lost clean F1 (0.921) and opened segments after
digital silence up to a second late. The context stage reaches back a fixed
300 ms, so no state can drift over a long silence.

`--wideband` (14 streams) moved F1 up in noise and down in the clear, not
past the MLP: MLP [32, 16] 0.946 clean (12% false alarms) and 0.925 pink
0 dB (then main: 0.950 / 0.916); with sound weight 3 and teacher 0.3, false
alarms 0-6% but clean F1 0.944; the GRU (sound weight 4, teacher 0.3) 0.943
clean, 0.928 pink 0 dB, false alarms 0-7%. A wider MLP ([64, 32]) did not
help either (0.948 clean, 0.912 pink 0 dB): what is missing is context
(fricatives inside words look like the noise bursts it learned to refuse),
not width.

Trials of the context stage, on vadbench as the element decides: Silero as
teacher (0.5 or 1.0) lost 0.02-0.08 of F1 at pink 0 dB; symmetric smoothing opened 20-40 ms later; onset weight 6 or tail
weight 4-6 traded F1 for delay; a second network on all 158 features as well
(cost x2) was no better. Frames' stream lengths are cached with them, so no
context window straddles two streams.

Streams that start on a sound (`--openings`, 600 by default): the long
streams above open on an item only a few dozen times, so the context stage
had hardly seen a stream whose first frames are a sound, with no noise floor
yet and its 300 ms windows still empty. It held a 440 Hz tone at the very
start of a stream for 0.4 s and opened a segment (the old detector did not).
600 short streams (1-3 items, the first a sound 70% of the times and at
least 1 s long, each in one of the conditions at random) fixed that: on the
tone, 2 frames of 300 over 0.5 (before: 40), no segment; Asterisk's
tt-monkeys alone 2 segments (before: 3). On vadbench: F1 0.946 clean,
0.924-0.949 in noise, distractor false alarms 0-5% except white and pink
0 dB (5%, 7%), end of speech 500 / 670 ms. 300 openings: the tone 17 frames
over 0.5, pink 0 dB 6%. Training the same frames with other seeds moves F1
by up to 0.003 and the 0 dB false alarms between 4% and 13%, end-of-speech
p95 between 666 and 780 ms: differences of that size between trials are
noise, not a finding.

Digital silence: with the weights above, LibriVox sentences joined by 1 s of
zeros (as WhisperTests builds its recording) lost their first 0.9 s. Over
the zeros the noise floor fell to nothing, so for 1.5 s the recording's own
hiss and the speech both sat at the 40 dB clamp in every band, where they
look alike. The front end now skips digitally silent frames when it tracks
the floor (SpeechFeatures.swift, NoiseFloor), and the frames were made
again: the segment opens at the sentence's start (8.40 s, speech at 8.35 s;
the detector before the context stage 8.40 s); the tone at a stream's start
still opens nothing. On vadbench: F1 0.944 clean, 0.923-0.952 in noise,
distractor false alarms 0-4% except white and pink 0 dB (9%, 8%), end of
speech 510 / 690 ms.

Wideband speech (`--flite`, 1000 by default): every talker above was on a
phone line, so nothing the network had heard as speech had energy over
3.4 kHz, and its top bands (3150-3900 Hz) had learnt "energy here is not
speech". vadbench's microphone recordings have it: low-passed to 3.3 kHz,
vadbench's clean recall rose from 0.923 to 0.971 (and precision fell, as
sounds lost their top too). pocketsphinx's loud "five five" (cards/004) sat
2.2 standard deviations over the training speech in those bands. flite (a
Debian package; voices awb, kal16, rms and slt: three men and a woman) reads the
GPL's sentences and strings of digits at 0.85-1.5x duration, 30% of them
made lower or slower by sox, at -36 to -10 dBFS. Scored on vadbench as the
element decides, three model seeds each:

| | clean F1 | noise F1 | false alarms (0 dB white / pink) | end of speech p95 |
|---|---|---|---|---|
| none (before) | 0.943-0.946 | 0.923-0.955 | 5-9% / 2-8% | 670-814 |
| 400 | 0.952-0.958 | 0.925-0.959 | 10-12% / 6-9% | 660-680 |
| 1000 (2 seeds) | 0.955-0.959 | 0.927-0.958 | 7-12% / 0-3% | 650-656 |

The distractor sounds alone at a stream's start (alsa-utils' Noise.wav)
no longer open a segment. Tried and not kept: making 30% of Asterisk's
prompts slower, lower and louder (sox; F1 +0.002-0.008 but 19-20% false
alarms at white 0 dB), and shipping the mean of the last 4 epochs' weights
(no better than the last step's).

Weighing speech up: with the weights above the detector missed more speech
than Silero (clean recall 0.935, Silero 0.952) at a precision as high as
its (0.977, Silero 0.978); a logit offset of +0.5 alone gave 0.937-0.959 F1
(beating Silero at white and pink 0 dB) but 7-8% false alarms at 0 dB and
end of speech 530 / 743 ms. Trained in instead (`--positive-weight`), with
sounds weighed more to hold the false alarms and a context stage twice as
wide (paid for by DenseNetwork's blocked layers: the whole detector still
costs less than before), two model seeds each, as the element decides:

| | clean F1 | noise F1 | false alarms (0 dB white / pink) | end of speech median / p95 |
|---|---|---|---|---|
| before (speech 1, sounds 2, context 32, tail 3) | 0.955-0.959 | 0.927-0.958 | 7-12% / 0-3% | 500 / 650-656 |
| speech 1.6 | 0.960 | 0.936-0.960 | 14-18% / 8-10% | 520-530 / 668-737 |
| speech 1.6, sounds 4 | 0.954 | 0.933-0.957 | 3-7% / 3-5% | 520-525 / 693-697 |
| and context 64 | 0.954-0.956 | 0.936-0.957 | 3-4% / 3-5% | 520-530 / 687-707 |
| **and tail 4 (shipped then)** | 0.953-0.956 | 0.930-0.956 | 3-4% / 3-4% | 510-520 / 680-690 |
| and tail 5 | 0.953-0.955 | 0.929-0.955 | 3-4% / 0-4% | 500-510 / 660-680 |
| speech 1.6, sounds 4, frame network [48, 24] | 0.956-0.959 | 0.932-0.960 | 4-8% / 0-3% | 520 / 690-780 |

That row was the first whose false alarms stay at or under 5% in
every condition with both seeds; its F1 is the same as before within the
seeds' spread, and it lets go 10-20 ms later. Holding on longer is what
buys F1 in noise here (tail 3 against 5: +0.007-0.009 at pink 0 dB, +20 ms
at the median). The mean of two seeds' logits (an ensemble, twice the network)
added 0.001-0.002 of F1: not worth its cost.

Fricatives over 4 kHz: the front end stopped at 3.9 kHz (so that 8 kHz
audio has every band), and wideband talkers' s, sh and f, most of whose
energy is over 4 kHz, were dips in the speech: in vadbench's clean
condition, the frames missed had a median 4-8 kHz level 8 dB under the
0.15-4 kHz one, the frames found 33 dB under. The front end now also
gives 3 bands over 4 kHz (4-5, 5-6.25, 6.25-7.75 kHz: level over their
floor and against the frame's mean; SpeechFeatures.swift), 164 features.
They also let clipped speech and crowds of monkeys look more like speech,
so sounds now weigh 6x (`--sound-weight`, was 4). Two model seeds each, as
the element decides:

| | clean F1 | noise F1 | false alarms | end of speech median / p95 |
|---|---|---|---|---|
| before (15 bands, sounds 4) | 0.953-0.956 | 0.930-0.956 | 0-4% | 510-520 / 680-690 |
| 3 bands over 4 kHz | 0.954-0.956 | 0.934-0.962 | clean 4-6%, white 20 dB 0-5%, 0 dB 0-3% | 530 / 670-697 |
| **and sounds 6 (shipped)** | 0.958-0.960 | 0.928-0.961 | 0-3% | 520 / 680-697 |
| and tail 5 | 0.956-0.959 | 0.926-0.959 | 0-3% | 510 / 670-680 |
| and speech 1.8 (one seed) | 0.951 | 0.935-0.961 | clean 19%, 0-6% in noise | 530 / 680 |
| and 15% of speech clipped 6-20 dB | 0.953-0.958 | 0.930-0.960 | clean 0-7%, pink 5 dB 0-6% | 520 / 680 |
| sounds 5 instead of 6 | 0.953-0.954 | 0.933-0.959 | 0-9% (5-9% in 2-3 conditions) | 520-530 / 677-687 |
| sounds 6 and Asterisk's wideband prompts (`--wideband`) | 0.944-0.954 | 0.931-0.959 | clean 6-43%, pink 20 dB 4-8% | 520-530 / 677-737 |
| sounds 6, 20 epochs (`--epochs`, was 12) | 0.956-0.960 | 0.929-0.960 | 0-3% | 520 / 680-690 |
| sounds 6, 16 streams (`--streams`, was 10) | 0.955-0.956 | 0.936-0.959 | clean 4%, 0-4% in noise | 520-530 / 667-680 |
| and sounds 7 | 0.950-0.953 | 0.932-0.958 | clean 3-4%, 0% in noise | 520-530 / 680-686 |

With the shipped model, espeak-ng's Spanish lost 5 frames in the clear
(the model shipped before: 45; Silero 2) and LibriVox 26 (before 69; Silero
17). What is left is mostly pocketsphinx's cards recordings (175 frames;
Silero 87), whose "five five" (cards/004) is clipped at full scale, so its
spectrum is as flat as a noise burst's; clipping 15% of the training speech
(its row) found 20-40 more of their frames but let more sounds through:
not kept. Asterisk's wideband takes of the same prompts let sounds through
in the clear (6-43%); more epochs changed nothing beyond the seeds'
spread; 16 streams (the same clips in more mixes) reached 0.936-0.937 at
pink 0 dB (Silero 0.934) but lost 0.004 in the clear with 4% false alarms
there, and sounds weighed 7x with them lost more.

End of speech: of the utterances whose end is found late in the clear
(100-140 ms after the labelled end), on LibriVox 0870 and 0930 and
Asterisk's agent-alreadyon the frame network alone, before the context
stage and the smoothing, already calls speech 110-130 ms past the label;
on cards 001 and 003 it lets go in time and the context stage holds on
90-110 ms. The smoothing adds 10-20 ms. Falls smoothed at 0.5 instead of 0.7 end speech
at 510 / 686 ms for 0.003-0.006 of F1 in every condition: not kept.

A gated fall, tried on the shipped weights (no training): a fall towards a
context logit over -T is smoothed at K instead of 0.7, so a shallow dip
inside a word holds while a plunge into silence does not. F1 rises in every
condition (false alarms in parentheses where any; Silero's are 0-5%
everywhere), but real ends fade through shallow logits too, and the end of
speech (median / p95, ms) pays for it:
  K 0.80, T 1.0:  0.966 / 0.966 0.960 0.957 0.949 (3%) / 0.965 0.957 0.949 0.935, 530 / 660
  K 0.85, T 0.75: 0.966 / 0.966 0.961 0.957 0.950 (3%) / 0.965 0.958 0.950 0.935 (3%), 535 / 660
  K 0.85, T 1.5:  0.967 / 0.967 0.962 0.959 0.951 (3%) / 0.966 0.960 0.952 0.939 (3%), 540 / 670
  K 0.85, T 3.0:  0.967 / 0.967 0.962 0.960 0.952 (3%) / 0.967 0.961 0.953 0.939 (3%), 560 / 680
  K 0.90, T 5.0:  0.965 / 0.965 0.961 0.959 0.953 (3%) / 0.966 0.962 0.955 0.944 (4%), 590 / 720
(shipped: 0.965 / 0.964 0.958 0.954 0.946 (3%) / 0.964 0.954 0.946 0.931, 520 / 650;
Silero, 0-5% false alarms: 0.965 / 0.962 0.964 0.955 0.945 / 0.962 0.957 0.948 0.934,
530 / 650).
A faster fall (0.4-0.5) for logits under -3 or -4 on top of it gives back
nothing: ends that plunge already cross 0 within two frames. So on these
weights F1 over Silero's in the noise and an end of speech within 20 ms of
the silence setting pull against each other, 10 ms of median per 0.001-0.002
of F1. Not kept: the median is a target met now. These were read off
vadbench, so a gate shipped from them would be tuned on the test set; choose
K and T on the training streams instead.

The model seed was then 1 (`--model-seed`, was 20261124; 9 since the lookahead). The two seeds score
alike on vadbench (the table's ranges), but with 20261124 alsa-utils'
Front_Center.wav resampled to 16 kHz, a stream that starts on a word,
made no segment at all; with 1 it makes one. Against the model shipped
before, the shipped one is 0.002-0.005 better in seven conditions, 0.002
worse at white 5 dB and 0.004 at pink 0 dB, and still 0.003-0.011 behind
Silero in every condition.

Periodicity at a voice's pitch: what the detector still missed against
Silero was mostly voiced speech whose band levels look like something
else, pocketsphinx's cards clipped at full scale (a spectrum as flat as a
noise burst's) and vowels in white noise at 10 dB, and clipping more of
the training speech (`--clipped 0.05` on the vad-clip5 branch: clean F1
0.954-0.957 with 0-17% false alarms) did not teach it. The front end now
also measures how periodic the last 16 ms are over 2.5-12.5 ms
(Periodicity.swift: low-passed to 1 kHz, decimated to about 4 kHz, the
highest normalised autocorrelation), a ninth per-frame summary with its
history, 180 features. On vadbench's clean condition it is 0.92 at the
median over speech frames and 0.33 over the rest, and the frame
network's training loss fell from 0.340 to 0.270. It costs about 7 k
instructions a frame; with the window's and the harmonic spacing's loops
made cheaper on the way, the detector costs 60,380 in all (was 57,099). With it, the 200 ms after each end weigh 5x (`--tail-weight`, was
4): the context stage held on 10 ms longer at the median. Two model seeds
each, as the element decides (Silero: 0.965 clean, 0.934-0.964 in noise,
end of speech 530 / 650):

| | clean F1 | noise F1 | false alarms | end of speech median / p95 |
|---|---|---|---|---|
| before (164 features, tail 4) | 0.958-0.960 | 0.928-0.961 | 0-3% | 520 / 680-697 |
| periodicity (25 filter taps, every 2nd lag) | 0.962-0.965 | 0.936-0.963 | 0-3% | 530 / 650-670 |
| periodicity (17 taps, every 3rd lag), tail 4 | 0.961-0.965 | 0.936-0.964 | 0-3% | 530 / 660-700 |
| **and tail 5 (shipped)** | 0.961-0.965 | 0.933-0.964 | 0-3% | 520 / 650-677 |

Also tried on the model before, not kept: hysteresis (a frame inside a
segment stays speech down to 0.35 or 0.4, as Silero's own iterator does)
added 0.001-0.007 of F1 but ended speech at 530-540 / 720-730 ms, with 6%
false alarms at white 0 dB at 0.35: the same trade as holding on longer.

Where the rest of the gap in white noise is: at white 10 dB the frames we
miss and Silero finds are as aperiodic as non-speech (median periodicity
0.30), two thirds of them dips inside an utterance (weak or unvoiced
stretches, pauses under 200 ms the labels fill), which Silero's recurrent
state holds through at the cost of more false-alarm frames. Weighing speech
up where the noise is strong is that same trade (model seed 1, as the
element decides; main: 0.965 clean, 0.935-0.961 in noise, 520 / 650):

| | clean F1 | noise F1 | false alarms | end of speech median / p95 |
|---|---|---|---|---|
| `--noisy-speech-weight 1.5` (long streams at 10 dB and under) | 0.962 | 0.936-0.964 | 0-4% | 530 / 753 (pink 0 dB p95 1078) |
| the same, frame network only (`--noisy-stage frame`) | 0.963 | 0.933-0.963 | 0-3% | 520 / 650 |
| a fifth context window, 310-600 ms back (`--context-windows`) | 0.965 | 0.932-0.960 | 0-3% | 520 / 677 |
| `--noisy-speech-weight 1.5 --noisy-colours white` | 0.964 | 0.935-0.963 | 0-4% | 520 / 667 |

The first is ahead of Silero at white 0 dB and pink 20, 5 and 0 dB because
its context stage holds on in noise, and ends speech up to a second late in
pink noise: not kept, nor the next two. The last, white noise only, is
ahead of Silero at white 20 and 0 dB and pink 20 and 0 dB and level at
white 5 dB (0.005 behind at white 10 dB), with 4% false alarms at white
0 dB and later ends in white 5 and 0 dB (p95 680-684): one seed, not yet
judged over a second one. End of speech p95: in 18 of vadbench's
32 clips the 100 ms kept after the labelled end (the trim) holds the
recording's floor or a weak last phone within 35 dB of the clip's peak;
both detectors hear it, so the five latest ends (600-670 ms, LibriVox 0870,
0890, 0930, agent-alreadyon, cards 003) are 500-570 ms after the trim,
for Silero as for us.

White noise: the white-noise-only weight judged over two model seeds, each
against the plain model of its seed (1: main before, 0.965 / 0.961, 0.958,
0.948, 0.940 / 0.961, 0.955, 0.947, 0.935; 20261124: 0.961 / 0.961, 0.956,
0.951, 0.940 / 0.964, 0.955, 0.945, 0.933). F1 clean / white 20, 10, 5, 0 dB
/ pink 20, 10, 5, 0 dB, as the element decides, with false alarms where
any, and end of speech:

| | seed | F1 | false alarms | end of speech median / p95 |
|---|---|---|---|---|
| weight 1.5 | 20261124 | 0.960 / 0.960, 0.959, 0.956, 0.949 / 0.960, 0.955, 0.948, 0.937 | white 0 dB 2% | 530 / 630 |
| weight 1.25 | 1 | 0.964 / 0.964, 0.960, 0.953, 0.946 / 0.963, 0.956, 0.947, 0.934 | 0 dB 4% | 520 / 650 |
| weight 1.25 | 20261124 | 0.960 / 0.961, 0.959, 0.953, 0.945 / 0.961, 0.956, 0.946, 0.937 | white 0 dB 3% | 530 / 653 |
| **weight 1.25, sounds 7 (shipped)** | 1 | 0.965 / 0.964, 0.958, 0.954, 0.946 / 0.964, 0.954, 0.946, 0.931 | white 0 dB 3% | 520 / 650 |
| weight 1.25, sounds 7 | 20261124 | 0.962 / 0.962, 0.959, 0.954, 0.947 / 0.962, 0.956, 0.947, 0.939 | white 0 dB 4% | 530 / 687 |
| and a context stage of 96 (`--context-hidden`) | 1 | 0.966 / 0.963, 0.957, 0.954, 0.946 / 0.963, 0.955, 0.947, 0.931 | white 0 dB 3% | 520 / 640 |
| Silero v5 | | 0.965 / 0.962, 0.964, 0.955, 0.945 / 0.962, 0.957, 0.948, 0.934 | 0-5% | 530 / 650 |

Over both seeds the shipped recipe gains 0.002-0.007 at white 20, 5 and
0 dB, 0.001-0.002 at white 10 dB and level elsewhere on average; with seed 1
(shipped) it is level with or ahead of Silero in the clear, at white 20 and
0 dB and at pink 20 dB, and its false alarms are at or under Silero's in
every condition (the model before: 3% at pink 0 dB, Silero 0%). It is
behind at white 10 dB (0.006), white 5 dB (0.001), pink 10 and 5 dB
(0.002-0.003) and pink 0 dB (0.003, where the seed's spread is 0.008). A
wider context stage (96) is within the seeds' spread for 1.5x its cost.
Both 20261124 models with weight 1.25 split alsa-utils' Front_Center
("Front ... Center", 230 ms of digital zeros between the words) in two.
The model before keeps it whole with 40 ms to spare: its frame network
scores the "s" and the first 80 ms of the vowel of "Center" under 0
(logits -2.5 to -12.7), so 460 of the 500 ms of silence run out before the
word is found; with 0.5 s of room tone at -60 dBFS before and under the
file it finds the vowel at once. Seed 1 makes one segment.

A floor under the noise floor, tried without training again: with every
band's floor at least 1e-5 (white noise at about -73 dBFS; NoiseFloor's is
1e-11), both seeds find the vowel of "Center" at once (the shipped model at
0.95 s instead of 1.03, the split one at 0.81 instead of 1.17, and makes one
segment), and vadbench, whose room tone lies over it, scores the same in
all nine conditions (1e-4: 0.002 lost in the clear). But a quiet recording
loses its weak frames: vadbench's clean condition 20 dB down scores 0.949
instead of 0.965, 35 dB down 0.866 instead of 0.962. Not kept; a floor held
within a fixed range under the recent speech level, not an absolute one,
is the lead.

That relative floor, tried next: every band's floor held no lower than R dB
under the loudest band's smoothed power of the last 1.5 s (a ring of
per-sub-window maxima beside the minima). With the shipped weights and no
training, R = 45 finds "Center" at 0.90 s but loses weak frames in the clear
(0.956), R = 50 loses 0.004 there, and R = 60 leaves all nine conditions as
they are, keeps the quiet recordings (20 / 35 dB down: 0.965 / 0.962), finds
"Center" at 0.95 s and keeps the other seed's Front_Center in one segment.
But it changes the training frames: 7.4% of them, half of every clean
("digital") and room-tone stream, whose speech lies more than 60 dB over
their floor. Trained on them (--fresh), neither seed kept its figures:
  R = 60, seed 1:        0.963 (0%) / 0.961 0.957 0.953 0.946 (0%) /
                         0.961 0.954 0.945 0.930 (7%), end of speech 520 / 637
  R = 60, seed 20261124: 0.956 (4%) / 0.960 0.956 0.952 0.947 (3%) /
                         0.961 0.954 0.945 0.932 (0%), end of speech 530 / 684
against 0.965 / 0.964 0.958 0.954 0.946 / 0.964 0.954 0.946 0.931 and
0.962 / 0.962 0.959 0.954 0.947 / 0.962 0.956 0.947 0.939 without it: 0.001-
0.007 lost in nearly every condition, and false alarms in the clear or at
pink 0 dB. The shipped weights with R = 60 and no training also score a
little lower on those clean training streams (F1 0.9786 -> 0.9776 digital,
0.9760 -> 0.9758 room). Not kept. Why is not known; a guess is that in
clean audio the bands' height over the true floor is part of what tells a
word from a sound, and the hold takes it away.

Scored on the training streams instead (streams.py: the element's decisions
over the ten long streams in every condition, against their labels), the
smoothing shipped is where those streams want it, and vadbench is not:
  shipped (rises 0.3, falls 0.7):   mean F1 0.9548, end of speech 560 / 800 ms
  rises at 0.15:                    0.9552, 560 / 880 (vadbench: +0.001-0.002 in
                                    six conditions, 520 / 650; rises at 0: 530 / 680)
  gated fall K 0.75, T 0.5:         0.9549, 560 / 800
  gated fall K 0.8, T 1.0:          0.9549, 570 / 810
  gated fall K 0.85, T 1.5:         0.9540 (digital 0.9766 against 0.9786), 590 / 820
(the end of speech here counts every utterance of 60 per stream, so its p95
is not vadbench's). The gate that gains 0.002-0.008 on vadbench loses in the
clear and at 20-5 dB on the training streams and gains only at 0 and -3 dB:
vadbench's recorded talkers have weak stretches inside their sentences that
Asterisk's studio prompts and flite's voices do not. Not kept, nor the faster
rise, whose small gain costs 80 ms of p95 on the training streams.

Weak stretches trained in (`--gain-wander 0.5`): half of the speech items
get a drifting gain (4-8 dB standard deviation over about 150 ms, at most
18 dB down, labels unchanged), so syllables sink into the noise as a real
talker's do. As the element decides on vadbench, against the same seed's
model without it:
  seed 1:        0.963 / 0.961 0.958 0.954 0.946 (3%) / 0.961 0.955 0.947 0.938 (4%), 540 / 680
  seed 20261124: 0.962 / 0.963 0.960 0.955 0.950 (3%) / 0.964 0.958 0.949 0.936, 530 / 700
(without: 0.965 / 0.964 0.958 0.954 0.946 (3%) / 0.964 0.954 0.946 0.931, 520 / 650 and
0.962 / 0.962 0.959 0.954 0.947 (4%) / 0.962 0.956 0.947 0.939, 530 / 687). It
holds on through dips, as the gate does, and pays at the end of speech the
same way; seed 1 loses 0.002-0.003 in the clear and at 20 dB, seed 20261124
splits alsa-utils' Front_Center again. Not kept (default 0).

What is left of the gap, read off vadbench's white 10 dB (the shipped model,
frames missed against Silero's): 247 against 194 in the first 150 ms of a
labelled run, 369 against 262 inside it, 128 against 106 in its last 150 ms;
precision 0.980 against 0.976. A logit offset of +0.5 or +1.0 (recall up to
Silero's and past) reaches only 0.962 there, so it is not the operating point
alone: LibriVox 0920 opens 170 ms late (a weak first consonant in the noise,
Silero 30 ms) and Asterisk's demo-echotest misses 43 more frames than Silero in its pauses'
fades (and Silero misses 26 fewer there than it does at 20 dB). A cue to tell a
sentence's end from a pause inside it is what the context stage has not got,
but the two obvious ones do not tell them apart on vadbench either: over the
250 ms before the detector lets go, the slope of log pitch (autocorrelation,
voiced frames) and of frame energy separate the falls at a sentence's end
from those inside it no better than chance (AUC 0.38 and 0.53 in the clear,
0.47 and 0.28 at white 10 dB; 20-27 ends against 59-86 pauses). Nor do
final lengthening (the last voiced run's length before the fall: AUC 0.45
clean, 0.31 at white 10 dB, the runs before a pause being the longer) or the
time since the segment opened (0.65 and 0.56).

Ensembles, again (the mean of several seeds' context logits, then the
smoothing; a scratch build, on vadbench as the element decides). Two more
seeds of the shipped recipe (`--model-seed 2`, `3`) show how lucky seed 1 is
in the clear. F1 clean / white 20 10 5 0 / pink 20 10 5 0, end of speech:
  seed 2:              0.960 (4%) / 0.960 0.957 0.951 0.944 (3%) / 0.959 0.955 0.945 0.929, 530 / 660
  seed 3:              0.962 / 0.959 0.959 0.955 0.948 (3%) / 0.962 0.956 0.949 0.933, 520 / 647
  seeds 1, 2:          0.964 / 0.961 0.958 0.951 0.943 (3%) / 0.962 0.956 0.948 0.933, 530 / 640
  seeds 1, 3:          0.965 / 0.962 0.959 0.953 0.944 (3%) / 0.962 0.957 0.948 0.935, 520 / 640
  seeds 1, 2, 3:       0.965 / 0.962 0.960 0.953 0.945 (3%) / 0.962 0.957 0.949 0.934, 520 / 640
  seeds 1, 20261124:   0.965 / 0.963 0.959 0.955 0.947 (3%) / 0.964 0.956 0.948 0.937, 520 / 647
An ensemble is as good as the better half of its seeds, not better than the
best: against seed 1 alone (shipped) it gains at pink 10-0 dB and loses at
white 20-5 dB, except with 20261124, whose pair is behind Silero only at
white 10 dB (0.959 against 0.964), pink 10 dB (0.9565 against 0.9574) and
white 5 dB (0.9548 against 0.9552). But that pair splits alsa-utils'
Front_Center ("Center" found at 1.34 s, after the silence ran out), and each
member adds about 17 k instructions a frame (two: about 74 k, near the
2000x floor). Not kept.

Joint fine-tuning (a scratch script, not kept): both networks trained
further together from their trained weights, the context stage's loss
(its onset and tail weights) reaching the frame network through the
windows' means, plus 0.3 of the frame network's own loss; chunks of 2 s
with the 300 ms before each as history, 4 epochs, Adam at 1e-3 falling
0.7x an epoch. The training loss fell from 0.395 to 0.390 (8 epochs:
0.381). As the element decides on vadbench, against the model each began from:
  seed 1:                    0.966 / 0.964 0.959 0.955 0.945 (3%) / 0.964 0.956 0.946 0.933, 520 / 650
  seed 1, other chunk order: 0.964 / 0.964 0.959 0.953 0.942 (3%) / 0.964 0.957 0.949 0.935, 520 / 640
  seed 3:                    0.964 / 0.960 0.959 0.956 0.946 (3%) / 0.962 0.957 0.950 0.933, 520 / 650
    (from 0.962 / 0.960 0.959 0.955 0.948 (3%) / 0.962 0.956 0.949 0.933, 520 / 647)
  seed 20261124:             0.964 / 0.963 0.960 0.955 0.948 (4%) / 0.963 0.955 0.945 0.936, 530 / 737
    (from 0.962 / 0.962 0.959 0.954 0.947 (4%) / 0.962 0.956 0.947 0.939, 530 / 687)
Averaged over the four, 0.0002-0.0011 gained in eight conditions and 0.0012
lost at white 0 dB, but each condition moved both ways between runs by up
to 0.004: the seeds' spread, not a gain. White 10 dB rose 0.0003-0.0004 in
every run and stays 0.005 behind Silero: the lower training loss did not
carry over, so what is missing there is not a better fit to these frames.

Two more talkers (not kept): Asterisk's Colombian Spanish and Armelle's
French prompts (asterisk-prompt-es-co, asterisk-prompt-fr-armelle; GSM at
8 kHz, 150 each: 296 clips, 16% of the speech), frames made again:
  seed 1:        0.959 (4%) / 0.960 0.954 0.949 0.947 (3%) / 0.959 0.952 0.947 0.936, 530 / 650
  seed 20261124: 0.959 / 0.960 0.952 0.948 0.946 (3%) / 0.958 0.949 0.941 0.927, 530 / 690
Seed 1 lost 0.003-0.006 in the clear, at white 20-5 dB and pink 20-10 dB
(and gained 0.001-0.005 at white 0 dB and pink 5-0 dB); seed 20261124 lost
0.001-0.012 in every condition.

vadbench holds one draw of each noise, and F1 moves with the draw by up to
0.004 for Silero and 0.007 for this detector (pink 0 dB):
`benchmarks/vad/draws.py` scores a build against Silero on four more draws
of the same recipe. Over its five draws the shipped model is level with
Silero at white 20 and 0 dB and pink 20 and 0 dB, and behind by 0.005 at
white 10 dB, 0.003 at white 5 dB, 0.004 at pink 10 dB and 0.003 at pink
5 dB: gaps of 0.001-0.002 on vadbench's own draw are within it, and a trial
that moves one condition by that much has not been shown to move it.

Real talkers on their own microphones (not kept): 1458 of Tux Paint's spoken
stamp descriptions (tuxpaint-stamps-default: a word to a sentence each, about
a dozen people in twelve languages, wideband, with their rooms' hiss under
them) added to the speech. Seed 1: 0.962 / 0.960 0.955 0.951 0.947 / 0.962
0.953 0.943 0.930 (14%), 540 / 830; seed 20261124: 0.958 (6%) / 0.962 0.956
0.950 0.945 / 0.964 0.950 0.943 0.929 (11%), 530 / 753: worse nearly
everywhere, with false alarms at pink 0 dB and later ends.

A decision that waits for the next frames (lookahead, shipped: `--lookahead
3`): both networks learn frame t-L's label from the frames up to t, so the
output after frame t decides frame t-L with L frames after it in hand, much
as Silero's 32 ms blocks do (a weak first consonant is told from a click by
the vowel after it; a word's end from a pause inside it). vadsegmenter holds
L frames before deciding (DecisionDelay), so every decision is L x 10 ms
late, and the end-of-speech figures count it (vad-frames' closed_at).
Scored on vadbench as the element decides; margin over Silero in
thousandths of F1, clean / white 20 10 5 0 / pink 20 10 5 0, false alarms
where any, end of speech median / p95:
  L 0 (before), seed 1, falls 0.7:  +0.1 / +1.2 -5.8 -0.9 +0.7 (3%) / +1.8 -3.0 -1.8 -3.0, 520 / 650
  L 1, seed 1, falls 0.7:           +2.4 / +3.5 -3.3 +0.3 +1.9 (3%) / +3.7 (4%) +1.3 +2.5 -0.0, 525 / 647
  L 2, seed 1, falls 0.7:           +6.7 / +7.8 +0.8 +4.8 +6.7 (3%) / +8.1 +4.9 +6.8 +4.7, 530 / 640
  L 2, seed 1, falls 0.6:           +5.5 / +5.4 -1.8 +2.8 +3.7 (2%) / +6.0 +2.9 +3.3 +0.7, 520 / 630
  L 2, seed 20261124, falls 0.7:    +3.5 / +6.4 -1.7 +4.7 +6.5 (3%) / +7.2 +4.0 +6.3 +6.8, 530 / 667
  L 2, seed 20261124, falls 0.6:    +3.0 / +4.2 -4.0 +1.6 +3.8 (3%) / +5.3 +2.0 +2.9 +3.4, 520 / 660
  L 3, seed 1, falls 0.7:           +6.4 / +6.8 +3.4 +7.2 +9.4 (3%) / +9.4 +7.8 +7.4 +8.0 (4%), 530 / 650
  L 3, seed 1, falls 0.6:           +5.6 / +5.4 +1.1 +4.4 +7.1 (3%) / +7.8 +5.9 +4.5 +4.5 (4%), 520 / 640
  L 3, seed 2, falls 0.6:           +5.4 / +4.9 -0.6 +1.8 +9.3 (4%) / +5.6 +4.3 +4.9 +4.2, 535 / 660
  L 3, seed 3, falls 0.6:           +1.8 / +1.9 -1.2 +4.8 +6.4 (3%) / +6.9 +6.2 +8.9 +6.7, 520 / 640
  L 3, seed 20261124, falls 0.6:    +1.6 / +4.2 -1.7 +2.8 +3.5 (7%) / +4.7 +1.9 +2.5 +3.2 (4%), 520 / 660
  L 3, seed 7, falls 0.6:           +4.6 / +6.1 +2.2 +5.1 +9.0 (3%) / +6.8 +3.5 +1.0 +3.8, 530 / 677
  L 3, seed 8, falls 0.6:           +5.2 / +2.4 -2.6 +2.8 +7.5 / +5.2 +2.4 +3.2 +2.8, 530 / 673
  L 3, seed 9, falls 0.6:           +3.8 (4%) / +3.2 -2.2 +2.9 +7.7 (3%) / +6.5 +5.3 +4.0 +3.8, 520 / 660
L and the fall were chosen on the training streams (streams.py, the
shipped frames), not on vadbench: the end of speech there (median / p95)
is 560 / 800 without the lookahead; with it, falls at 0.6, L 2 gives
550 / 750, L 3 560 / 760 (both seeds), L 4 570 / 726. L 3 is the longest
lookahead that ends speech no later than before; with L 3, falls at 0.7
give 570 / 775 (mean F1 0.9635), 0.6 560 / 760 (0.9631), 0.5 560 / 750
(0.9625): 0.6 is the least hold that keeps the median. Over draws.py's five
noise draws seed 1's mean margins are +4.9 / +1.4 / +3.2 / +6.5
(white 20, 10, 5, 0 dB) and +6.2 / +4.9 / +4.8 / +8.5 (pink), every draw
ahead; its false alarms at pink 0 dB are 4% and 8% on two draws (Silero 0%),
at white 0 dB 3-4% (Silero 2-6%). The frame network's training loss falls
from about 0.34 to 0.31 with L 3.
Which seed ships is chosen off vadbench. First, alsa-utils' "Front ...
Center" (the "s" of "Center" after a fade to -100 dBFS and 230 ms of
digital zeros) must stay one segment at 16 and 48 kHz, as VADSegmenterTests
asks: it is the README's own example, and a user's clean recording of a
short phrase. Without the noise floor's range (below) seeds 1, 4, 5, 6, 10
and 20261124 with L 3 split it at one rate or both (seed 3 kept it whole at
16 kHz only, by 10 ms) and seeds 7, 8, 9 and 11 kept it whole at both
(`parley-bench vad-frames` runs at the file's rate), seed 9 only because it
heard the first 50 ms of the "s": it missed the loud vowel after it for
150 ms. Then the training streams (streams.py): of those four, F1 0.9639,
0.9641, 0.9637 and 0.9628 (all ten seeds: 0.9628-0.9641), false alarms on
the sounds 0.68%, 0.80%, 0.67% and 0.69%, end of speech 560 / 777, 560 /
800, 560 / 720 and 560 / 720: seed 9, the earliest p95 with the better F1.

The noise floor's range (`NoiseFloor`: never more than 50 dB under the
loudest band of the last second or so). Why the vowel went unheard: the
features of "en" in "Center" are those of the vowel of "Front", which the
detector hears at once; what differs is the 300 ms before it. After the
fade the floor sat near -100 dBFS, so the "s" stood 40 dB over it in every
band, low ones included, as a noise burst does, and the detector, trained
to let a burst's tail go, let the vowel go too. The same clip with a -60 dB
noise bed under it, or without the "s", is heard at once. With the range,
on the shipped weights and without training again, the vowel is heard from
its first frames; the training streams' F1 is 0.9636 at 50 dB (0.9637
without) and 0.9614 at 40 dB (the quiet conditions lose 0.007-0.014), so
50 dB; it changes vadbench only in the clear. Trained again with it
(`--fresh` frames), seeds 9, 7, 3 and 1 all keep Front_Center whole at both
rates and hear its "s" or at least its vowel; on the training streams F1
0.9632, 0.9641, 0.9634, 0.9641, false alarms 0.67%, 0.69%, 0.62%, 0.73%,
end of speech 560 / 730, 560 / 780, 560 / 770, 560 / 750: seed 9 again, the
earliest p95 at level F1, ships. On vadbench (F1 clean / white 20 10 5 0 /
pink 20 10 5 0, false alarms where any, end of speech median / p95):
  seed 9, no range:   0.969 (4%) / 0.966 0.962 0.958 0.953 (3%) / 0.968 0.963 0.952 0.938, 520 / 660
  seed 9, 50 dB:      0.968 / 0.967 0.963 0.958 0.951 (3%) / 0.968 0.962 0.953 0.938, 520 / 647
  seed 7, 50 dB:      0.969 / 0.967 0.963 0.962 0.955 (3%) / 0.968 0.962 0.952 0.934, 530 / 700
  seed 3, 50 dB:      0.964 / 0.966 0.963 0.959 0.951 (4%) / 0.968 0.962 0.953 0.934, 520 / 640
  seed 1, 50 dB:      0.962 / 0.968 0.964 0.956 0.953 / 0.967 0.960 0.950 0.938, 530 / 640
  Silero v5:          0.965 (1%) / 0.962 (1%) 0.964 (3%) 0.955 (5%) 0.945 (3%) / 0.962 (1%) 0.957 (2%) 0.948 (2%) 0.934, 530 / 650
The shipped model's monkeys (4% of the distractor frames in the clear) are
gone, its onset p95 falls from 190 to 170 ms, and F1 moves by at most 0.002
either way. Over draws.py's five draws seed 9 with the range has mean
margins over Silero of +3.4 / -1.2 / -0.0 / +5.7 (white 20, 10, 5, 0 dB)
and +5.4 / +3.6 / +5.2 / +9.2 (pink); its detector costs 57,829
instructions a frame (57,704 without the range).
Six more seeds with the range, judged the same way on the training streams
only (F1, false alarms, end of speech median / p95, and the alsa clips):
seed 2 0.9635, 0.74%, 560 / 780; seed 4 0.9639, 0.65%, 560 / 749, but
Center's vowel scores 0.3-0.4 at 16 kHz; seed 5 splits Front_Center; seed 6
0.9644, 0.76%, 560 / 760; seed 8 0.9645, 0.72%, 560 / 810, and it misses
the start of Center's vowel; seed 10 0.9640, 0.80%, 560 / 778. None ends speech
earlier than seed 9 at level F1, so seed 9 still ships; vadbench was not run
on them.

Two seeds (`--model-seed 9 6`, the default). The detector now runs the
networks of two seeds on the same features and averages their smoothed
probabilities. On the training streams, every one of the seven other seeds
paired with seed 9 beat seed 9 alone: F1 0.9649-0.9653 against 0.9632,
false alarms 0.61-0.67% against 0.67%, end of speech p95 700-720 against
730 ms, and no quantile of the end of speech later (mean 570 against 573
ms). Seed 6 made the best pair (0.9653, 0.65%, 560 / 700); both members
hear the vowel after the pause in Front_Center. The hold on a fall was then
chosen again for the pair, on the training streams, by the rule used for
one seed: the earliest median end of speech, then the best F1. Holds 0.4,
0.45 and 0.5 end speech at 550 / 700 (F1 0.9645, 0.9647, 0.9650; false
alarms 0.56%, 0.58%, 0.60%), 0.55 and 0.6 at 560 / 700 (0.9652, 0.9653),
0.7 at 570 / 720 (0.9654): 0.5. Then run on vadbench (F1 clean / white 20
10 5 0 / pink 20 10 5 0, end of speech median / p95):
  seeds 9 and 6, hold 0.5:  0.968 / 0.967 0.963 0.959 0.951 (3%) / 0.970 0.960 0.953 0.938, 520 / 637
  seeds 9 and 6, hold 0.6:  0.969 / 0.968 0.965 0.961 0.953 (3%) / 0.971 0.961 0.955 0.939, 530 / 640
  seed 9 alone, hold 0.6:   0.968 / 0.967 0.963 0.958 0.951 (3%) / 0.968 0.962 0.953 0.938, 520 / 647
  Silero v5:                0.965 (1%) / 0.962 (1%) 0.964 (3%) 0.955 (5%) 0.945 (3%) / 0.962 (1%) 0.957 (2%) 0.948 (2%) 0.934, 530 / 650
On vadbench the hold trades the issue's two targets against each other:
0.6 is ahead of Silero in all nine conditions but ends speech 30 ms after
the silence setting at the median (the share of utterances ended within
520 ms falls from 52% to 48%; the mean is the same, 513 ms); 0.5 meets the
median (+20 ms) and is 0.001 behind at white 10 dB. Over draws.py's five
draws the mean margins (x1000, white 20 10 5 0 / pink 20 10 5 0) are
+3.9 -1.5 +0.8 +5.3 / +6.8 +2.2 +3.3 +7.7 for 0.5 and +5.2 +0.3 +2.6 +7.2
/ +7.7 +3.9 +5.4 +9.5 for 0.6 (seed 9 alone: +3.4 -1.2 -0.0 +5.7 / +5.4
+3.6 +5.2 +9.2). The rule, not vadbench, chose: 0.5 ships. The second pair
costs 18,277 instructions a frame: 76,106 in all, about 3000x real time on
one core. A third member (seeds 1, 2, 3, 4, 7 or 10 beside 9 and 6, hold
0.5) adds only 0.0004-0.0006 of training-stream F1 (0.9654-0.9656, false
alarms 0.57-0.60%, end of speech 550 / 700-710) for another 18,000
instructions a frame: not taken.
Seed 9 alone again, on the shipped recipe of 2026-11-27 (recurrent heads,
lookahead 4, confident onsets, the doubt band; one benchmarks/vad/run):
0.963 / 0.964 0.964 0.961 0.963 / 0.969 0.963 0.957 0.951, no distractor
false alarms, its segments ending 490 / 650 ms after the labels, 50,478
instructions a frame against the pair's 72,518, 1,425x real time in that
run (Silero 122x). Behind Silero in the clear (0.965; the pair 0.968):
the pair stays.

A held-out set (benchmarks/vad/heldout, heldout.py: 155 of Tux Paint's
spoken stamp descriptions in twelve languages and codec2's talkers, 112 of
Tux Paint's animal, instrument, household and tool sounds, mixed as
vadbench is, none of it here or in vadbench) answers what the training
streams could not: which hold, and which recipe, on audio the detector has
not met. F1 clean / white 20 10 5 0 / pink 20 10 5 0 (false alarms on the
sounds), end of speech median / p95:
  hold 0.3:   0.827 (12%) / 0.845 (13%) 0.850 (13%) 0.861 (11%) 0.861 (10%) / 0.839 (14%) 0.849 (13%) 0.846 (13%) 0.826 (12%), 610 / 720
  hold 0.4:   0.826 (12%) / 0.845 (13%) 0.849 (14%) 0.860 (11%) 0.859 (10%) / 0.838 (14%) 0.848 (14%) 0.846 (13%) 0.825 (13%), 610 / 730
  hold 0.5:   0.823 (13%) / 0.843 (13%) 0.848 (14%) 0.859 (11%) 0.857 (11%) / 0.836 (14%) 0.846 (14%) 0.846 (14%) 0.825 (13%), 610 / 730
  hold 0.6:   0.822 (13%) / 0.840 (14%) 0.845 (14%) 0.857 (12%) 0.855 (11%) / 0.834 (14%) 0.843 (15%) 0.844 (14%) 0.823 (13%), 620 / 740
  Silero v5:  0.877 (2%) / 0.857 (1%) 0.853 (1%) 0.835 (1%) 0.817 (3%) / 0.827 0.813 (1%) 0.761 0.557, 600 / 710
The longer hold (0.6) is worse there in every condition and ends speech
later, so the vadbench trade above is not worth making. Shorter holds gain
0.001-0.004 there, mostly fewer sound frames held over into a segment,
and on vadbench lose about as much: hold 0.3 scores 0.967 / 0.965 0.960
0.957 0.948 (3%) / 0.968 0.957 0.950 0.935, 510 / 620, hold 0.4 0.967 /
0.966 0.961 0.958 0.949 (3%) / 0.968 0.959 0.952 0.936, 520 / 620. 0.5
stays: the hold is not where the gap is.

The set shows the gap vadbench hides. Parley is ahead of Silero from
white 5 dB and pink 20 dB down (+0.009 to +0.267; Silero falls to 0.557
at pink 0 dB) and behind in the clear (0.054) and at white 20 and 10 dB
(0.013, 0.006), and it takes 11-14% of the sounds' frames for speech
against Silero's 0-3%. In the clear that is most of the difference: it
finds more of the speech (14,711 frames against 14,413) but marks 2,432
frames of the sounds (Silero 346). What it takes: voiced animals and
instruments (a cow, a duck, a donkey, a koala, a cello), and short loud
blips of Tux Paint's tools (100-300 ms), which the context stage holds
long enough to reach min-speech-ms. A min-speech-ms that counted only
frames 6 or 10 dB over the recent floor (simulated on the shipped
probabilities) gains 0.005 in the clear and loses half the speech at 0 dB.

Recipes judged there against the shipped one (hold 0.5), frames of the
sounds marked speech in the clear in brackets (shipped 2,432, Silero 346):
  0 A.D.'s sounds (`--zero-ad`, 0ad-data: 655 animals, weather, water,
  foley, impacts, alarms and 4 s music excerpts, the ones Silero hears as
  singing left out), sounds 7 (1,918):
              0.811 (10%) / 0.852 (10%) 0.861 (10%) 0.867 (8%) 0.872 (7%) / 0.848 (10%) 0.857 (10%) 0.853 (10%) 0.829 (9%), 620 / 760
  the same, sounds 5 (1,781):
              0.821 (9%) / 0.852 (10%) 0.858 (10%) 0.868 (8%) 0.865 (8%) / 0.844 (10%) 0.858 (10%) 0.851 (12%) 0.821 (12%), 630 / 760
  sounds 10 (2,352):
              0.827 (12%) / 0.840 (13%) 0.850 (13%) 0.858 (11%) 0.860 (9%) / 0.837 (14%) 0.844 (14%) 0.844 (13%) 0.824 (12%), 620 / 730
  a fifth context window, 310-600 ms back (2,231):
              0.820 (12%) / 0.846 (12%) 0.851 (13%) 0.860 (11%) 0.856 (11%) / 0.842 (13%) 0.854 (13%) 0.849 (13%) 0.821 (13%), 610 / 740
  and a sixth, 610-1000 ms back (2,135):
              0.818 (11%) / 0.848 (12%) 0.851 (13%) 0.854 (12%) 0.860 (10%) / 0.845 (12%) 0.856 (12%) 0.849 (13%) 0.818 (12%), 610 / 750
None kept. 0 A.D.'s sounds take a fifth off the false alarms and add F1 in
noise, but lose speech in the clear and end speech later; on vadbench
(sounds 7) 0.967 (3%) / 0.970 0.966 0.961 0.956 / 0.969 0.964 0.955 0.939,
540 / 660: ahead of Silero in all nine, but with false alarms in the clear
and the end of speech 20 ms later at the median. Weighing the sounds more,
or a longer reach back, changes little. Nor did a finer spectrum or a
bigger network. A frame network alone (no context stage, scratch
prototype on a fifth of the frames) given 40 mel bands' spectral shape
(100-7800 Hz, 25 ms windows) beside the 180 features marked as many of the
held-out sounds' frames at equal speech recall (clean, recall 0.9: 26%
with or without them; white 10 dB 14-15%). A wider frame network
(`--hidden 128 32`, one seed, three times the multiply-adds) fitted the
training frames better (training F1 0.967) and did worse held out: 0.825
(13%) / 0.834 (14%) 0.834 (16%) 0.843 (14%) 0.846 (12%) / 0.833 (15%)
0.833 (16%) 0.831 (17%) 0.806 (17%), 620 / 770. What is missing is what
separates a voice from a cow or a cello in audio we have no labels for,
not a constant, a feature or width: the issue's other hint, Silero as a
teacher on large amounts of unlabelled real audio (not only on these
streams, where `--teacher-weight` was tried above), is the lead left.

More sounds (`--more-sounds`, package_sounds.py; not kept on the 80 Hz front end, shipped since "A voice under 80 Hz"): the sounds the
held-out set catches it on are kinds the training hardly had. 662 more
recordings from four Debian packages that are neither Tux Paint nor
vadbench, checked against Tux Paint's sounds by cross-correlation:
GCompris's activities' sounds (farm animals, 26 instruments, world music;
not its core/ sounds, two of which are Tux Paint's), Wesnoth's attack,
magic and animal sounds (not its units' acted voices), Widelands' birds,
deer, wolves, frogs, work sounds and music, and Sonic Pi's drum,
percussion and ambient samples; the ones Silero hears as speech left out.
Held out, F1 clean / white 20 10 5 0 dB / pink 20 10 5 0 dB (the false
alarms on the sounds in the clear), speech frames found and sound frames
taken in the clear (of 16,074 and about 18,800), then on vadbench, with
end of speech (median / p95):
  shipped (sounds 7):  0.823 (13%) / 0.843 0.848 0.859 0.857 / 0.836 0.846 0.846 0.825, 14,711, 2,432
                       0.968 / 0.967 0.963 0.959 0.951 (3%) / 0.970 0.960 0.953 0.938, 520 / 637
  more, sounds 7:      0.820 (5%) / 0.860 0.872 0.871 0.862 / 0.855 0.872 0.858 0.823, 13,425, 967
                       0.966 (4%) / 0.966 0.962 0.955 0.953 / 0.967 0.961 0.950 0.937 (3%), 530 / 630
  more, sounds 4:      0.822 (7%) / 0.861 0.872 0.875 0.857 / 0.859 0.873 0.856 0.817, 13,804, 1,273
                       0.968 (3%) / 0.967 0.962 0.955 0.953 (3%) / 0.966 0.960 0.952 0.941, 520 / 640
  and speech 2.0:      0.818 (8%) / 0.861 0.868 0.867 0.845 / 0.855 0.863 0.840 0.800, 14,003, 1,453
                       0.967 (3%) / 0.968 0.962 0.958 0.958 (3%) / 0.969 0.962 0.955 0.943 (6%), 530 / 640
  sounds 4, three seeds (9 6 3, averaged; 2459x real time in that run):
                       0.822 (6%) / 0.862 0.874 0.877 0.861 / 0.860 0.872 0.858 0.820, 13,833, 1,245
                       0.967 (4%) / 0.968 0.963 0.958 0.956 / 0.967 0.962 0.953 0.941, 530 / 630
  Silero v5:           0.877 (2%) / 0.857 0.853 0.835 0.817 / 0.827 0.813 0.761 0.557, 14,413, 346
                       0.965 (1%) / 0.962 0.964 (3%) 0.955 (5%) 0.945 (3%) / 0.962 (1%) 0.957 (2%) 0.948 (2%) 0.934, 530 / 650
(vadbench's 3-4% in the clear is 20-24 frames of Asterisk's monkeys.)
The held-out sounds' frames taken fall by half or more and F1 rises by
0.010-0.027 in six noisy conditions, ahead of Silero in eight of nine;
vadbench moves by 0.004 or less either way. Not kept because they cost
speech: the clear finds 900-1,300 fewer of the held-out speech frames,
40-60 at a time on a few talkers (Belarusian, Spanish, Romanian and
Russian descriptions, codec2's mmt1), and the detector lets go of weak
words inside a sentence. In LibriVox's "He was not an ill-disposed young
man" (pocketsphinx-testdata, 0880) it scores the 0.76-1.12 s stretch
around "an" under 0.5 (0 of 37 frames; shipped 25, Silero hears speech
there but for 100 ms), so conversation-fanout's 300 ms silence cut the
sentence in two and UseCasePipelineTests failed. Between trainings the
same stretch moved from 0 to 16 frames over 0.5, and speech weight 2.0
won it back only in part while giving up the held-out gains at 0 dB:
the sounds teach it to doubt weak voiced frames, and which ones depends
on the draw, and a third seed in the ensemble did not win it back (0 of
37). What is left to try with them: the sounds weighed by how loud they
are against the speech, or weak voiced speech weighed up.
Tried before them, judged the same way (the same sources gathered by hand,
each row one training; held out only):
  with instrument phrases from fluid-soundfont-gm's samples (500 of 1-6
  looped notes, some with vibrato or a glide) and Wesnoth's acted
  voices, sounds 7: 0.792 (6%) / 0.848 0.859 0.859 0.848 / 0.840 0.846 0.837 0.823, 12,727, 1,170
  the phrases without the voices, sounds 7:
                    0.816 (4%) / 0.861 0.867 0.865 0.858 / 0.859 0.861 0.854 0.827, 13,268, 860
  the same, sounds 4: 0.826 (6%) / 0.863 0.861 0.859 0.847 / 0.850 0.854 0.848 0.814, 14,005, 1,170
The acted voices cost the most speech; the phrases (pitch that moves as a
voice's does) cost speech and, on vadbench, 5-6% of the distractors at
0 dB.

A spectro-temporal front end (branch `vad-mel`, not on main): 20 mel
bands' shape (100-3900 Hz, 25 ms windows) now and 30-300 ms back and each
band's spread over 300 ms, 160 more features (`SpectralShape`). As a frame
network alone (the prototype above, a fifth of the frames, [64, 32]) it
marked 15% of the held-out sounds' frames at speech recall 0.9 against
26% without. Trained in full on the earlier sounds it found more held-out
speech and took as many of its sounds: [32, 16] 0.834 (13%) / 0.840 0.846
0.851 0.848 / 0.838 0.851 0.849 0.825, 15,071 found, 2,415 taken; [64, 32]
0.829 (14%), 2,636 taken; and on vadbench [32, 16] took 9% of the
distractors in the clear. It holds a synthetic vowel for 300 ms and then
lets it go (the 180 features alone hold it at 0.6), but a cow's or a
cello's natural wobble keeps it at 1: what the network had learnt was
the training sounds, not what a voice does. With the more sounds above its
frames (340 features x 2.9 M) did not fit in 24 GiB beside a second run.

More talkers (`--more-speech`, package_speech.py; not kept on the 80 Hz front end, shipped since "A voice under 80 Hz"): the training
speech is four prompt voices, espeak-ng and flite, and none of them talks
the way people do. `--more-speech` adds 2,331 clips by real people from
Debian packages that are neither vadbench's nor the held-out set's:
KTuberling's spoken words and KLettres' letters and syllables (volunteers,
children among them, 20-25 languages), two more Asterisk prompt voices
(Colombian Spanish, French), and Fish Fillets' dialogue (acted talk in
Czech, Dutch and English); 243 more were left out because Silero hears
under half of their labelled speech. Judged as above, all with
`--more-sounds`; after the held-out row, the share of its speech frames
found with 2% and 5% of its sounds' frames taken (the frames' probability,
before smoothing: how well the network tells them apart, whatever the
threshold; shipped 0.49 and 0.69, Silero 0.90 at 2%), then on vadbench,
then how many of the 37 frames of LibriVox 0880's "not an" are over 0.5
(shipped 25):
  words, letters and prompts (no Fish Fillets), sounds 4:
        0.829 (10%) / 0.854 0.854 0.857 0.851 / 0.856 0.858 0.849 0.823, 14,559, 1,869; 0.53, 0.69
        0.965 (4%) / 0.964 0.959 0.954 0.954 (3%) / 0.966 0.958 0.952 0.938 (4%), 530 / 667; 1 of 37
  the same, [64, 32]:
        0.843 (9%) / 0.860 0.855 0.857 0.854 / 0.854 0.855 0.842 0.823, 14,894, 1,726; 0.58, 0.76
        0.964 / 0.963 0.958 0.956 0.954 / 0.965 0.961 0.954 0.940 (10%), 520 / 650, 2183x (beside a trial); 0 of 37
  with Fish Fillets, sounds 4:
        0.814 (19%) / 0.830 0.846 0.853 0.853 / 0.838 0.849 0.845 0.812, 15,683, 3,722; 0.61, 0.80
        0.969 / 0.971 0.966 0.960 0.957 / 0.970 0.963 0.955 0.942 (9%), 530 / 680; 11 of 37
  with Fish Fillets, sounds 7:
        0.830 (16%) / 0.840 0.850 0.859 0.865 / 0.847 0.862 0.859 0.832, 15,633, 3,114; 0.70, 0.85
        0.968 / 0.968 0.966 0.959 0.955 / 0.968 0.963 0.953 0.943 (4%), 540 / 687; 11 of 37
  the same, speech weight 1.25:
        0.836 (15%) / 0.845 0.860 0.869 0.870 / 0.858 0.869 0.865 0.841, 15,565, 2,923; 0.67, 0.82
        0.969 / 0.966 0.961 0.956 0.954 / 0.968 0.959 0.947 0.934 (4%), 530 / 647; 8 of 37
  the same, speech weight 1.0:
        0.833 (16%) / 0.848 0.873 0.876 0.882 / 0.859 0.877 0.880 0.851, 15,510, 3,151; 0.65, 0.84
        0.967 / 0.966 0.959 0.951 0.943 / 0.967 0.953 0.941 0.927, 510 / 617; 12 of 37
  sounds 10, speech weight 1.6:
        0.832 (16%) / 0.840 0.859 0.866 0.868 / 0.849 0.868 0.865 0.841, 15,579, 3,022; 0.63, 0.84
        0.969 (3%) / 0.966 0.963 0.958 0.955 / 0.968 0.961 0.953 0.938 (3%), 540 / 693; 6 of 37
  sounds 7, the context stages' output bias lowered by 1 after training
  (the threshold moved to where the held-out sounds are fewer):
        0.854 (12%) / 0.864 0.878 0.883 0.887 / 0.868 0.886 0.885 0.846, 15,282, 2,246; 0.71, 0.85
        0.960 / 0.956 0.948 0.939 0.930 / 0.960 0.944 0.928 0.909, 490 / 590; 7 of 37
Real talkers are the first change that made the network tell a voice from
the held-out sounds better: at 5% of the sounds' frames it finds 0.80-0.85
of the speech, against 0.69 shipped and 0.73 with the more sounds alone.
With Fish Fillets' talk, sounds 7, vadbench is ahead of Silero in all nine
conditions (as with 0 A.D.'s sounds), and Tux Paint's spoken "Cow" after 1.5 s of
quiet (which the shipped weights score 0.23 on average: 40 dB over the
floor in every band, it looks like a burst) is heard at -20 dB (55 of 65
frames). Not kept: at the 0.5 threshold the network now calls more of
everything speech, so the held-out sounds' frames taken rise (2,923-3,722
against 2,432), vadbench's pink 0 dB distractors go from 0% to 4%, and end
of speech moves to 530-540 ms at the median (shipped 520); and LibriVox's
"not an" stays lost (8-12 of 37 frames; Silero hears it all), so
conversation-fanout's sentence would still be cut in two. Lowering the
speech weight trades vadbench F1 for held-out F1 without moving the
sounds, and weighing the sounds up (10) does not move them either. Moving
the threshold does: with the output bias lowered by 1 the held-out set is
ahead of Silero in all eight noisy conditions (0.846-0.887) and 0.854 in
the clear (shipped 0.823, Silero 0.877), with fewer of its sounds taken
than shipped and more of its speech found, and speech ends 490 ms after
its label (median); but vadbench falls behind Silero everywhere (0.909 at
pink 0 dB). In the clear both sets have about as many labelled speech
frames between 0.5 and 0.73 (3.0% and 2.8%, the ones the bias turns
down), so where vadbench loses is its noise and its segments' ends; a bias
that serves one set fails the other. What is left: the network now separates better than its
threshold shows, so the sounds weighed up further with the talkers in
(sounds 10-14), and read speech with its creaky, trailing voice (the
"not an" kind) among the talkers.

A voice under 80 Hz (in the shipped weights): LibriVox 0880's reader speaks "not an" at
70-78 Hz (autocorrelation of the audio), under the 80-400 Hz that
Periodicity searched, so those frames read as loud and aperiodic, which
is what the more sounds taught the network animals and machines are.
Raised by 200 cents with sox (nothing else changed), the same stretch is
heard: 29 of 37 frames with the talkers' model above (11 before), 25 with
the more sounds' (1). Periodicity now searches 60-400 Hz (lags to 16.7
ms; about 400 more multiply-adds a frame), and its reading over the
stretch went from 0.1-0.4 to 0.7-1.0. Trained again on it, judged as
above (held out; its ROC at 2% and 5%; vadbench; "not an"):
  more sounds, sounds 4 (no talkers):
        0.816 (6%) / 0.863 0.872 0.871 0.858 / 0.856 0.873 0.863 0.831, 13,525, 1,098; 0.53, 0.74
        0.969 / 0.968 0.963 0.960 0.958 / 0.969 0.964 0.953 0.942 (4%), 520 / 650; 35 of 37
  more sounds and talkers, sounds 7, speech weight 1.6:
        0.841 (13%) / 0.857 0.856 0.857 0.844 / 0.849 0.864 0.864 0.852, 15,480, 2,441; 0.65, 0.82
        0.967 / 0.965 0.963 0.958 0.954 / 0.968 0.962 0.951 0.938, 530 / 670; 29 of 37
  the same, speech weight 1.25 (shipped until "Sounds at other speeds"):
        0.843 (13%) / 0.860 0.861 0.857 0.860 / 0.854 0.867 0.870 0.857, 15,536, 2,544; 0.66, 0.83
        0.967 / 0.963 0.960 0.955 0.953 / 0.968 0.958 0.951 0.934, 520 / 647; 29 of 37
Shipped then: against the weights before it, the held-out set is ahead in
eight conditions (0.003-0.032) and 0.002 behind at white 5 dB, finds 825
more of its speech frames and takes about as many of its sounds' (2,544
against 2,432); Tux Paint's "Cow" after a quiet lead-in is heard (46 of
65 frames, before 15); vadbench's distractors are at 0% in every condition
(before 3% at white 0 dB) and end of speech stays at 520 ms; vadbench F1
moves by -0.004 to +0.002 (white 10 dB 0.960 against Silero's 0.964, where
it was 0.963). The more sounds alone take fewer held-out sounds but miss
more speech (clear 0.816) and do not hear the "Cow". What is still open
is the sounds: 13% of the held-out sounds' frames at 0.5, against
Silero's 2%, though at 5% the network finds 0.83 of the speech (0.69 before).

Sounds at other speeds (shipped): a network that has heard a few hundred
recordings of animals and instruments learns those recordings, not the
kinds: Tux Paint's cow is not GCompris's. Two changes to the streams, not
to the network: a recorded sound is drawn for 60% of the non-speech items
(`--recorded-share`; before 35%, the rest being synthetic tones, chirps
and bursts), and each recorded sound is there three times, as recorded and
twice more played 0.7-1.4x as fast (`--sound-variants 2`; pitch and length
move together, as a bigger or smaller animal's call or another register of
an instrument). None of the sounds is new. Judged as above (held out; its
ROC at 2% and 5%; vadbench; "not an"), all with the more sounds and
talkers:
  the shipped recipe before (speech weight 1.25, noisy speech 1.25):
        0.843 (13%) / 0.860 0.861 0.857 0.860 / 0.854 0.867 0.870 0.857, 15,536, 2,544; 0.66, 0.83
        0.967 / 0.963 0.960 0.955 0.953 / 0.968 0.958 0.951 0.934, 520 / 647; 29 of 37
  the same, noisy speech 1.75 (for white 10 dB):
        0.843 (12%) / 0.849 0.851 0.851 0.846 / 0.856 0.871 0.875 0.853, 15,288, 2,245; 0.68, 0.83
        0.967 / 0.964 0.963 0.958 0.955 / 0.968 0.960 0.950 0.933, 520 / 640; 30 of 37
  recorded 0.6, variants 2:
        0.878 (4%) / 0.873 0.880 0.882 0.875 / 0.882 0.890 0.878 0.858, 15,183, 867; 0.79, 0.93
        0.965 / 0.961 0.957 0.949 0.948 / 0.964 0.958 0.947 0.934, 510 / 630; 26 of 37
  recorded 0.6, variants 4:
        0.849 (7%) / 0.841 0.870 0.880 0.880 / 0.860 0.876 0.886 0.867, 14,516, 1,328; 0.72, 0.84
        0.965 / 0.958 0.952 0.949 0.942 / 0.963 0.952 0.940 0.920, 500 / 640; 28 of 37
  recorded 0.8, variants 2, noisy speech 1.75:
        0.876 (3%) / 0.867 0.869 0.869 0.853 / 0.881 0.880 0.873 0.837, 14,879, 605; 0.83, 0.92
        0.969 / 0.965 0.962 0.954 0.953 / 0.965 0.960 0.948 0.934, 530 / 727; 28 of 37
  recorded 0.6, variants 2, noisy speech 1.75:
        0.881 (4%) / 0.866 0.865 0.866 0.862 / 0.882 0.885 0.875 0.855, 15,229, 829; 0.84, 0.93
        0.964 / 0.962 0.961 0.957 0.954 / 0.963 0.957 0.948 0.936, 520 / 670; 28 of 37
  the same, speech 1.5, noisy speech 1.25:
        0.875 (5%) / 0.869 0.875 0.874 0.868 / 0.877 0.883 0.873 0.854, 15,459, 1,008; 0.86, 0.93
        0.966 / 0.964 0.959 0.952 0.951 / 0.969 0.959 0.950 0.940, 520 / 660; 30 of 37
  the same, speech 1.5, noisy speech 2.0:
        0.870 (6%) / 0.858 0.856 0.857 0.845 / 0.868 0.881 0.867 0.851, 15,244, 1,062; 0.82, 0.92
        0.965 / 0.963 0.963 0.959 0.953 / 0.967 0.960 0.951 0.938, 530 / 747; 30 of 37
  the same, speech 1.5, noisy speech 1.75 (shipped):
        0.879 (4%) / 0.862 0.860 0.859 0.857 / 0.877 0.880 0.868 0.853, 15,294, 867; 0.81, 0.91
        0.967 / 0.967 0.962 0.955 0.954 / 0.967 0.960 0.950 0.942, 530 / 697; 26 of 37
  and tail weight 6:
        0.879 (5%) / 0.863 0.863 0.863 0.860 / 0.877 0.882 0.872 0.856, 15,232, 871; 0.81, 0.91
        0.966 / 0.965 0.960 0.953 0.952 / 0.965 0.956 0.948 0.940, 510 / 690; 26 of 37
  and tail weight 8:
        0.883 (4%) / 0.864 0.868 0.870 0.869 / 0.878 0.884 0.877 0.857, 15,221, 801; 0.81, 0.91
        0.965 / 0.961 0.956 0.950 0.948 / 0.962 0.952 0.944 0.934, 510 / 650; 27 of 37
  recorded 0.6, variants 3 (speech 1.5, noisy speech 1.75):
        0.850 (9%) / 0.850 0.854 0.863 0.861 / 0.857 0.878 0.874 0.845, 15,032, 1,648; 0.72, 0.86
        0.966 / 0.962 0.959 0.957 0.953 / 0.966 0.959 0.948 0.934, 520 / 690; 30 of 37
  the shipped recipe on another draw of the streams (`--layout-seed 20261126`, shipped 20261122):
        0.864 (6%) / 0.857 0.857 0.852 0.838 / 0.863 0.873 0.869 0.841, 15,029, 1,173; 0.70, 0.87
        0.965 / 0.964 0.962 0.957 0.958 / 0.966 0.960 0.950 0.941, 530 / 687; 36 of 37
  the shipped recipe, sound weight 10 (not 7):
        0.873 (4%) / 0.866 0.868 0.870 0.863 / 0.876 0.880 0.872 0.851, 15,105, 820; 0.82, 0.92
        0.966 / 0.962 0.959 0.957 0.957 / 0.968 0.959 0.949 0.938, 530 / 687; 28 of 37
  Silero v5:
        0.877 (2%) / 0.857 0.853 0.835 0.817 / 0.827 0.813 0.761 0.557, 14,413, 346; 0.90, -
        0.965 / 0.962 0.964 0.955 0.945 / 0.962 0.957 0.948 0.934, 530 / 650
and `draws.py`'s mean margins over Silero on five draws of vadbench's
noise (thousandths; white 20 10 5 0 dB / pink 20 10 5 0 dB):
  before                         +0.8 -3.2 -2.0  +7.2 / +5.8 +0.8 +1.5 +2.9
  recorded 0.6, variants 2, noisy 1.75:
                                 -0.3 -3.8 +0.5 +10.7 / +1.7 +0.4 -0.4 +1.7
  recorded 0.8 (as above)        +1.5 -1.5 -1.7  +8.1 / +3.9 +1.8 -1.6 +3.7
  speech 1.5, noisy 2.0          +2.2 -1.4 +1.7  +9.7 / +3.9 +3.2 +3.1 +6.1
  speech 1.5, noisy 1.75 (shipped)
                                 +4.2 -1.8 +0.1  +9.6 / +4.6 +3.1 +4.9 +9.7
  and tail weight 6              +2.2 -4.3 -2.0  +7.6 / +2.0 +0.0 +2.4 +6.5
Every recipe with the variants takes a third of the held-out sounds'
frames the recipe before took (605-1,328 against 2,544) and finds about as
much of the speech, so the clear rises from 0.843 to 0.870-0.883, level
with or ahead of Silero's 0.877, and the held-out set is ahead of Silero
in all nine conditions. The network tells them apart better too: at 2% of
the sounds' frames it finds 0.79-0.86 of the speech (before 0.66, Silero
0.90). Four variants are too many (the speech is lost as the sounds
crowd the streams). Shipped: speech 1.5 and noisy speech 1.75, the one
whose vadbench draws are ahead of Silero in seven of the eight noisy
conditions and behind by 0.0018 at white 10 dB (before: six, behind by
0.0032 and 0.0020), with vadbench's distractors still at 0% everywhere.
What it costs: speech ends 10 ms later on vadbench (530 / 697 against
520 / 647: the median is now 30 ms over the silence setting, the issue
asks 20) and on the held-out set (630 / 820 against 620 / 750; Silero
600 / 710); a tail weight of 6 or 8 wins the 10 ms back and loses vadbench
F1 at white 10 and 5 dB; weighing the sounds up to 10 moves neither set
much (820 of the sounds' frames taken, 189 fewer speech frames found).
How much of the gain is the draw: the variant count changes the sounds
list, so every count lays its streams out differently, and 3 variants did
worse than 2 (1,648 frames taken) and 4 worse again on the speech. The
shipped recipe trained on another draw of its streams took 1,173 of the
held-out sounds' frames (shipped 867) and scored 0.864 in the clear, under
Silero's 0.877 (`--layout-seed 20261126`), with vadbench level or ahead of Silero in eight conditions
(white 10 dB 0.962). So the recipe's gain on the sounds holds across draws
(1,173 against the 2,544 before it), but the shipped weights' lead over
Silero in the clear (0.879) is partly their draw's; the recipe before it
was never trained on a second draw, so its own spread is not known. Tux Paint's moo and cello, joined with its
spoken "Cow" (the check in "More talkers"), are still segments with every
recipe here: fewer of their frames are over 0.5 (moo 37 of 120, cello 116
of 390, before 92 and 193) but not few enough.

The hold again (0.4 for the L 3 weights, was 0.5; 0.5 since "The lookahead again"): the hold on a fall (SpeechClassifier)
was last chosen for the weights of "Two seeds", so it was chosen again for
these by the same rule, on these weights' own training streams
(streams.py): the earliest median end of speech, then the best F1. F1
mean over the twelve conditions, false alarms on the streams' sounds, end
of speech median / p95:
  hold 0.3:   0.9228, 1.96%, 560 / 810
  hold 0.35:  0.9229, 2.00%, 560 / 810
  hold 0.4:   0.9231, 2.04%, 560 / 810
  hold 0.45:  0.9232, 2.09%, 570 / 820
  hold 0.5:   0.9234, 2.12%, 570 / 820
  hold 0.55:  0.9236, 2.17%, 570 / 820
  hold 0.6:   0.9237, 2.21%, 570 / 830
  hold 0.7:   0.9234, 2.40%, 580 / 830
so 0.4, now written with the weights (`--hold`, as
SpeechClassifierWeights.fallingHold), so that a hold chosen for other
weights cannot stay behind unseen: choose it again with streams.py for
every new set. On the held-out set (clean / white 20 10 5 0 / pink 20 10
5 0, the sounds' frames taken in the clear) the shorter holds are ahead:
  hold 0.3:   0.880 / 0.865 0.864 0.865 0.860 / 0.878 0.882 0.871 0.854, 831
  hold 0.4:   0.880 / 0.863 0.862 0.862 0.859 / 0.878 0.881 0.871 0.853, 843
  hold 0.5:   0.879 / 0.862 0.860 0.859 0.857 / 0.877 0.880 0.868 0.853, 867
  hold 0.6:   0.878 / 0.860 0.858 0.857 0.853 / 0.875 0.878 0.866 0.850, 918
  hold 0.7:   0.875 / 0.856 0.854 0.852 0.846 / 0.872 0.873 0.862 0.846, 986
(end of speech 630 / 820 for 0.3 to 0.5, 640 / 820 for 0.55, 640 / 830
for 0.6, 650 / 840 for 0.7).
vadbench, run after the choice, goes the other way, as it did for the
weights before (F1, end of speech; draws.py's mean margins over Silero,
thousandths, white 20 10 5 0 / pink 20 10 5 0):
  hold 0.3:   0.965 / 0.965 0.961 0.954 0.953 / 0.965 0.958 0.949 0.940, 520 / 690
  hold 0.35:  0.966 / 0.965 0.961 0.954 0.953 / 0.966 0.959 0.949 0.940, 525 / 690
  hold 0.4:   0.966 / 0.966 0.962 0.955 0.953 / 0.966 0.959 0.949 0.941, 530 / 690
              +3.1 -2.7 -0.6 +8.9 / +3.5 +1.9 +4.0 +8.5
  hold 0.5:   0.967 / 0.967 0.962 0.955 0.954 / 0.967 0.960 0.950 0.942, 530 / 697
              +4.2 -1.8 +0.1 +9.6 / +4.6 +3.1 +4.9 +9.7
  hold 0.6:   0.968 / 0.968 0.964 0.956 0.955 / 0.969 0.961 0.952 0.943, 530 / 700
              +5.3 -0.4 +1.1 +10.4 / +5.8 +4.4 +6.2 +10.8
  hold 0.7:   0.969 / 0.970 0.965 0.958 0.956 / 0.970 0.963 0.953 0.945, 545 / 700
A longer hold would put vadbench level with Silero at white 10 dB, and
0.3 would meet the issue's median end of speech there (520) at 0.001 of
F1 more than 0.4 costs; but vadbench is the test, and the rule on the
training streams, chosen before either was seen, says 0.4.

Tried at the same time and not taken (the hold 0.5 in all three):
  the sounds' second variant at another pitch, not speed (`--variant-kinds
  speed,pitch`: sox `pitch`, the length kept) on both draws of the streams:
  worse than speed alone on each, 1,637 and 1,209 of the held-out sounds'
  frames taken (speed alone 867 and 1,173), the clear 0.860 and 0.869,
  Tux Paint's moo 58 and 118 of 120 frames over 0.5 (shipped 37), and on
  the second draw 3% false alarms on vadbench's clean distractors;
  lookahead 2 (`--lookahead 2`, the shipped recipe and draw): the decision
  waits 10 ms less but the network lets go later: vadbench 0.966 / 0.963
  0.961 0.954 0.951 / 0.965 0.958 0.950 0.938, end of speech 525 / 720;
  held out 0.877 (5%), 760 of the sounds' frames;
  a stricter rule for opening a segment (simulated on the element's
  probabilities; another rule is shipped since, "Confident onsets"): min-speech-ms of speech frames and the mean probability
  of the last min-speech-ms at least 0.6-0.9. On the training streams
  every level lowers F1 (0.9234 to 0.9232 at 0.6, 0.9221 at 0.8) and
  loses whole utterances (80 of 4,032 with no segment at all, 99 at 0.6,
  188 at 0.8) for fewer false alarms (2.12% to 2.00% and 1.36%); the mean
  since the first speech frame instead of the last 200 ms loses alsa's
  "Front ... Center" altogether; and Tux Paint's moo and cello still open
  segments at every level up to 0.85, where the spoken "Cow" goes first.
And after the hold was chosen:
  hard sounds (`--hard-sound-weight 3`: trained twice, the second time the
  sound frames the first training still took for speech, 19,937 of
  724,967, weighed 3x). On the shipped draw it looked like the step the
  issue asks for: held out 0.880 / 0.869 0.869 0.872 0.872 / 0.882 0.886
  0.877 0.862 with 2-7% of the sounds' frames in noise (shipped 5-8%),
  ROC 0.86 of the speech at 2% of the sounds' frames (shipped 0.81), and
  on vadbench end of speech 520 / 670, at the issue's median, for F1
  0.964 / 0.963 0.960 0.958 0.951 / 0.964 0.958 0.949 0.934 (hold 0.5, its
  own training streams' choice: 560 / 770 for 0.3-0.5, F1 0.9164 0.9172
  0.9179; the streams' F1 falls at 0 and -3 dB, 0.869 and 0.777 at pink
  against 0.888 and 0.806, for false alarms 0.90% against 2.12%). On the
  other draw (`--layout-seed 20261126`) the same recipe gained nothing in
  the clear (0.864, 1,212 of the sounds' frames, against 0.865 and 1,153
  without it, both at hold 0.4-0.5), some in white noise (0.852-0.864
  against 0.841-0.858), and lost on vadbench (0.962 / 0.964 0.959 0.956
  0.951 / 0.962 0.956 0.943 0.935, end of speech 530 / 693). The first
  draw's gain is mostly the draw: not taken. The network learns the
  training sounds it misses (2.7% of their frames after the first pass);
  what it lacks is sounds like the held-out ones, not weight on these.

A recurrent head (shipped: `--recurrent-state 16`): what the detector still
missed against Silero were dips inside an utterance that Silero's recurrent
state holds through ("Where the rest of the gap in white noise is"), and
what it still took were animals' calls that go on for most of a second. A
syllabic-modulation cue for those was looked at first and dropped: over the
held-out clean set, the 4 Hz modulation of the band levels (Scheirer and
Slaney's speech/music feature, over 0.25-1 s) told the sounds' frames the
detector takes for speech from real speech frames at an AUC of 0.62-0.65
at best, and a 32-40 ms voicing window instead of 16 ms moved voicing's AUC
from 0.872 to 0.886-0.892, none of it on the speech frames it misses. So
each member got a GRU (gru.py; `RecurrentNetwork` in the element) beside
its context network, on the context network's own inputs (85 -> ReLU 32
-> GRU 16 -> logit), trained after it on the same targets and weights
(`timed`: onsets and tails weighed up) for 8 epochs, on chunks of 400
frames that start from a zero state inside one stream, the first 50 of
them unscored. The frame and context networks are untouched (the same
weights as before, bit for bit), and the member averages its two heads'
smoothed probabilities. Its cost: 5 k multiply-adds a frame a member
(94,241 instructions a frame, was 77,307). Scored as the element decides,
before any Swift was written (a scratch script fed Python's probabilities
to `parley-bench vad-frames --probabilities`; the pair without heads came
out exactly as shipped), seed 9 alone:
  context network only:  held out 0.875 / 0.864 0.862 0.861 0.848 / 0.870 0.878 0.868 0.848, 923 sound frames;
                         vadbench 0.959 (3%) / 0.962 0.961 0.957 0.953 / 0.961 0.955 0.949 0.939, 520 / 700
  GRU head only:         held out 0.887 / 0.871 0.882 0.887 0.850 / 0.891 0.889 0.866 0.810 (10%), 389;
                         vadbench 0.956 / 0.962 0.959 0.956 0.957 (4%) / 0.962 0.960 0.951 0.943 (4%), 530 / 902
  both, averaged:        held out 0.888 / 0.876 0.879 0.882 0.866 / 0.891 0.891 0.876 0.839, 506;
                         vadbench 0.960 / 0.963 0.961 0.958 0.961 / 0.963 0.959 0.953 0.948, 520 / 740
The GRU alone holds on in strong pink noise (false alarms, ends a second
late); averaged with the context network it keeps most of its gain in the
clear and in noise without that. A state of 24 trained 16 epochs on 800
frame chunks was no better (held out 0.885, 649 sound frames). With
train.py's recipe (both seeds, the head's generator following on from the
context network's), the hold chosen again by the rule on the training
streams (F1, false alarms on the sounds, end of speech median / p95):
  hold 0.3:   0.9311, 1.22%, 560 / 770
  hold 0.35:  0.9312, 1.24%, 560 / 780
  hold 0.4:   0.9313, 1.26%, 560 / 780
  hold 0.5:   0.9315, 1.31%, 570 / 790
  hold 0.6:   0.9315, 1.40%, 570 / 800
(without the head, 0.4: 0.9231, 2.04%, 560 / 810), so 0.4 again. Then, on
both draws of the streams, against the same recipe without the head
(`--recurrent-state 0`), hold 0.4 (held out: clean / white 20 10 5 0 /
pink 20 10 5 0, the sounds' frames taken in the clear; vadbench the same
with end of speech):
  shipped draw, without:  held out 0.880 / 0.863 0.862 0.862 0.859 / 0.878 0.881 0.871 0.853, 843
                          vadbench 0.966 / 0.966 0.962 0.955 0.953 / 0.966 0.959 0.949 0.941, 530 / 690
  shipped draw, with:     held out 0.886 / 0.875 0.880 0.882 0.870 / 0.889 0.894 0.881 0.856, 714
                          vadbench 0.968 / 0.965 0.962 0.955 0.957 / 0.967 0.961 0.951 0.947, 530 / 720
  other draw, without:    held out 0.865 / 0.858 0.858 0.854 0.841 / 0.863 0.874 0.870 0.842, 1,153
                          vadbench 0.964 / 0.963 0.961 0.956 0.958 / 0.965 0.958 0.948 0.940, 530 / 683
  other draw, with:       held out 0.867 / 0.863 0.867 0.863 0.850 / 0.865 0.881 0.884 0.851, 1,145
                          vadbench 0.965 / 0.966 0.963 0.961 0.961 / 0.967 0.962 0.951 0.946 (3%), 530 / 660
Held out, F1 rises in all nine conditions on both draws (0.002-0.020);
vadbench rises in 15 of the 18, is level in 2 and loses 0.001 in 1. The
sounds fall by a sixth on the shipped draw and not on the other, and on the
other draw one of vadbench's distractors at pink 0 dB (the third, a
sound already judged 0.7 by the context networks alone) is held for 200
ms, the minimum that opens a segment: 3% of the distractor frames. End of
speech p95 moves both ways (720 and 660 against 690 and 683). Taken: the
gain is on both draws and both sets; white 10 dB on vadbench is still
0.002 behind Silero on the shipped draw.
Tried after, not taken (scratch heads on the same base members, the pair
against the same pair's plain heads): the sounds' frames weighed 2x more
for the head alone. Held out a little ahead in six conditions (0.885 /
0.877 0.881 0.883 0.865 / 0.892 0.895 0.877 0.851 against 0.883 / 0.874
0.881 0.882 0.866 / 0.888 0.895 0.878 0.848) with fewer sound frames (554
against 623), but the streams lose F1 (0.9298 against 0.9324, false
alarms 1.14% against 1.57%) and vadbench 0.001 in seven conditions; and
the head without smoothing (streams 0.9322, end of speech 570 / 874
against 0.9324, 570 / 830); and members from the two draws (seed 9 of
the shipped draw with seed 6 of the other, each with its head): held out
0.885 / 0.876 0.876 0.879 0.861 / 0.886 0.890 0.882 0.844, lower than the
shipped draw's own pair in six conditions, with 638 sound frames.

The lookahead again (shipped: `--lookahead 4`, hold 0.5). L 3 was "the
longest lookahead that ends speech no later than before" ("A decision that
waits"), when every frame of lookahead was 10 ms more end of speech. Since
vadsegmenter counts the lookahead, audio it has heard, towards
silence-duration-ms, a longer one costs 10 ms of onset and a pause judged
10 ms shorter (splits), not end of speech. So L 4 was trained on both draws
of the streams (the same recipe otherwise), scored against L 3 with the
same segmenter. Held out (F1 clean / white 20 10 5 0 / pink 20 10 5 0, the
sounds' frames taken in the clear, the element's own end of speech median /
p95 and the extra segments inside the 155 utterances):
  shipped draw, L 3, hold 0.4:  0.886 / 0.875 0.880 0.882 0.870 / 0.889 0.894 0.881 0.856, 714, 590 / 780, 13
  shipped draw, L 4, hold 0.4:  0.890 / 0.877 0.879 0.883 0.875 / 0.888 0.899 0.885 0.859, 615, 590 / 757, 12
  shipped draw, L 4, hold 0.5:  0.888 / 0.875 0.878 0.882 0.872 / 0.887 0.897 0.884 0.858, 651, 590 / 760, 12
  other draw, L 3, hold 0.4:    0.867 / 0.863 0.867 0.864 0.850 / 0.865 0.881 0.884 0.851, 1,145, 590 / 746, 18
  other draw, L 4, hold 0.4:    0.869 / 0.863 0.871 0.869 0.857 / 0.866 0.884 0.887 0.853, 1,156, 580 / 720, 19
The hold chosen again by the rule on the shipped draw's streams (F1, false
alarms on the sounds, end of speech, extra segments inside 4,032
utterances):
  L 3, hold 0.4 (before):  0.9314, 1.25%, 530 / 740, 283
  L 4, hold 0.3:           0.9325, 1.28%, 530 / 710, 304
  L 4, hold 0.4:           0.9327, 1.32%, 530 / 710, 299
  L 4, hold 0.5:           0.9328, 1.38%, 530 / 710, 295
  L 4, hold 0.6:           0.9328, 1.45%, 540 / 720, 290
so 0.5. On vadbench (reported, not chosen on): L 4 at 0.5 0.968 / 0.964
0.964 0.960 0.962 / 0.969 0.964 0.956 0.950 against L 3's 0.968 / 0.965
0.962 0.955 0.957 / 0.967 0.961 0.951 0.947, no distractor false alarms,
the element's segments ending 490 / 680 ms after the speech (L 3 500 /
690) with 6 extra segments inside its 288 utterances (L 3 2; the other
draw's L 3 and L 4 both 8). Over draws.py's five noise draws the mean
margins over Silero, thousandths (white 20 10 5 0 / pink 20 10 5 0), are
+2.5 -0.6 +3.9 +14.9 / +6.7 +6.4 +9.8 +17.3 (L 3: +2.5 -2.8 +0.3 +11.3 /
+4.3 +3.3 +5.4 +13.1), with false alarms on three noisy draws: white 0 dB
3% (Silero 3%), pink 5 dB 3% (3%) and pink 0 dB 7% (0%; L 3 4%). Taken:
F1 rises held out on both draws (at hold 0.4, 7 and 8 of 9 conditions; at
the rule's 0.5 5 of 9, 2 level), on the streams and on vadbench's draws,
and the shipped draw's sounds fall from 714 frames to 651. It costs 10 ms
of onset, a few more split utterances on the streams (295 against 283)
and the one draw's pink 0 dB false alarms.
L 5 (shipped draw) went too far: on the streams F1 0.9341 at hold 0.5, but
1.54% of the sounds' frames taken and 322 split utterances (hold 0.4:
0.9340, 1.47%, 333; 0.6: 0.9341, 1.62%, 318); held out lower than L 4 in
seven conditions, 0.884 / 0.869 0.876 0.881 0.873 / 0.885 0.894 0.886
0.857, with 748 of the sounds' frames; vadbench 0.969 / 0.966 0.963 0.961
0.962 / 0.969 0.964 0.956 0.951, segments ending 480 / 650 ms after the
speech with 8 split. Not taken.

Confident onsets (vadsegmenter's `onset-threshold`, 0.75; a segmenter
rule, not the network's). The held-out sounds the detector still takes
are mostly voiced: ducks, a koala, cows, a penguin, a dog, a cello. Of
many it is not sure: the frames it takes of the penguin, the dog, the
pig, the owl and the white cow sit at 0.63-0.71 (median), while 94% of
the held-out speech frames it takes are at 0.75 or more (83% at 0.9).
The cow (0.95), the duck and the koala (0.8) it is sure of. So a segment now opens only when at least half of min-speech-ms (100 ms)
of its speech frames reach the onset threshold; frames at 0.5 still count
towards min-speech-ms, start the segment (prefix padding before the
first) and, once it is open, keep it going and end it as before. Chosen
on these weights' training streams (`streams.py --onset-threshold ...`):
the highest onset threshold whose mean F1 over the conditions vadbench
holds (digital silence to 0 dB) is no lower than with the threshold
alone. Mean F1 over the twelve conditions (down to 0 dB), false alarms
on the sounds, extra segments inside the 4,032 utterances, utterances
with no segment at all:
  0.5 (none):  0.9328 (0.9450), 1.38%, 295, 96
  0.6:         0.9327 (0.9451), 1.32%, 289, 106
  0.7:         0.9323 (0.9452), 1.15%, 275, 136
  0.75:        0.9315 (0.9450), 1.07%, 263, 160
  0.8:         0.9303 (0.9444), 0.92%, 251, 205
  0.9:         0.9247 (0.9415), 0.58%, 221, 341
(end of speech 530 / 710 throughout, 540 / 710 at 0.9). So 0.75. Held
out: 0.891 / 0.876 0.882 0.887 0.879 / 0.891 0.898 0.888 0.864 (before
0.888 / 0.875 0.878 0.882 0.872 / 0.887 0.897 0.884 0.858), higher in all
nine; the sounds' frames taken in the clear 503 (651; Silero 346): the
penguin, the white cow, the dog, the pig and the owl open nothing now,
the duck, the koala, the hippo, the cow and the cello still do (the
detector is sure of them). Its utterances with no segment at all, over
the nine conditions, 18 of 1,395 (7 before; Silero through the common
segmenter 228). vadbench: F1 unchanged in all nine conditions, no
utterance missed, end of speech and splits unchanged, onset p95 10 ms
later (370); over draws.py's five noise draws false alarms on one noisy
draw of 40 (white 0 dB, 3%, as Silero's on it), not three: the pink 5 and
0 dB draws that took 3% and 7% take none. The cost is the missed
utterances, on the streams mostly at 0 and -3 dB (per condition, digital
to pink -3: 5 4 2 1 3 4 4 5 4 11 6 46 before, 7 7 2 4 4 6 6 9 8 23 18 63
replayed in Python on the element's probabilities). It is not the rule
tried earlier ("a stricter rule for opening a segment", above: the mean
probability of the last 200 ms, on weights before the recurrent head and
the sounds' variants), which a single weak stretch of speech pulled
under the bar, and under which the moo and the cello still opened
segments at every level.
With confident onsets, hard sounds (`--hard-sound-weight 3`, above) were
tried again on the shipped draw: held out 0.895 / 0.879 0.884 0.895 0.883
/ 0.894 0.899 0.888 0.857, the sounds' false alarms in noise 1-5% (2-6%),
but 45 utterances with no segment (18) and 526 of the sounds' frames in
the clear (503); vadbench 0.969 / 0.963 0.964 0.960 0.961 / 0.967 0.965
0.957 0.948, onset 60 / 193 ms (50 / 168), segments ending 490 / 647 with
9 split (6). Fewer sounds in noise for more lost speech and later
onsets, on one draw (the other draw gained nothing before): not taken.
Higher onset thresholds on the held-out set (2026-11-27, the weights of
the doubt band below; F1 clean / white 20 10 5 0 / pink 20 10 5 0, the
sounds' false alarms in brackets where over 0.5%, the sounds' frames taken
in the clear, utterances no segment overlaps of 1,395):
  0.75 (shipped): 0.891 (3%) / 0.876 (6%) 0.882 (6%) 0.887 (4%) 0.879 (4%) / 0.891 (3%) 0.898 (3%) 0.888 (4%) 0.862 (4%), 503, 18
  0.8:            0.892 (2%) / 0.876 (5%) 0.884 (5%) 0.889 (4%) 0.882 (4%) / 0.892 (3%) 0.898 (3%) 0.894 (3%) 0.869 (2%), 456, 27
  0.85:           0.893 (2%) / 0.881 (4%) 0.888 (4%) 0.888 (4%) 0.881 (3%) / 0.894 (2%) 0.898 (3%) 0.895 (3%) 0.861 (2%), 409, 43
  0.9:            0.892 (2%) / 0.885 (3%) 0.890 (3%) 0.894 (2%) 0.882 (3%) / 0.891 (2%) 0.893 (2%) 0.891 (2%) 0.849 (1%), 399, 71
  0.95:           0.896 (1%) / 0.883 (2%) 0.892 (2%) 0.887 (2%) 0.865 (2%) / 0.887 (2%) 0.894 (2%) 0.881 (1%) 0.801, 214, 155
  Silero v5:      0.877 (2%) / 0.857 (1%) 0.853 (1%) 0.835 (1%) 0.817 (3%) / 0.827 0.813 (1%) 0.761 0.557, 346, 228
Frame F1 barely moves until 0.9; what each step buys is a point of the
sounds' false alarms in a few conditions, and what it costs is whole
utterances (a "yes" or "no" lost is a turn lost, which frame F1 weighs by
its length only). None reaches Silero's false alarms in every condition
short of 0.95, which loses 155 utterances and pink 0 dB's F1. Not taken:
0.75 stays, chosen on the training streams by the rule above.

Ending at the noise floor (tried for the end of speech's p95, not taken;
replayed in Python on the shipped element's probabilities and its front
end's level over the noise floor, on vadbench). In noise the detector
doubts for 100-300 ms after speech, at 0.4-0.7, while the level is back
at the floor: 40-300 ms after the labelled ends the front end's level over
its floor is under 0.24 dB (white, 0 dB) or 0.78 dB (pink) in 95 frames of
100, levels that 61% and 53% of the speech frames are over. Counting a frame as silence when that level,
averaged over the 90 ms around it, is at or under 0 dB and its probability
under 0.9 ends segments 420 / 540 ms after the labels (p95 at the issue's
+40), but splits 34 utterances of 288 (6): the pauses inside sentences
sit at the floor too. Under 0.7 it gives 455 / 590 with 20 splits, what a
release threshold of 0.7 alone gives (450 / 590, 18): the floor tells the
end of a sentence from a pause inside one no better than the probability
does.

Doubted frames count in part (shipped: `Segmenter.doubtBand`, 0.1; a
segmenter rule, not the network's). The tail above is the detector
hovering just over 0.5 after the last word, each such frame starting the
silence count again. Now a frame under threshold + band counts towards
the silence by how near threshold it is ((top - p) / band: 0.55 counts
half a frame) and does not restart it; a frame at the top or over does.
Replayed in Python on the shipped element's probabilities, the element's
own segments (median / p95 end of speech, ms; splits) on the held-out
set, where it was chosen, and on vadbench, reported:
  none (before):        held out 590 / 760, 12;  vadbench 490 / 680, 6
  band 0.1:             580 / 712, 12;           490 / 640, 7
  band 0.15:            580 / 700, 12;           480 / 637, 11
  band 0.2:             570 / 690, 13;           480 / 627, 12
  band 0.3:             560 / 680, 16;           460 / 610, 20
  0.1, half weight:     590 / 730, 12;           490 / 657, 7
  0.3, half weight:     580 / 700, 15;           480 / 636, 9
  0.1, after a dip:     590 / 730, 12;           490 / 667, 7
(half weight: doubted frames count half as much again; after a dip: only
once a frame under threshold began the count). Taken: 0.1, the widest
band that splits no more held out with a step to spare (0.15 ties it at
12, 0.2 splits one more); the element then measured what the replay did
(held out 580 / 712, 12 splits; vadbench 490 / 640, 7 splits, F1 and
false alarms unchanged but pink 5 dB +0.001). For comparison a shorter
setting, 450 ms, gives vadbench 440 / 630 with 23 splits: the band buys
its p95 for one split, not seventeen.
Babble (`--babble`, `--babble-speech-weight`; shipped with speech 1.65x, below). The
held-out set's babble (six Tux Paint talkers summed, at 5 and 0 dB under
the speaker in front) is where the detector was furthest from Silero: at
0 dB it lost the speaker in front (F1 0.131 against 0.317; Silero takes
the whole room for speech, 99.7% of the frames between items). The
training had no babble at all. `--babble 5 0 -3` lays the ten long
streams again under babble of 3-12 training talkers (babble_noise: the
speech clips above, none of them Tux Paint's or vadbench's), with room
tone, after every other frame and with draws of their own (the frames
before them are as without it). Held out (F1 clean / white 20 10 5 0 /
pink 20 10 5 0 / babble 5 0, the sounds' false alarms in brackets, the
room's frames between items taken at babble 5 / 0 dB, end of speech
median / p95 through the common segmenter), then vadbench as the element
decides (F1 in its nine conditions, end of speech of its own segments,
splits); seeds 9 and 6, hold 0.5, 2026-11-28:
  shipped:          0.891 / 0.876 0.882 0.887 0.879 / 0.891 0.898 0.888 0.862 / 0.355 0.131, 9.0% / 5.9%, 630 / 830
                    0.968 / 0.964 0.964 0.960 0.962 / 0.969 0.964 0.957 0.950, 490 / 640, 7 splits
  babble:           0.876 / 0.875 0.883 0.885 0.882 / 0.892 0.894 0.891 0.864 / 0.533 0.127, 1.2% / 0.3%, 630 / 810
  and its speech 3x: 0.879 / 0.872 0.882 0.884 0.869 / 0.894 0.895 0.894 0.854 / 0.563 0.442, 29% / 25%, 640 / 990
                    0.966 / 0.965 0.961 0.956 0.956 / 0.969 0.965 0.955 0.949, 490 / 693, 11 splits
  and its speech 2x: 0.883 / 0.876 0.883 0.885 0.874 / 0.892 0.890 0.890 0.859 / 0.634 0.438, 17% / 12%, 640 / 920
                    0.964 / 0.965 0.967 0.962 0.961 / 0.966 0.964 0.960 0.953, 490 / 660, 7 splits
  Silero v5:        0.877 / 0.857 0.853 0.835 0.817 / 0.827 0.813 0.761 0.557 / 0.320 0.317, 99.4% / 99.7%, 600 / 710
                    0.965 / 0.962 0.964 0.955 0.945 / 0.962 0.957 0.948 0.934
Babble alone taught the detector to refuse the room (0.3% of its frames)
but not to find the speaker in it; weighed up, the speaker in front is
found (0 dB: 0.438, Silero 0.317; 5 dB: 0.634) and the room is still
mostly refused (Silero takes all of it). Weight 2 is ahead of Silero in
all eleven held-out conditions and in eight of vadbench's nine, with no
false alarms, but 0.001 behind in vadbench's clear (0.964 against 0.965;
shipped 0.968) and later to end held out (p95 920 against 830 ms; vadbench's own
segments 660 against 640): not shipped, since
vadbench's figures are to be kept. Its weights are on the `vad-babble2`
branch with both reports.
The hold chosen again for the weight-2 weights by the rule above, on their
own training streams (streams.py: mean F1 over the twelve conditions,
false alarms on the streams' sounds, end of speech median / p95), then
vadbench's clear against Silero's 0.96494 (2026-11-28):
  hold 0.3:   0.9286, 0.99%, 520 / 670   vadbench clear 0.962
  hold 0.4:   0.9290, 1.01%, 530 / 680                  0.963
  hold 0.5:   0.9294, 1.05%, 530 / 680                  0.96402
  hold 0.6:   0.9295, 1.12%, 530 / 690                  0.96485
  hold 0.7:   0.9295, 1.23%, 540 / 700                  0.966
The rule (earliest median end, then the best F1) picks 0.3, the worst on
vadbench; even 0.6, best F1 among the 530s, stays 0.0001 behind Silero in
the clear. Holding on longer is not the way to vadbench's clear for these
weights.
Weight 1.5 (`--babble 5 0 -3 --babble-speech-weight 1.5`, seeds 9 and 6,
hold 0.5, 2026-11-28), held out then vadbench as above:
  and its speech 1.5x: 0.883 / 0.871 0.880 0.888 0.879 / 0.887 0.892 0.890 0.862 / 0.668 0.326, 5.8% / 2.7%, 640 / 830
                       0.96456 / 0.967 0.965 0.961 0.958 / 0.968 0.965 0.956 0.951, 530 / 720, 1 split
Ahead of Silero in all eleven held-out conditions (babble 0 dB 0.326
against 0.317, 5 dB 0.668 against 0.320), the sounds 3% in the clear, the
room between items 5.8% / 2.7% (Silero 99%), ends as late as the shipped weights held
out at p95; on vadbench ahead in eight of nine with no false alarms, and
0.0004 behind in the clear (Silero 0.96494). Not shipped for that; the
weights and reports are on the `vad-babble15` branch.
Its hold by the rule, on its training streams (streams.py, 2026-11-28):
  hold 0.3:   0.9287, 0.98%, 520 / 670
  hold 0.4:   0.9290, 1.01%, 530 / 670
  hold 0.5:   0.9294, 1.03%, 530 / 680
  hold 0.6:   0.9295, 1.11%, 540 / 688
  hold 0.7:   0.9294, 1.21%, 550 / 700
The rule picks 0.3 again (the one end 10 ms sooner), which holds on less
than the 0.5 vadbench was run with; as for weight 2, a longer hold is not a
choice the rule makes.
What the babble costs in vadbench's clear is recall: its precision and
recall there (hold 0.5 unless said; Silero's F1 0.96494), 2026-11-28:
  shipped (no babble):     F1 0.96771, P 0.9791, R 0.9566
  babble, speech 1.5x:     F1 0.96456, P 0.9751, R 0.9542
  the same at hold 0.3:    F1 0.96317, P 0.9770, R 0.9497
  babble, speech 1.25x:    F1 0.96414, P 0.9819, R 0.9470
Taught that the room's talkers are not speech, the detector lets go of
weak speech of the speaker in the clear too; weighing the babble's
speech up gives recall back and precision away (1.25x: more precise, 1
point less recall). Weight 1.25 (seeds 9 and 6) was not taken further
(held out, hold): already further behind than 1.5 in the clear.
All speech weighed up a little with the babble's (`--babble 5 0 -3
--babble-speech-weight 1.5 --positive-weight 1.65`, was 1.5; seeds 9 and
6). Its hold by the rule, on its training streams (F1, false alarms, end
of speech as above):
  hold 0.3:   0.9301, 1.06%, 530 / 680
  hold 0.4:   0.9303, 1.09%, 530 / 690
  hold 0.5:   0.9305, 1.12%, 530 / 690
  hold 0.6:   0.9305, 1.18%, 540 / 700
  hold 0.7:   0.9304, 1.26%, 550 / 710
so 0.5 (the earliest median end, then the best F1). Held out, then
vadbench as the element decides (precision and recall in the clear):
  and speech 1.65x: 0.885 / 0.877 0.885 0.886 0.871 / 0.891 0.892 0.894 0.856 / 0.661 0.332, 7.1% / 3.1%, 640 / 870
                    0.96807 (P 0.9799, R 0.9565) / 0.969 0.966 0.960 0.962 / 0.971 0.968 0.959 0.952, no false alarms, 5 splits
Every figure #68 asks for: ahead of Silero in all eleven held-out
conditions (babble 5 dB 0.661 against 0.320, 0 dB 0.332 against 0.317;
the room between items 7.1% / 3.1% taken for speech, Silero's 99%), the
held-out sounds 3% in the clear, on vadbench ahead in all nine with no
false alarms, the clear back to the shipped weights' (0.96807 against
0.96771; Silero 0.96494), 8.4x Silero in the same run. Its costs: the
held-out sounds in white noise reach 5% (Silero 1%), held out it ends
later at p95 (870 against 830 ms). Shipped (2026-11-29; these are now
the defaults, so `benchmarks/vad/train/run` makes these weights): trained
again from a clean machine, the weights came out the same to the last
held-out figure. Two pipeline tests had failed with them: CloudSTT's
speechAfterALikelyEndWithdraws...HearsItAll, whose three LibriVox
sentences "200 ms apart" came out as three segments, and SessionRecorder's
aSessionKilledMidway..., with no record before the kill. The first was
the fixture's: each LibriVox clip keeps 0.2-0.3 s of its reader's room
before and after its sentence, so with 200 ms of digital silence between
them the reader paused 0.7-0.8 s, over the 500 ms setting. Both weights
take the room tone that follows the digital silence for speech (0.6-0.9);
the weights before did so 40 ms sooner, so they judged 420 ms of the
pause silent and kept one segment, these 460, which with the 40 ms
lookahead is the 500 ms setting: the segment ends. The test
now joins the sentences cut to 0.25-0.3 s pauses of the reader's own room
(SpeechFixtures.threeSentencesReadOn): one segment with either weights.
The second passed alone and repeated with these weights, and both
weights cut its recording at the same places (parley-bench vad-frames
--silence-ms 200): the failure was the loaded suite's, not the weights'.

Other noises and rooms (`--more-conditions`; all four shipped, the default since 2026-11-29). The held-out
set gained brown noise (10, 0 dB), noise in the speech's own band
(300-3400 Hz, 5 dB), a phone line's band and a reverberant room (RT60
0.6 s). The babble weights went deaf in the band-limited noise (F1 0.000
against Silero's 0.818: speech over a floor raised only where speech is,
and nothing above 3.4 kHz, is a spectrum the training never had) and
fell behind at brown 0 dB (0.546 against 0.703); neither noise was in
the training. `--more-conditions brown,band` lays the ten long streams
again under brown noise and under white noise limited to a drawn band
(150-600 Hz to 2-4.5 kHz), each at an SNR drawn from 10 to -3 dB, with
draws of their own after the babble's (the frames before are as
without). Held out (F1 clean / white 20 10 5 0 / pink 20 10 5 0 / babble
5 0 / brown 10 0 / band 5 / telephone / reverb, the sounds' false
alarms in brackets where they differ most; end of speech median / p95),
then vadbench (F1 in its nine conditions, five decimals where it is
near Silero's):
  babble weights:   0.885 / 0.877 0.885 0.886 0.871 / 0.891 0.892 0.894 0.856 / 0.661 0.332 / 0.886 0.546 / 0.000 / 0.779 (7%) / 0.749, 630 / 850
                    0.96812 / 0.96955 0.96610 0.960 0.962 / 0.971 0.968 0.959 0.952
  brown, band:      0.878 / 0.877 0.877 0.880 0.868 / 0.892 0.890 0.886 0.863 / 0.657 0.431 / 0.888 0.877 / 0.829 (15%) / 0.783 (12%) / 0.782, 650 / 870
                    0.96934 / 0.96686 0.96398 0.958 0.960 / 0.970 0.966 0.956 0.950
  Silero v5:        0.877 / 0.857 0.853 0.835 0.817 / 0.827 0.813 0.761 0.557 / 0.320 0.317 / 0.847 0.703 / 0.818 (1%) / 0.673 (0%) / 0.662, 590 / 710
                    0.96494 / 0.96241 0.96411 0.955 0.945 / 0.962 0.957 0.948 0.934
Ahead of Silero in all sixteen held-out conditions (brown 0 dB 0.877,
the band-limited noise 0.829), and the utterances no segment reaches
fall from 458 to 151 over the sixteen (Silero 417); but the sounds are
taken more in those noises (15% in the band-limited noise, Silero 1%;
4% in the clear, was 3%), it ends 20 ms later, the held-out clear is
level with Silero (0.878 against 0.877), and on vadbench white 10 dB is
0.0001 behind Silero (0.96398 against 0.96411): not shipped as it is.
All four (`--more-conditions brown,band,reverb,phone`: the streams also in a room of RT60 0.3-1.0 s, the labels the dry
speech's, and through a phone line's band of 250-400 Hz to 3.2-3.6 kHz),
the same seeds and hold (0.5), as above:
  all four:         0.884 / 0.879 0.882 0.890 0.875 / 0.889 0.895 0.896 0.864 / 0.626 0.380 / 0.894 0.887 / 0.847 (3%) / 0.851 (11%) / 0.846, 630 / 840
                    0.96560 / 0.96620 0.96408 0.960 0.962 / 0.969 0.964 0.958 0.948
Ahead of Silero in all sixteen held-out conditions:
the band-limited noise 0.847 with 3% of the sounds taken (brown and band
alone, 15%), brown 0 dB 0.887, the reverberant room 0.846 (babble
weights 0.749, Silero 0.662), the phone line 0.851 (0.779, Silero 0.673);
babble 0.626 / 0.380 (Silero 0.320 / 0.317), the talking room 12.6% /
5.8% taken (Silero 99%); utterances no segment reaches 182 over the
sixteen (babble weights 458, Silero 417); ends as soon (630 / 840). On
vadbench ahead in eight and level in the ninth (white 10 dB, 0.00003
behind; the weights #68 called level with Silero there were 0.0002
behind), no false alarms.
Its costs: the clear is lower (vadbench 0.96560 against 0.96812, Silero
0.96494; held out 0.884 against 0.885), and the sounds are taken more:
4% of their frames in the clear held out (860 frames, babble weights
634, Silero 346), household sounds 6.0% (0%), animals 4.6% (3.4%), and
11% through the phone line's band (Silero 0%).
Shipped, after two pipeline tests on speculation failed with them (run
beside benchmarks/vad/run; idle too): UseCasePipelineTests'
liveTranslateSpeaks... and CloudSTTPipelineTests' aLikelyEndStarts...
found a first segment with two speculative requests (one withdrawn) at
likely-end-ms=200. Not the load, and not these weights letting go sooner
in general: the tests' first LibriVox sentence has a weak stretch
("ill-disposed | young", ~170 ms at a tenth of its speech's energy) that
these weights judge silent for 200 ms and the babble weights for less
(`parley-bench vad-frames --silence-ms 200` splits it; 220 does not). The
tests now use 300, which keeps a margin and stays under the 500 ms
silence. Over whole sets the likely ends withdrawn inside utterances
(segments at a 100 / 200 ms silence beyond those at 500) are about as
many: held-out clear 21 / 1 (babble weights 13 / 5), vadbench clear 39 /
22 (39 / 24); in the reverberant room more at the 100 ms default, 33 / 12
(17 / 7), each a speculative transcription thrown away.
The hold chosen again for them by "The hold again"'s rule on their own
training streams (streams.py: mean F1 over the twelve conditions, false
alarms on the streams' sounds, end of speech median / p95, extra segments):
  hold 0.3:   0.9275, 1.10%, 530 / 680, 327
  hold 0.4:   0.9278, 1.14%, 530 / 680, 324
  hold 0.45:  0.9278, 1.15%, 530 / 680, 322
  hold 0.5:   0.9279, 1.17%, 530 / 680, 323
  hold 0.55:  0.9282, 1.20%, 540 / 690, 319
  hold 0.6:   0.9282, 1.23%, 540 / 690, 310
the earliest median end, then the best F1: 0.5, as trained. On
draws.py's five draws of vadbench's noise their mean margin over Silero
is ahead in all eight noisy conditions (thousandths, white 20 10 5 0 /
pink 20 10 5 0): +3.1 +0.6 +3.9 +16.1 / +6.3 +7.3 +10.5 +17.8 (babble
weights +7.4 +2.2 +4.8 +15.6 / +8.1 +10.4 +12.2 +20.7); at white 10 dB
level on vadbench's own draw (-0.0) and ahead on the other four.
"""
import argparse
import glob
import hashlib
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

import package_sounds
import package_speech

RATE = 16000
FRAME = 160
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
VADBENCH_SOUNDS = {"beep", "tt-monkeys"}  # vadbench's distractors: never trained on


def decode(path, effects=()):
    """Any sound file as 16 kHz mono float: sox (then its `effects`), or for
    Asterisk's raw G.722 (wideband) prompts, which sox cannot read, the static
    ffmpeg build in the imageio-ffmpeg wheel."""
    if path.endswith(".g722"):
        import imageio_ffmpeg
        command = [imageio_ffmpeg.get_ffmpeg_exe(), "-hide_banner", "-loglevel", "error", "-f", "g722", "-i", path,
                   "-f", "f32le", "-ac", "1", "-ar", str(RATE), "-"]
    else:
        command = ["sox", path, *RAW_FLOAT, "-", *effects]
    return float_audio(command)


# sox's words for the raw audio decode() and sox_effects() read: 16 kHz mono float.
RAW_FLOAT = ["-t", "raw", "-r", str(RATE), "-c", "1", "-b", "32", "-e", "floating-point"]


def float_audio(command, audio=None):
    """What `command` writes to its output as raw float audio (RAW_FLOAT),
    given `audio` on its input in the same form when there is any."""
    given = None if audio is None else audio.astype("<f4").tobytes()
    raw = subprocess.run(command, input=given, check=True, capture_output=True).stdout
    return np.frombuffer(raw, dtype="<f4").astype(np.float64)


def speech_labels(audio):
    frames = len(audio) // FRAME
    energy = np.array([np.mean(audio[i * FRAME:(i + 1) * FRAME] ** 2) for i in range(frames)]) + 1e-12
    db = 10 * np.log10(energy)
    threshold = max(np.percentile(db, 10) + 12, np.percentile(db, 99) - 35)
    speech = db > threshold
    speech = fill_runs(speech, value=True, shorter_than=3, replace_with=False)
    dilated = speech.copy()
    for shift in (1, 2):
        dilated[shift:] |= speech[:-shift]
        dilated[:-shift] |= speech[shift:]
    return fill_runs(dilated, value=False, shorter_than=20, replace_with=True, inner_only=True)


def fill_runs(flags, value, shorter_than, replace_with, inner_only=False):
    flags = flags.copy()
    start = None
    for index in range(len(flags) + 1):
        inside = index < len(flags) and flags[index] == value
        if inside and start is None:
            start = index
        elif not inside and start is not None:
            inner = start > 0 and index < len(flags)
            if index - start < shorter_than and (inner or not inner_only):
                flags[start:index] = replace_with
            start = None
    return flags


def trim_and_scale(audio, labels, level_db):
    speech = np.flatnonzero(labels)
    if len(speech) == 0:
        return None, None
    first, last = max(0, speech[0] - 10), min(len(labels), speech[-1] + 11)
    audio, labels = audio[first * FRAME:last * FRAME].copy(), labels[first:last]
    active = np.repeat(labels, FRAME)[:len(audio)]
    rms = np.sqrt(np.mean(audio[active] ** 2)) + 1e-9
    audio *= 10 ** (level_db / 20) / rms
    fade = np.linspace(0, 1, FRAME)
    audio[:FRAME] *= fade
    audio[-FRAME:] *= fade[::-1]
    return audio, labels


# Asterisk's voices, narrowband (8 kHz .wav, as a phone line). --wideband
# adds the same talkers wideband (16 kHz .g722: the band a microphone gives,
# as vadbench's LibriVox, cards and alsa-utils speech is) and Menardi's
# Italian prompts (another talker, 8 kHz).
VOICES = ["it_IT_m_Carlo", "es_MX_f_Allison", "fr_CA_f_June", "ru_RU_f_IvrvoiceRU"]


def synthesise(command, effects=()):
    """What a speech synthesiser says, as decode() gives it: `command(path)`
    is its command line writing a WAV to `path`, a private temporary file (two
    trainings at once must not read each other's)."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "speech.wav")
        subprocess.run(command(path), check=True)
        return decode(path, effects)


def voice_change(rng):
    """sox effects that make another talker of an utterance: slower (drawn-out
    words, as people say "five... five" to a recogniser) and lower (talkers
    go down to 80 Hz)."""
    effects = []
    if rng.random() < 0.6:
        effects += ["tempo", "-s", f"{rng.uniform(0.7, 0.95):.3f}"]
    if not effects or rng.random() < 0.6:
        effects += ["pitch", f"{rng.uniform(-700, -150):.0f}"]
    return effects


def speech_clips(rng, per_voice, wideband):
    clips = []
    sources = [(folder, kind) for folder in VOICES for kind in (("wav", "g722") if wideband else ("wav",))]
    sources += [("it_IT_f_Menardi", "wav")] if wideband else []
    for folder, kind in sources:
        files = sorted(glob.glob(f"/usr/share/asterisk/sounds/{folder}/**/*.{kind}", recursive=True))
        files = [f for f in files if os.path.splitext(os.path.basename(f))[0] not in VADBENCH_SOUNDS]
        for path in rng.choice(files, size=min(per_voice, len(files)), replace=False):
            audio = decode(path)
            if len(audio) < RATE * 0.4:
                continue
            audio, labels = trim_and_scale(audio, speech_labels(audio), rng.uniform(-36, -16))
            if audio is not None and labels.sum() >= 20:
                clips.append((audio, labels))
    sentences = ["the quick brown fox jumps over the lazy dog", "please call me back after the meeting",
                 "we will arrive at seven thirty tomorrow morning", "bonjour, comment allez-vous aujourd'hui",
                 "il treno per Roma parte alle nove", "wo ist der nächste Bahnhof", "dank je wel voor je hulp"]
    voices = ["en-us", "en+m3", "fr", "it", "de", "nl", "en+f4"]
    for sentence, voice in zip(sentences, voices):
        speed = str(int(rng.uniform(140, 190)))
        audio = synthesise(lambda path: ["espeak-ng", "-v", voice, "-s", speed, "-w", path, sentence])
        audio, labels = trim_and_scale(audio, speech_labels(audio), rng.uniform(-30, -22))
        clips.append((audio, labels))
    return clips


FLITE_VOICES = ["awb", "kal16", "rms", "slt"]
DIGITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "oh", "ten", "twenty"]


def flite_texts(rng, count):
    """What flite says: the GPL's sentences (any text with English's sounds
    will do), and digits and numbers as people read them to a recogniser."""
    licence = open("/usr/share/common-licenses/GPL-3").read()
    sentences = [" ".join(part.split()) for part in re.split(r"[.;:]\s", licence)]
    sentences = [text for text in sentences if 3 <= len(text.split()) <= 16 and text.isascii()]
    texts = []
    for _ in range(count):
        if rng.random() < 0.4:
            texts.append(" ".join(rng.choice(DIGITS, size=int(rng.integers(1, 6)))))
        else:
            texts.append(sentences[int(rng.integers(len(sentences)))])
    return texts


def wideband_speech(count):
    """Speech with a microphone's band (to 8 kHz; Asterisk's prompts stop at
    3.4 kHz): flite's four English voices, three men and a woman, slow and fast,
    some made lower or slower again by sox. Without it every sound with
    energy over 3.4 kHz was not speech to the network, and wideband talkers'
    fricatives and loud vowels were missed. Its own generator: the rest of
    the frames are drawn as without it."""
    rng = np.random.default_rng(20261126)
    clips = []
    for text in flite_texts(rng, count):
        voice = FLITE_VOICES[int(rng.integers(len(FLITE_VOICES)))]
        stretch = f"duration_stretch={rng.uniform(0.85, 1.5):.2f}"
        audio = synthesise(lambda path: ["flite", "-voice", voice, "--setf", stretch, "-t", text, "-o", path],
                           voice_change(rng) if rng.random() < 0.3 else ())
        audio, labels = trim_and_scale(audio, speech_labels(audio), rng.uniform(-36, -10))
        if audio is not None and labels.sum() >= 20:
            clips.append((audio, labels))
    return clips


def short_excerpt(rng, audio, label):
    """A word or two out of a prompt: short utterances must switch the detector on fast."""
    frames = len(label)
    length = int(rng.uniform(30, 100))
    if frames <= length + 20:
        return audio, label
    start = int(rng.integers(0, frames - length))
    piece, part = audio[start * FRAME:(start + length) * FRAME].copy(), label[start:start + length]
    fade = np.linspace(0, 1, FRAME)
    piece[:FRAME] *= fade
    piece[-FRAME:] *= fade[::-1]
    return piece, part


def synthetic_distractor(rng):
    seconds = rng.uniform(0.2, 3.0)
    t = np.arange(int(seconds * RATE)) / RATE
    kind = rng.integers(0, 10)
    if kind == 0:  # tone
        audio = np.sin(2 * np.pi * rng.uniform(200, 3500) * t)
    elif kind == 1:  # DTMF
        audio = np.sin(2 * np.pi * rng.choice([697, 770, 852, 941]) * t) + np.sin(2 * np.pi * rng.choice([1209, 1336, 1477]) * t)
    elif kind == 2:  # chirp
        f0, f1 = rng.uniform(200, 3000, size=2)
        audio = np.sin(2 * np.pi * (f0 * t + (f1 - f0) * t ** 2 / (2 * seconds)))
    elif kind == 3:  # clicks
        audio = np.zeros_like(t)
        period = int(RATE / rng.uniform(2, 30))
        audio[::period] = 1.0
        audio = np.convolve(audio, np.exp(-np.arange(40) / 6.0))[:len(t)]
    elif kind == 4:  # buzz: a harmonic-rich square wave (hum, alarm)
        audio = np.sign(np.sin(2 * np.pi * rng.uniform(50, 600) * t))
    elif kind == 5:  # harmonic glide with vibrato: screams, whistles, animal calls
        f = rng.uniform(350, 1500) * (1 + 0.3 * np.sin(2 * np.pi * rng.uniform(2, 8) * t)) * (1 + rng.uniform(-0.4, 0.4) * t / seconds)
        phase = 2 * np.pi * np.cumsum(f) / RATE
        audio = sum(np.sin(k * phase) / k for k in range(1, 6))
        audio *= 0.5 + 0.5 * np.abs(np.sin(2 * np.pi * rng.uniform(1, 6) * t))
    else:  # noise burst, white, pink or brown, maybe amplitude-modulated
        noise = rng.standard_normal(len(t))
        colour = rng.integers(0, 3)
        if colour == 1:
            noise = shape_noise(noise, 1.0)
        elif colour == 2:
            noise = np.cumsum(noise)
            noise -= np.convolve(noise, np.ones(400) / 400, mode="same")
        audio = noise * (0.5 + 0.5 * np.sin(2 * np.pi * rng.uniform(2, 8) * t) if kind == 7 else 1)
    audio = audio / (np.sqrt(np.mean(audio ** 2)) + 1e-9)
    ramp = min(len(audio) // 4, int(rng.uniform(0.002, 0.05) * RATE)) or 1
    audio[:ramp] *= np.linspace(0, 1, ramp)
    audio[-ramp:] *= np.linspace(1, 0, ramp)
    return audio


def sound_distractors():
    paths = [p for p in sorted(glob.glob("/usr/share/sounds/freedesktop/stereo/*.oga")) if "audio-channel" not in p]
    paths += [f"/usr/share/asterisk/sounds/en_US_f_Allison/{name}.wav"
              for name in ["ascending-2tone", "descending-2tone", "beeperr"]]
    paths += opensfx_wavs()
    sounds = []
    for path in paths:
        if os.path.exists(path):
            audio = decode(path)
            sounds.append(audio / (np.sqrt(np.mean(audio ** 2)) + 1e-9))
    return sounds


def opensfx_wavs():
    """OpenTTD's sound set is one .cat file of RIFF/WAVE chunks: cut them out."""
    catalogue = "/usr/share/games/openttd/baseset/opensfx/opensfx.cat"
    if not os.path.exists(catalogue):
        return []
    data = open(catalogue, "rb").read()
    folder = os.path.join(os.path.expanduser("~/.cache/parley-bench/train"), "opensfx")
    os.makedirs(folder, exist_ok=True)
    paths, start = [], 0
    while (found := data.find(b"RIFF", start)) >= 0:
        size = int.from_bytes(data[found + 4:found + 8], "little")
        if data[found + 8:found + 12] == b"WAVE" and size > 4000:
            path = os.path.join(folder, f"{len(paths):03d}.wav")
            open(path, "wb").write(data[found:found + 8 + size])
            paths.append(path)
        start = found + 8 + size
    return paths


def shape_noise(noise, exponent):
    spectrum = np.fft.rfft(noise)
    frequencies = np.maximum(np.fft.rfftfreq(len(noise), 1 / RATE), 20)
    shaped = np.fft.irfft(spectrum / frequencies ** (exponent / 2), n=len(noise))
    return shaped / (np.std(shaped) + 1e-12)


def recording_bed(rng, audio, label):
    """The clip as a real recording is: under the talker, the room or line it
    was recorded in (hiss, rumble, mains hum), starting a little before the
    speech and ending a little after. Asterisk's prompts are studio-clean, so
    without this the detector only ever meets speech that rises out of
    silence, and takes a recording that arrives with its own noise (as
    pocketsphinx's and LibriVox's do) for a noise burst."""
    lead, tail = (int(rng.uniform(5, 40)) for _ in range(2))
    n = len(label) + lead + tail
    bed = rng.standard_normal(n * FRAME)
    colour = rng.integers(0, 3)
    if colour == 1:
        bed = shape_noise(bed, 1.0)
    elif colour == 2:
        bed = shape_noise(bed, 2.0)
    if rng.random() < 0.3:
        t = np.arange(len(bed)) / RATE
        mains = rng.choice([50.0, 60.0])
        hum = sum(np.sin(2 * np.pi * mains * k * t + rng.uniform(0, 6.3)) / k for k in range(1, 5))
        bed += hum / np.std(hum) * rng.uniform(0.5, 3)
    speech_rms = np.sqrt(np.mean(audio[np.repeat(label, FRAME)[:len(audio)]] ** 2)) + 1e-9
    bed *= speech_rms * 10 ** (-rng.uniform(20, 50) / 20) / (np.std(bed) + 1e-12)
    ramp = FRAME * 2
    bed[:ramp] *= np.linspace(0, 1, ramp)
    bed[-ramp:] *= np.linspace(1, 0, ramp)
    bed[lead * FRAME:lead * FRAME + len(audio)] += audio
    return bed, np.concatenate([np.zeros(lead, dtype=bool), label, np.zeros(tail, dtype=bool)])


def wandering_gain(rng, audio):
    """The clip as a talker says it, not as a studio reads it: the loudness
    drifts from syllable to syllable (a smoothed random gain, 4-8 dB standard
    deviation over about 150 ms, never more than 18 dB down), so weak
    stretches inside an utterance sink into the noise as a real talker's do.
    The clip's labels stay as they are: a weak stretch is still speech."""
    frames = len(audio) // FRAME
    drift = np.convolve(rng.standard_normal(frames + 30), np.hanning(15), mode="valid")[:frames]
    drift = (drift - drift.mean()) / (drift.std() + 1e-9) * rng.uniform(4, 8)
    gain_db = np.interp(np.arange(len(audio)) / FRAME, np.arange(frames) + 0.5, np.clip(drift, -18, 6))
    return audio * 10 ** (gain_db / 20)


# The hold on a fall (--hold) chosen for the shipped weights on their training streams ("The lookahead again").
HOLD = 0.5

# The streams' layout (--layout-seed): the shipped weights' draw; another seed names its frame cache.
LAYOUT_SEED = 20261122
# The babble's own draws (--babble), apart from the layout's.
BABBLE_SEED = 20261128
# The other conditions' own draws (--more-conditions), apart from both.
MORE_CONDITIONS_SEED = 20261129
# What the long streams go through again with --more-conditions: none of them one of vadbench's.
MORE_CONDITIONS = ["brown", "band", "reverb", "phone"]
MORE_CONDITION_NOTES = {"brown": "under brown noise", "band": "under band-limited noise", "reverb": "in a reverberant room",
                        "phone": "through a phone line's band"}

# The share of non-speech items that are recordings (--recorded-share); the rest are synthetic_distractor()'s.
# 0.35 before "Sounds at other speeds": the frame caches made with it carry no suffix for it, so they stay valid.
RECORDED_SHARE = 0.6
EARLIER_RECORDED_SHARE = 0.35


VARIANT_KINDS = ("speed", "pitch", "tempo")


def sound_variants(sounds, count, kinds=("speed",)):
    """--sound-variants: each recorded sound `count` more times, played
    faster or slower (0.7-1.4x, log-uniform; pitch and length move
    together, as a bigger or smaller animal's call or an instrument's other
    register would), so that the network learns kinds of sound and not the
    few hundred recordings it has. Its own generator, like wanderer()'s.

    --variant-kinds: variant k is made the k-th kind's way, round the list:
    "speed" as above, "pitch" the pitch moved as far (sox `pitch`, the
    length kept), "tempo" the length moved as far (sox `tempo`, the pitch
    kept). The factors are drawn alike for every kind, so a list of kinds
    changes how the variants sound, not which factors they have."""
    rng = np.random.default_rng(20261126)
    out = list(sounds)
    for audio in sounds:
        for index in range(count):
            speed = np.exp(rng.uniform(np.log(0.7), np.log(1.4)))
            kind = kinds[index % len(kinds)]
            if kind == "pitch":
                out.append(sox_effects(audio, ["pitch", f"{1200 * np.log2(speed):.1f}"]))
            elif kind == "tempo":
                out.append(sox_effects(audio, ["tempo", f"{speed:.4f}"]))
            else:
                # Linear interpolation, no anti-aliasing filter: played faster, what was over 8 kHz / speed
                # (5.7 kHz at 1.4x) folds back into the top bands (to 7.75 kHz), at the low level these
                # recordings have up there. The shipped weights were trained so; a filter would change them.
                positions = np.arange(0, len(audio) - 1, speed)
                out.append(np.interp(positions, np.arange(len(audio)), audio))
    return out


def sox_effects(audio, effects):
    """16 kHz mono float audio through sox's `effects`."""
    return float_audio(["sox", *RAW_FLOAT, "-", *RAW_FLOAT, "-", *effects], audio)


def variants_note(count, kinds):
    """The weights file's words for --sound-variants and --variant-kinds."""
    if kinds == ["speed"]:
        return f", each also at {count} other speeds"
    return f", each also {count} more times, made by {', '.join(kinds)} in turn"


def wanderer(share):
    """--gain-wander: a function giving a share of the speech clips a
    wandering gain, or None. It draws from a generator of its own, so the
    rest of the layout is the same with it as without."""
    if share <= 0:
        return None
    rng = np.random.default_rng(20261125)
    return lambda audio: wandering_gain(rng, audio) if rng.random() < share else audio


def draw_item(rng, speech, sounds, is_speech, beds=0.0, min_seconds=0.0, wander=None, recorded=RECORDED_SHARE):
    """One item of a stream and its labels: a speech clip (sometimes a word or
    two out of it; a share `beds` laid on its recording's noise; passed
    through `wander`, see wanderer()), or a
    non-speech sound (a share `recorded` of them recorded, the rest
    synthetic), repeated to last `min_seconds`, at a random level."""
    if is_speech:
        audio, label = speech[rng.integers(len(speech))]
        if rng.random() < 0.3:
            audio, label = short_excerpt(rng, audio, label)
        if wander:
            audio = wander(audio)
        if beds > 0 and rng.random() < beds:
            audio, label = recording_bed(rng, audio, label)
    else:
        audio = sounds[rng.integers(len(sounds))] if rng.random() < recorded else synthetic_distractor(rng)
        if len(audio) < min_seconds * RATE:
            audio = np.tile(audio, int(np.ceil(min_seconds * RATE / len(audio))))
        audio = audio * 10 ** (rng.uniform(-42, -10) / 20)
        audio = audio[:len(audio) // FRAME * FRAME]
        label = np.zeros(len(audio) // FRAME, dtype=bool)
    return audio[:len(label) * FRAME], label


def join(lead, items):
    """A stream's audio, speech labels and sound mask per frame: `lead` frames
    of silence, then each (audio, label, gap) item followed by `gap` frames
    of silence."""
    pieces, labels, sounds_mask = [np.zeros(lead * FRAME)], [np.zeros(lead, dtype=bool)], [np.zeros(lead, dtype=bool)]
    for audio, label, gap in items:
        pieces += [audio, np.zeros(gap * FRAME)]
        labels += [label, np.zeros(gap, dtype=bool)]
        sounds_mask += [np.full(len(label), not label.any()), np.zeros(gap, dtype=bool)]
    return np.concatenate(pieces), np.concatenate(labels), np.concatenate(sounds_mask)


def layout(rng, speech, sounds, items, beds=0.0, wander=None, recorded=RECORDED_SHARE):
    """One stream: speech and distractors in random order with pauses; a
    share `beds` of the speech clips carry their recording's noise."""
    # Sometimes the stream opens on an item: an element may start mid-sound.
    lead = int(rng.choice([0, 0.3, 1.5]) * 100)
    drawn = []
    for _ in range(items):
        audio, label = draw_item(rng, speech, sounds, rng.random() < 0.62, beds=beds, wander=wander, recorded=recorded)
        drawn.append((audio, label, int(rng.choice([0.3, 0.6, 0.8, 1.0, 1.5, 2.0, 3.0]) * 100)))
    return join(lead, drawn)


def opening(rng, speech, sounds, wander=None, recorded=RECORDED_SHARE):
    """A short stream that starts on an item, with no quiet before it: an
    element may be started mid-sound (a tone, hold music, someone already
    talking), and then its front end has no noise floor yet to judge the
    sound against. Most open on a non-speech sound, kept long enough to
    outlast the 300 ms the context stage looks back."""
    drawn = []
    for item in range(int(rng.integers(1, 4))):
        sound = rng.random() < (0.7 if item == 0 else 0.4)
        audio, label = draw_item(rng, speech, sounds, not sound, min_seconds=1.0 if item == 0 else 0.0, wander=wander,
                                  recorded=recorded)
        drawn.append((audio, label, int(rng.choice([0.3, 0.6, 1.0, 1.5]) * 100)))
    return join(0, drawn)


# The noises the streams are mixed into (name, spectral slope) and at what SNRs;
# CONDITION_NAMES is the order conditions() returns them in, the order of the cache.
NOISES = [("white", 0.0), ("pink", 1.0)]
SNRS = [20, 10, 5, 0, -3]
CONDITION_NAMES = ["digital", "room"] + [f"{colour}{snr}" for snr in SNRS for colour, _ in NOISES]


def room_tone(rng, length):
    """A quiet room: pink noise at -60 dBFS."""
    return shape_noise(rng.standard_normal(length), 1.0) * 10 ** (-60 / 20)


def conditions(rng, clean):
    # Digital silence between items too: test signals and synthesised speech have it.
    out = [("digital", clean.copy()), ("room", clean + room_tone(rng, len(clean)))]
    for snr in SNRS:
        for colour, exponent in NOISES:
            noise = rng.standard_normal(len(clean)) if exponent == 0 else shape_noise(rng.standard_normal(len(clean)), 1.0)
            level = rng.uniform(-28, -24) - snr  # against speech at about -26 dBFS
            out.append((f"{colour}{snr}", clean + noise * 10 ** (level / 20)))
    return out


def babble_noise(rng, speech, length, talkers):
    """Other people talking: `talkers` streams of training speech clips (only
    their labelled speech, each at unit RMS, a talker's clips joined with
    pauses of 0-250 ms), each talker 4 dB louder or quieter than the next at
    most, summed, at unit RMS. None of it is the held-out set's (Tux Paint)
    or vadbench's: the talkers are the training speech's."""
    total = np.zeros(length)
    for _ in range(talkers):
        stream, filled = [], 0
        while filled < length:
            audio, label = speech[rng.integers(len(speech))]
            voiced = np.flatnonzero(label)
            if len(voiced) == 0:
                continue
            audio = audio[voiced[0] * FRAME:(voiced[-1] + 1) * FRAME]
            stream += [audio / (np.sqrt(np.mean(audio ** 2)) + 1e-9), np.zeros(int(rng.uniform(0, 0.25) * RATE))]
            filled += len(stream[-2]) + len(stream[-1])
        total += np.concatenate(stream)[:length] * 10 ** (rng.uniform(-4, 4) / 20)
    return total / (np.std(total) + 1e-12)


def babble_conditions(rng, clean, speech, snrs):
    """The stream under babble (babble_noise: 3-12 talkers) at each of `snrs`
    dB below the speech's -26 dBFS, and room tone under all: the speaker in
    front is speech, the room is not."""
    out = []
    for snr in snrs:
        talkers = int(rng.choice([3, 4, 6, 8, 12]))
        noise = babble_noise(rng, speech, len(clean), talkers)
        out.append((f"babble{snr:g}", clean + room_tone(rng, len(clean)) + noise * 10 ** ((rng.uniform(-28, -24) - snr) / 20)))
    return out


def band_limited(audio, low, high):
    """`audio` with every frequency under `low` or over `high` (Hz) taken out."""
    spectrum = np.fft.rfft(audio)
    frequencies = np.fft.rfftfreq(len(audio), 1 / RATE)
    spectrum[(frequencies < low) | (frequencies > high)] = 0
    return np.fft.irfft(spectrum, n=len(audio))


def reverberant(rng, audio, rt60):
    """`audio` in a room: the direct sound and a noise tail from 5 ms on that
    falls 60 dB in `rt60` s, about as loud in all as the direct sound, at
    the dry audio's RMS. The labels stay the dry speech's: the tail a word
    leaves in the room is not speech, and the detector learns to end where
    the talker stopped."""
    t = np.arange(int(rt60 * RATE)) / RATE
    tail = rng.standard_normal(len(t)) * np.exp(-6.9 * t / rt60)
    tail[:RATE // 200] = 0
    response = np.concatenate([[1.0], tail[1:] / np.sqrt(np.sum(tail ** 2))])
    n = len(audio) + len(response) - 1
    wet = np.fft.irfft(np.fft.rfft(audio, n) * np.fft.rfft(response, n), n=n)[:len(audio)]
    return wet * np.sqrt(np.mean(audio ** 2)) / (np.sqrt(np.mean(wet ** 2)) + 1e-12)


def more_conditions(rng, clean, kinds):
    """The stream again through each of `kinds` (MORE_CONDITIONS), room tone
    under all, each draw its own:
    - brown: under brown noise (falling 6 dB an octave: rumble, traffic, a
      fan's roar under the speech's band) at 10 to -3 dB against the
      speech's -26 dBFS;
    - band: under band-limited noise (white noise with nothing under
      150-600 Hz or over 2-4.5 kHz: hiss or a fan heard through a phone or
      a small loudspeaker), whose energy sits where the speech's does and
      nowhere else, at 10 to -3 dB;
    - reverb: in a room (reverberant, RT60 0.3-1.0 s);
    - phone: through a phone line's band (250-400 Hz to 3.2-3.6 kHz).
    None of these draws is the held-out set's (its own seeds, fixed edges)."""
    out = []
    for kind in kinds:
        if kind == "reverb":
            rt60 = rng.uniform(0.3, 1.0)
            out.append((f"reverb{rt60:.1f}", reverberant(rng, clean, rt60) + room_tone(rng, len(clean))))
        elif kind == "phone":
            out.append(("phone", band_limited(clean + room_tone(rng, len(clean)), rng.uniform(250, 400), rng.uniform(3200, 3600))))
        else:
            # The draws in this order: the brown and band weights were made so.
            snr = float(rng.choice([10, 5, 0, -3]))
            noise = rng.standard_normal(len(clean))
            noise = shape_noise(noise, 2.0) if kind == "brown" else band_limited(noise, rng.uniform(150, 600), rng.uniform(2000, 4500))
            level = rng.uniform(-28, -24) - snr
            out.append((f"{kind}{snr:g}", clean + room_tone(rng, len(clean)) + noise / (np.std(noise) + 1e-12) * 10 ** (level / 20)))
    return out


class Teacher:
    """Silero VAD's speech probability per 10 ms frame (its 32 ms frames held)."""

    def __init__(self):
        sys.path.insert(0, os.path.join(HERE, ".."))
        from silero import CHUNK, Silero
        self.model, self.chunk = Silero(), CHUNK

    def frames(self, audio):
        chunks = np.append(self.model.probabilities(np.clip(audio, -1, 1).astype(np.float32)), 0.0)
        n = len(audio) // FRAME
        return chunks[np.minimum((np.arange(n) * FRAME + FRAME // 2) // self.chunk, len(chunks) - 1)]


def write_wav(path, audio):
    import wave
    pcm = np.clip(np.round(audio * 32767), -32768, 32767).astype("<i2")
    with wave.open(path, "wb") as file:
        file.setnchannels(1)
        file.setsampwidth(2)
        file.setframerate(RATE)
        file.writeframes(pcm.tobytes())


def front_end_fingerprint(bench, work, count):
    """A digest of what the front end makes of a fixed probe (noise, a tone
    fading to nothing, digital silence, quiet noise): the frames' cache is
    named by it, so frames made by another front end with the same feature
    count (another noise floor, say) are never reused."""
    rng = np.random.default_rng(0)
    half = RATE // 2
    tone = 0.3 * np.sin(2 * np.pi * 220 * np.arange(half) / RATE) * np.geomspace(1, 1e-5, half)
    probe = np.concatenate([0.1 * rng.standard_normal(half), tone, np.zeros(half // 2), 0.01 * rng.standard_normal(half)])
    path = os.path.join(work, "front-end-probe.wav")
    write_wav(path, probe)
    return hashlib.sha256(features(bench, path, count).tobytes()).hexdigest()[:8]


def features(bench, wav, count):
    out = wav[:-4] + ".f32"
    subprocess.run([bench, "vad-features", wav, out], check=True)
    return np.fromfile(out, dtype="<f4").reshape(-1, count)


class MLP:
    def __init__(self, sizes, rng):
        self.weights = [rng.standard_normal((a, b)) * np.sqrt(2 / a) for a, b in zip(sizes[:-1], sizes[1:])]
        self.biases = [np.zeros(b) for b in sizes[1:]]

    def forward(self, x):
        activations = [x]
        for index, (w, b) in enumerate(zip(self.weights, self.biases)):
            z = activations[-1] @ w + b
            activations.append(np.maximum(z, 0) if index < len(self.weights) - 1 else z)
        return activations

    def train(self, x, y, weight, epochs, rng, rate=2e-3, batch=2048):
        params = self.weights + self.biases
        moments = [np.zeros_like(p) for p in params]
        squares = [np.zeros_like(p) for p in params]
        step = 0
        for epoch in range(epochs):
            order = rng.permutation(len(x))
            total = 0.0
            for start in range(0, len(x), batch):
                index = order[start:start + batch]
                acts = self.forward(x[index])
                logits = acts[-1][:, 0]
                p = 1 / (1 + np.exp(-logits))
                w = weight[index]
                total += float(np.sum(-w * (y[index] * np.log(p + 1e-7) + (1 - y[index]) * np.log(1 - p + 1e-7))))
                delta = ((p - y[index]) * w / len(index))[:, None]
                grads_w, grads_b = [], []
                for layer in range(len(self.weights) - 1, -1, -1):
                    grads_w.insert(0, acts[layer].T @ delta + 1e-5 * self.weights[layer])
                    grads_b.insert(0, delta.sum(axis=0))
                    if layer > 0:
                        delta = (delta @ self.weights[layer].T) * (acts[layer] > 0)
                step += 1
                for param, grad, m, v in zip(params, grads_w + grads_b, moments, squares):
                    m *= 0.9
                    m += 0.1 * grad
                    v *= 0.999
                    v += 0.001 * grad * grad
                    param -= rate * (m / (1 - 0.9 ** step)) / (np.sqrt(v / (1 - 0.999 ** step)) + 1e-8)
            rate *= 0.8
            print(f"epoch {epoch + 1}: loss {total / len(x):.4f}", flush=True)

    def probability(self, x):
        return 1 / (1 + np.exp(-self.forward(x)[-1][:, 0]))


# The context stage's windows: frames back from the current one (1 is the
# previous frame), newest first; 30 frames is the last 300 ms.
CONTEXT_WINDOWS = [(1, 2), (3, 6), (7, 14), (15, 30)]


def context_inputs(hidden, logit, lengths, windows=CONTEXT_WINDOWS):
    """The context stage's input per frame: the frame network's last hidden
    layer and logit now, then their means over each of `windows`, within
    the frame's own stream (a window reaching before the stream's start
    averages the frames there are, and is 0 when there are none: the element
    starts the same way)."""
    values = np.hstack([hidden, logit[:, None]])
    width = values.shape[1]
    out = np.zeros((len(values), width * (1 + len(windows))))
    start = 0
    for length in lengths:
        part = values[start:start + length]
        sums = np.vstack([np.zeros((1, width)), np.cumsum(part, axis=0)])
        now = np.arange(length)
        columns = [part]
        for near, far in windows:
            end, begin = np.clip(now - near + 1, 0, length), np.clip(now - far, 0, length)
            columns.append((sums[end] - sums[begin]) / np.maximum(end - begin, 1)[:, None])
        out[start:start + length] = np.hstack(columns)
        start += length
    return out


def frames_after(y, ends, count):
    """The `count` frames from each labelled start of speech, or from each end."""
    edges = np.flatnonzero((y[:-1] > 0) & (y[1:] == 0) if ends else (y[:-1] == 0) & (y[1:] > 0)) + 1
    flags = np.zeros(len(y), dtype=bool)
    for offset in range(count):
        flags[np.minimum(edges + offset, len(y) - 1)] = True
    return flags


def noisy_frames(lengths, arguments):
    """Frames of the long streams mixed at `--noisy-snr` dB or less, in `--noisy-colours`
    (the cache holds each long stream in CONDITION_NAMES' order, then the openings)."""
    noisy = {f"{colour}{snr}" for snr in SNRS if snr <= arguments.noisy_snr for colour in arguments.noisy_colours}
    long_streams = arguments.streams * len(CONDITION_NAMES)
    chosen = [index < long_streams and CONDITION_NAMES[index % len(CONDITION_NAMES)] in noisy
              for index in range(len(lengths))]
    return np.repeat(chosen, lengths)


def babble_frames(lengths, arguments):
    """Frames of the long streams under babble (--babble): after the
    openings, before the --more-conditions mixes, the last of the cache."""
    mixes, after = arguments.streams * len(arguments.babble), arguments.streams * len(arguments.more_conditions)
    index = np.arange(len(lengths))
    return np.repeat((index >= len(lengths) - after - mixes) & (index < len(lengths) - after), lengths)


def noisy_speech_note(arguments):
    """The weights file's words for --noisy-speech-weight: none when it weighs nothing."""
    if arguments.noisy_speech_weight == 1:
        return ""
    where = "both networks" if arguments.noisy_stage == "both" else "the frame network only"
    return (f"speech in {'/'.join(arguments.noisy_colours)} noise at {arguments.noisy_snr:g} dB or under weighed "
            f"{arguments.noisy_speech_weight:g}x more ({where}), ")


def known_names(text, known, what):
    """A comma-separated option's names, each one of `known`."""
    names = text.split(",")
    for name in names:
        if name not in known:
            raise argparse.ArgumentTypeError(f"unknown {what} {name!r}: one of {', '.join(known)}")
    return names


def more_condition_names(text):
    """--more-conditions: names from MORE_CONDITIONS, comma-separated; "" for none."""
    return known_names(text, MORE_CONDITIONS, "condition") if text else []


def noise_names(text):
    """--noisy-colours: names from NOISES, comma-separated."""
    return known_names(text, [name for name, _ in NOISES], "noise")


def variant_kinds(text):
    """--variant-kinds: names from VARIANT_KINDS, comma-separated."""
    return known_names(text, VARIANT_KINDS, "variant kind")


def context_windows(text):
    """--context-windows: near-far frame spans, comma-separated, each 1 <= near <= far
    (the element's ContextHistory takes the same ranges)."""
    windows = []
    for window in text.split(","):
        bounds = window.split("-")
        if len(bounds) != 2 or not all(bound.isdigit() for bound in bounds) or not 1 <= int(bounds[0]) <= int(bounds[1]):
            raise argparse.ArgumentTypeError(f"window {window!r} is not near-far with 1 <= near <= far")
        windows.append((int(bounds[0]), int(bounds[1])))
    return windows


def swift_array(values):
    return "[" + ", ".join(f"{v:.6g}" for v in np.asarray(values, dtype=np.float64).ravel()) + "]"


def gru_lines(model, indent):
    """A GRU's (gru.py's) weights as Swift arrays, row-major by output unit like
    the layers': the ReLU layer, the gates' input projections (r, z, n blocks
    of the state's size), the state's projections, then the output."""
    return [f"{indent}static let {name}: [Float] = {swift_array(values)}"
            for name, values in [("denseWeights", model.w1.T), ("denseBiases", model.b1), ("inputWeights", model.wi.T),
                                 ("inputBiases", model.bi), ("stateWeights", model.wh.T), ("stateBiases", model.bh),
                                 ("outputWeights", model.wo.T), ("outputBias", model.bo)]]


def layer_lines(network, weights, biases, indent="    "):
    """A dense network's layers as Swift constants named `weights`N and
    `biases`N: weights row-major by output unit (the inner loop of inference
    runs over inputs), then the biases."""
    lines = []
    for index, (w, b) in enumerate(zip(network.weights, network.biases)):
        lines.append(f"{indent}static let {weights}{index}: [Float] = {swift_array(w.T)}")
        lines.append(f"{indent}static let {biases}{index}: [Float] = {swift_array(b)}")
    return lines


def make_frames(arguments, rng, count):
    """Training streams laid out, mixed into every condition, and featurised by the Swift front end."""
    # One Silero for every check and for --teacher-weight: each call starts from a fresh state, and loading it is not free.
    needs_silero = arguments.more_speech or arguments.zero_ad or arguments.more_sounds or arguments.teacher_weight > 0
    silero = Teacher() if needs_silero else None
    speech = speech_clips(rng, per_voice=150, wideband=arguments.wideband)
    speech += wideband_speech(arguments.flite)
    if arguments.more_speech:
        # Its own generator, as wideband_speech's: the choice of clips does not depend on what came before.
        speech += package_speech.more_speech(os.path.join(os.path.dirname(arguments.work), "more-speech"),
                                             np.random.default_rng(20261127), silero, decode, speech_labels, trim_and_scale)
    sounds = sound_distractors()
    if arguments.zero_ad:
        sounds += package_sounds.zero_ad_sounds(silero, decode)
    if arguments.more_sounds:
        sounds += package_sounds.more_sounds(os.path.join(os.path.dirname(arguments.work), "more-sounds"), silero, decode)
    if arguments.sound_variants:
        sounds = sound_variants(sounds, arguments.sound_variants, arguments.variant_kinds)
    print(f"{len(speech)} speech clips, {len(sounds)} recorded non-speech sounds", flush=True)
    # Silero's probabilities go into the frames only when asked for (--teacher-weight): listening to every stream is most of the time taken.
    teacher = silero if arguments.teacher_weight > 0 else None
    xs, ys, distractors, taught, lengths = [], [], [], [], []
    wander = wanderer(arguments.gain_wander)

    def add(wav, audio, labels, sound_frames):
        write_wav(wav, audio)
        x = features(arguments.bench, wav, count)
        n = min(len(x), len(labels))
        xs.append(x[:n])
        ys.append(labels[:n].astype(np.float64))
        distractors.append(sound_frames[:n])
        taught.append(teacher.frames(audio)[:n] if teacher else np.full(n, np.nan))
        lengths.append(n)

    long_streams = []
    for stream in range(arguments.streams):
        clean, labels, sound_frames = layout(rng, speech, sounds, items=60, beds=arguments.beds, wander=wander,
                                                 recorded=arguments.recorded_share)
        for name, audio in conditions(rng, clean):
            add(os.path.join(arguments.work, f"stream{stream}_{name}.wav"), audio, labels, sound_frames)
        if arguments.babble or arguments.more_conditions:
            long_streams.append((clean, labels, sound_frames))
        print(f"stream {stream + 1}/{arguments.streams}: {len(labels) / 100:.0f} s x {len(xs) // (stream + 1)} conditions", flush=True)
    # After the long streams, so that they are the same with or without these.
    for _ in range(arguments.openings):
        clean, labels, sound_frames = opening(rng, speech, sounds, wander=wander, recorded=arguments.recorded_share)
        mixes = conditions(rng, clean)
        name, audio = mixes[rng.integers(len(mixes))]
        add(os.path.join(arguments.work, f"opening_{name}.wav"), audio, labels, sound_frames)
    if arguments.openings:
        print(f"{arguments.openings} streams that open on an item: {sum(lengths[-arguments.openings:]) / 100:.0f} s", flush=True)
    # Last, with a generator of their own: every frame before them is as without --babble.
    babble_rng = np.random.default_rng(BABBLE_SEED)
    for stream, (clean, labels, sound_frames) in enumerate(long_streams):
        for name, audio in babble_conditions(babble_rng, clean, speech, arguments.babble):
            add(os.path.join(arguments.work, f"stream{stream}_{name}.wav"), audio, labels, sound_frames)
    if arguments.babble:
        print(f"babble at {', '.join(f'{snr:g}' for snr in arguments.babble)} dB under the {len(long_streams)} long streams", flush=True)
    # And after those, with a generator of their own again.
    more_rng = np.random.default_rng(MORE_CONDITIONS_SEED)
    for stream, (clean, labels, sound_frames) in enumerate(long_streams):
        for name, audio in more_conditions(more_rng, clean, arguments.more_conditions):
            add(os.path.join(arguments.work, f"stream{stream}_{name}.wav"), audio, labels, sound_frames)
    if arguments.more_conditions:
        print(f"the {len(long_streams)} long streams again: {', '.join(arguments.more_conditions)}", flush=True)
    return (np.concatenate(xs).astype(np.float32), np.concatenate(ys).astype(np.float32), np.concatenate(distractors),
            np.concatenate(taught).astype(np.float32), np.array(lengths))


def train_member(seed, x, target, weight, timed, lengths, count, arguments):
    """One seed's networks: for the context model the frame network, then the
    context stage on its outputs (with its own input standardisation)."""
    # Its own generator: the same model whether the frames were made now or cached.
    model_rng = np.random.default_rng(seed)
    print(f"model seed {seed}:", flush=True)
    if arguments.model == "gru":
        from gru import GRUClassifier
        model = GRUClassifier(count, arguments.dense, arguments.state, model_rng)
        model.train(x.astype(np.float32), target.astype(np.float32), weight.astype(np.float32), arguments.epochs, model_rng,
                    log=lambda line: print(line, flush=True))
        return {"model": model, "layers": [count, arguments.dense, arguments.state, 1],
                "probability": model.probability(x.astype(np.float32))}
    model = MLP([count] + arguments.hidden + [1], model_rng)
    model.train(x, target, weight, arguments.epochs, model_rng)
    member = {"model": model, "layers": [count] + arguments.hidden + [1], "probability": model.probability(x)}
    if arguments.model == "context":
        print("the context stage:", flush=True)
        activations = model.forward(x)
        context = context_inputs(activations[-2], activations[-1][:, 0], lengths, arguments.context_windows)
        context_mean, context_scale = context.mean(axis=0), context.std(axis=0) + 1e-3
        context = (context - context_mean) / context_scale
        stage = MLP([context.shape[1], arguments.context_hidden, 1], model_rng)
        stage.train(context, target, timed, arguments.epochs, model_rng)
        member.update(stage=stage, context_mean=context_mean, context_scale=context_scale,
                      context_layers=[context.shape[1], arguments.context_hidden, 1], probability=stage.probability(context))
        if arguments.recurrent_state:
            member.update(recurrent_head(context.astype(np.float32), target, timed, lengths, model_rng, arguments))
            # The member's two heads count alike, as in the element.
            member["probability"] = (member["probability"] + member["recurrent_probability"]) / 2
    return member


def recurrent_head(context, target, timed, lengths, rng, arguments):
    """The member's recurrent head (gru.py's GRU, the element's
    RecurrentNetwork) on the context stage's standardised inputs, trained on
    chunks that start from a zero state inside one stream, never across a
    join: the element's state starts at zero with each stream too."""
    from gru import GRUClassifier
    print("the recurrent head:", flush=True)
    head = GRUClassifier(context.shape[1], arguments.recurrent_dense, arguments.recurrent_state, rng)
    head.train(context, target.astype(np.float32), timed.astype(np.float32), arguments.recurrent_epochs, rng,
               chunk=arguments.recurrent_chunk, lengths=lengths, log=lambda line: print(line, flush=True))
    return {"recurrent": head, "recurrent_probability": head.probability(context, lengths)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bench", default=os.path.join(ROOT, ".build/release/parley-bench"))
    parser.add_argument("--work", default=os.path.expanduser("~/.cache/parley-bench/train"))
    parser.add_argument("--streams", type=int, default=10)
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--model", choices=["context", "gru", "mlp"], default="context",
                        help="context: mlp, then a second network on its last hidden layer now and over the last 300 ms; "
                             "gru: dense layer, GRU, output (gru.py); mlp: two ReLU layers on the frame's features")
    parser.add_argument("--context-hidden", type=int, default=64, help="context: the second network's hidden layer")
    parser.add_argument("--context-windows", type=context_windows, default=CONTEXT_WINDOWS,
                        help="context: the windows of frames back whose means the second network reads (near-far, ...)")
    parser.add_argument("--hidden", type=int, nargs="+", default=[32, 16], help="mlp: the hidden layers' sizes")
    parser.add_argument("--recurrent-state", type=int, default=16,
                        help="context: each member's recurrent head (a GRU on the context stage's inputs), its state size; 0: none")
    parser.add_argument("--recurrent-dense", type=int, default=32, help="context: the recurrent head's ReLU layer before the GRU")
    parser.add_argument("--recurrent-epochs", type=int, default=8, help="context: the recurrent head's epochs")
    parser.add_argument("--recurrent-chunk", type=int, default=400, help="context: the recurrent head's training chunks, in frames")
    parser.add_argument("--dense", type=int, default=32, help="gru: the dense layer before the GRU")
    parser.add_argument("--state", type=int, default=24, help="gru: the GRU's state size")
    parser.add_argument("--sound-weight", type=float, default=7.0, help="recorded and synthetic sounds' weight")
    parser.add_argument("--teacher-weight", type=float, default=0.0, help="share of Silero's probability in the target")
    parser.add_argument("--positive-weight", type=float, default=1.65, help="speech frames' weight against non-speech (1.5 before --babble)")
    parser.add_argument("--noisy-speech-weight", type=float, default=1.75,
                        help="extra weight of speech frames in the long streams mixed at --noisy-snr dB or less")
    parser.add_argument("--noisy-snr", type=float, default=10.0, help="--noisy-speech-weight: the mixes at this SNR (dB) or under")
    parser.add_argument("--noisy-colours", type=noise_names, default=["white"], help="--noisy-speech-weight: the noises it applies to (white, pink)")
    parser.add_argument("--noisy-stage", choices=["both", "frame"], default="both",
                        help="where --noisy-speech-weight applies: both networks, or the frame network only")
    parser.add_argument("--tail-weight", type=float,
                        help="weight of the 200 ms after each labelled end of speech: a detector that lets go late ends segments late "
                             "(default 5 for context's second network, else 1)")
    parser.add_argument("--onset-weight", type=float,
                        help="weight of the first 150 ms of each labelled utterance: a detector that opens late cuts words "
                             "(default 3 for context's second network, else 1)")
    parser.add_argument("--wideband", action="store_true",
                        help="add Asterisk's wideband (G.722) prompts and Menardi's Italian to the speech (needs the -g722 packages)")
    parser.add_argument("--beds", type=float, default=0.0,
                        help="share of speech clips laid on their own recording noise (hiss, rumble, hum)")
    parser.add_argument("--openings", type=int, default=600,
                        help="short streams that start on a sound or on speech, with no quiet before it")
    parser.add_argument("--flite", type=int, default=1000,
                        help="wideband utterances spoken by flite's voices, added to the speech (needs flite)")
    parser.add_argument("--lookahead", type=int, default=4,
                        help="frames each decision waits for: the networks learn frame t-L's label from the frames up to t")
    parser.add_argument("--gain-wander", type=float, default=0.0,
                        help="share of speech items whose loudness drifts (weak stretches inside an utterance)")
    parser.add_argument("--model-seed", type=int, nargs="+", default=[9, 6],
                        help="the networks' initial weights and batch order (the frames keep theirs), one pair of networks "
                             "per seed, whose probabilities the detector averages (context model); train 3 to judge a change")
    parser.add_argument("--zero-ad", action="store_true",
                        help="add 0 A.D.'s animals, weather, foley, alarms and music to the non-speech sounds (0ad-data)")
    parser.add_argument("--more-sounds", action=argparse.BooleanOptionalAction, default=True,
                        help="add animals, instruments, music and work sounds from four Debian packages to the non-speech (package_sounds.py)")
    parser.add_argument("--more-speech", action=argparse.BooleanOptionalAction, default=True,
                        help="add real talkers' words, letters, prompts and dialogue from seven Debian packages to the speech (package_speech.py)")
    parser.add_argument("--recorded-share", type=float, default=RECORDED_SHARE,
                        help="the share of non-speech items that are recordings (the rest synthetic tones, chirps, bursts)")
    parser.add_argument("--sound-variants", type=int, default=2,
                        help="each recorded sound this many more times, 0.7-1.4x faster or slower")
    parser.add_argument("--variant-kinds", type=variant_kinds, default=["speed"],
                        help="how the variants are made, comma-separated, round the list: speed, pitch (sox pitch), tempo (sox tempo)")
    parser.add_argument("--hard-sound-weight", type=float, default=1.0,
                        help="train twice: the second time, the sound frames the first took for speech weighed this much more")
    parser.add_argument("--layout-seed", type=int, default=LAYOUT_SEED,
                        help="the seed the streams are laid out with: judge a recipe on two or three draws, not one")
    parser.add_argument("--hold", type=float, default=HOLD,
                        help="the hold on a fall written with the weights: choose it for new weights with streams.py (\"The hold again\")")
    parser.add_argument("--babble", type=float, nargs="*", default=[5, 0, -3],
                        help="the long streams again under other people talking (babble_conditions) at these SNRs (dB); none: --babble")
    parser.add_argument("--babble-speech-weight", type=float, default=1.5,
                        help="--babble: the speech frames of the babble mixes weighed this much more (both networks)")
    parser.add_argument("--more-conditions", type=more_condition_names, default=list(MORE_CONDITIONS),
                        help=f"the long streams again through these (more_conditions), comma-separated, \"\" for none; default all: {','.join(MORE_CONDITIONS)}")
    parser.add_argument("--fresh", action="store_true", help="make the training frames again, not from the cache")
    parser.add_argument("--output", default=os.path.join(ROOT, "plugins/VADSegmenter/SpeechClassifierWeights.swift"))
    arguments = parser.parse_args()
    for name, weight in (("tail_weight", 5.0), ("onset_weight", 3.0)):
        if getattr(arguments, name) is None:
            setattr(arguments, name, weight if arguments.model == "context" else 1.0)
    os.makedirs(arguments.work, exist_ok=True)
    rng = np.random.default_rng(arguments.layout_seed)

    # Named by the front end's feature count and what it makes of a probe, so frames of another front end are never reused.
    count = int(subprocess.run([arguments.bench, "vad-features", "--count"], capture_output=True, text=True, check=True).stdout)
    fingerprint = front_end_fingerprint(arguments.bench, arguments.work, count)
    cache = os.path.join(arguments.work, f"frames-{arguments.streams}-{count}-{fingerprint}{'-wideband' if arguments.wideband else ''}"
                         f"{f'-beds{arguments.beds:g}' if arguments.beds else ''}"
                         f"{f'-open{arguments.openings}' if arguments.openings else ''}"
                         f"{f'-flite{arguments.flite}' if arguments.flite else ''}"
                         f"{f'-wander{arguments.gain_wander:g}' if arguments.gain_wander else ''}"
                         f"{'-0ad' if arguments.zero_ad else ''}{'-more' if arguments.more_sounds else ''}"
                         f"{'-talkers' if arguments.more_speech else ''}"
                         f"{f'-recorded{arguments.recorded_share:g}' if arguments.recorded_share != EARLIER_RECORDED_SHARE else ''}"
                         f"{f'-variants{arguments.sound_variants}' if arguments.sound_variants else ''}"
                         f"{'-' + '+'.join(arguments.variant_kinds) if arguments.sound_variants and arguments.variant_kinds != ['speed'] else ''}"
                         f"{f'-layout{arguments.layout_seed}' if arguments.layout_seed != LAYOUT_SEED else ''}"
                         f"{'-babble' + '+'.join(f'{snr:g}' for snr in arguments.babble) if arguments.babble else ''}"
                         f"{'-' + '+'.join(arguments.more_conditions) if arguments.more_conditions else ''}.npz")
    if os.path.exists(cache) and not arguments.fresh:
        # Features depend only on the audio and the Swift front end: --fresh after changing either.
        stored = np.load(cache)
        x, y, distractor_frames, taught = stored["x"], stored["y"], stored["distractors"], stored["teacher"]
        # Caches from before the context stage have no stream lengths: one stream, a few windows straddle joins.
        lengths = stored["lengths"] if "lengths" in stored else np.array([len(x)])
        print(f"{len(x)} frames from {cache}", flush=True)
    else:
        x, y, distractor_frames, taught, lengths = make_frames(arguments, rng, count)
        np.savez(cache, x=x, y=y, distractors=distractor_frames, teacher=taught, lengths=lengths)
    if arguments.lookahead:
        # The decision for frame t is made with frame t + L in hand: the
        # network at t learns frame t - L's label.
        def delayed(values):
            out, start = values.copy(), 0
            for length in lengths:
                part = values[start:start + length]
                out[start + arguments.lookahead:start + length] = part[:length - arguments.lookahead]
                out[start:start + arguments.lookahead] = part[0]
                start += length
            return out
        y, distractor_frames, taught = delayed(y), delayed(distractor_frames), delayed(taught)
    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-3
    x = ((x - mean) / scale).astype(np.float64)
    positive = y.mean()
    weight = np.where(y > 0, 0.5 * arguments.positive_weight / positive, 0.5 / (1 - positive))
    # Distractor frames keep their label: a sound is never speech, whatever the teacher says.
    if arguments.teacher_weight > 0 and np.isnan(taught).any():
        sys.exit(f"{cache} was made without the teacher: add --fresh to make it with Silero")
    mixed = (1 - arguments.teacher_weight) * y + arguments.teacher_weight * taught if arguments.teacher_weight > 0 else y
    target = np.where(distractor_frames, 0.0, mixed)
    noisy_speech = noisy_frames(lengths, arguments) & (y > 0)
    if arguments.noisy_stage == "both":
        weight[noisy_speech] *= arguments.noisy_speech_weight
    if arguments.babble_speech_weight != 1:
        # The speaker in front of a talking room: found less often than the room is taken for speech.
        weight[babble_frames(lengths, arguments) & (y > 0)] *= arguments.babble_speech_weight
    # A sound taken for speech costs a paid request; silence is easy: weigh sounds up.
    weight[distractor_frames] *= arguments.sound_weight
    # The context stage learns when to hold on and when to let go; the frame network under it is trained plain.
    timed = weight.copy()
    # After the copy, so with --noisy-stage frame the context stage keeps the plain weight.
    if arguments.noisy_stage == "frame":
        weight[noisy_speech] *= arguments.noisy_speech_weight
    timed[frames_after(y, ends=True, count=20) & (y == 0)] *= arguments.tail_weight
    timed[frames_after(y, ends=False, count=15) & (y > 0)] *= arguments.onset_weight
    if arguments.model != "context":
        weight = timed
    print(f"{len(x)} frames, {positive:.1%} speech", flush=True)
    if arguments.model != "context" and len(arguments.model_seed) > 1:
        sys.exit(f"--model {arguments.model} trains one network: give one --model-seed")
    members = [train_member(seed, x, target, weight, timed, lengths, count, arguments) for seed in arguments.model_seed]
    probability = np.mean([member["probability"] for member in members], axis=0)
    if arguments.hard_sound_weight != 1:
        # The sounds' frames the first training still takes for speech, weighed up, and every member trained again.
        hard = distractor_frames.astype(bool) & (probability > 0.5)
        print(f"--hard-sound-weight: {hard.sum()} of {distractor_frames.sum()} sound frames over 0.5, weighed x{arguments.hard_sound_weight:g}",
              flush=True)
        weight[hard] *= arguments.hard_sound_weight
        if timed is not weight:  # the same array for the models without a context stage
            timed[hard] *= arguments.hard_sound_weight
        members = [train_member(seed, x, target, weight, timed, lengths, count, arguments) for seed in arguments.model_seed]
        probability = np.mean([member["probability"] for member in members], axis=0)
    decided = probability > 0.5
    tp = np.sum(decided & (y > 0))
    print(f"training F1 {2 * tp / (decided.sum() + (y > 0).sum()):.3f}"
          f"{' (the mean of the members, unsmoothed)' if len(members) > 1 else ''}", flush=True)
    layers = members[0]["layers"]
    context_layers = members[0].get("context_layers")

    seeds = " ".join(str(seed) for seed in arguments.model_seed)
    recurrent_note = (f" and a recurrent head ({context_layers[0]} -> {arguments.recurrent_dense} -> GRU {arguments.recurrent_state}, "
                      f"{arguments.recurrent_epochs} epochs on chunks of {arguments.recurrent_chunk} frames)" if "recurrent" in members[0] else "")
    lines = ["// Generated by benchmarks/vad/train/train.py: do not edit; train again instead.",
             f"// {len(x)} frames of training audio (none of it from vadbench; {arguments.openings} short streams open on a sound or speech;",
             f"// {arguments.flite} wideband utterances by flite's voices"
             f"{'; animals, instruments, music and work sounds from GCompris, Wesnoth, Widelands and Sonic Pi' if arguments.more_sounds else ''}"
             f"{'; words, letters, prompts and dialogue by real talkers from KTuberling, KLettres, Asterisk and Fish Fillets' if arguments.more_speech else ''}"
             f"{'; the long streams again under babble of 3-12 of those talkers at ' + ', '.join(f'{snr:g}' for snr in arguments.babble) + ' dB' if arguments.babble else ''}"
             f"{f', their speech weighed {arguments.babble_speech_weight:g}x' if arguments.babble and arguments.babble_speech_weight != 1 else ''}"
             f"{'; and again ' + ', '.join(MORE_CONDITION_NOTES[kind] for kind in arguments.more_conditions) if arguments.more_conditions else ''};",
             f"// {arguments.recorded_share:.0%} of the non-speech items recorded sounds"
             f"{variants_note(arguments.sound_variants, arguments.variant_kinds) if arguments.sound_variants else ''}),",
             f"// {arguments.model} {layers}{f', then {context_layers}' if context_layers else ''}{recurrent_note},",
             f"// {arguments.epochs} epochs, speech weight {arguments.positive_weight}, sound weight {arguments.sound_weight}, "
             f"teacher weight {arguments.teacher_weight},",
             f"// onset weight {arguments.onset_weight}, tail weight {arguments.tail_weight}"
             f"{f', recording noise under {arguments.beds:.0%} of the speech' if arguments.beds else ''},",
             f"// {noisy_speech_note(arguments)}"
             f"{f'trained twice, the sound frames the first took for speech weighed {arguments.hard_sound_weight:g}x, ' if arguments.hard_sound_weight != 1 else ''}"
             f"lookahead {arguments.lookahead} frames, model seed{'s' if len(members) > 1 else ''} {seeds}.",
             "enum SpeechClassifierWeights {",
             "    /// Frames each decision waits for: the output after frame t is about frame t - lookahead.",
             f"    static let lookahead = {arguments.lookahead}",
             "    /// How much of the smoothed logit a fall keeps each frame (SpeechClassifier): chosen for these weights",
             "    /// on their training streams (streams.py; train.py, \"The hold again\").",
             f"    static let fallingHold: Float = {arguments.hold:g}",
             f"    static let inputMean: [Float] = {swift_array(mean)}",
             f"    static let inputScale: [Float] = {swift_array(1 / scale)}",
             f"    static let layerSizes = {layers}"]
    if arguments.model == "gru":
        lines += gru_lines(members[0]["model"], indent="    ")
    elif arguments.model == "mlp":
        lines += layer_lines(members[0]["model"], "weights", "biases")
    else:
        # One namespace per seed; the detector runs each member and averages their probabilities.
        lines.append(f"    static let contextWindows: [ClosedRange<Int>] = [{', '.join(f'{near}...{far}' for near, far in arguments.context_windows)}]")
        lines.append(f"    static let contextLayerSizes = {context_layers}")
        lines.append("    /// One per model seed: the detector averages their speech probabilities.")
        lines.append(f"    static let members = [{', '.join(f'Seed{seed}.member' for seed in arguments.model_seed)}]")
        for seed, member in zip(arguments.model_seed, members):
            frame, stage = member["model"], member["stage"]
            lines.append(f"    enum Seed{seed} {{")
            lines += layer_lines(frame, "weights", "biases", indent="        ")
            lines.append(f"        static let contextMean: [Float] = {swift_array(member['context_mean'])}")
            lines.append(f"        static let contextScale: [Float] = {swift_array(1 / member['context_scale'])}")
            lines += layer_lines(stage, "contextWeights", "contextBiases", indent="        ")
            frame_layers = ", ".join(f"(weights{index}, biases{index})" for index in range(len(frame.weights)))
            context_pairs = ", ".join(f"(contextWeights{index}, contextBiases{index})" for index in range(len(stage.weights)))
            recurrent = ""
            if "recurrent" in member:
                lines += gru_lines(member["recurrent"], indent="        ")
                recurrent = (", recurrent: RecurrentWeights(input: [(denseWeights, denseBiases), (inputWeights, inputBiases)], "
                             "stateWeights: stateWeights, stateBiases: stateBiases, outputWeights: outputWeights, outputBias: outputBias[0])")
            lines.append(f"        static let member = ClassifierMember(frame: [{frame_layers}], contextMean: contextMean, "
                         f"contextScale: contextScale, context: [{context_pairs}]{recurrent})")
            lines.append("    }")
    lines.append("}")
    with open(arguments.output, "w") as file:
        file.write("\n".join(lines) + "\n")
    print(f"wrote {arguments.output}")


if __name__ == "__main__":
    sys.exit(main())
