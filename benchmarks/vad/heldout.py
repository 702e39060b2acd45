"""A held-out set for choosing the detector's constants: neither vadbench
(the test) nor anything the detector was trained on.

    benchmarks/vad/heldout [NAME=PARLEY_BENCH ...]     (fetches the packages, runs this)

Why: a constant chosen after training (the smoothing's hold, which seeds
make the ensemble) was chosen on the training streams, which favour whatever
fits the training data, or would have to be chosen on vadbench, which is
tuning on the test. This set is built the way vadbench is, from other
recordings, so a choice made here is a choice made on audio the detector
has not met and the test does not hold.

- Speech: Tux Paint's spoken stamp descriptions (tuxpaint-stamps-default:
  a word to a sentence each, read by volunteers on their own microphones in
  a dozen languages, wideband, with their rooms under them), 15 per
  language drawn from those whose recording keeps vadbench's 100 ms before
  and after the speech, and the talkers of codec2's test recordings that
  keep it (codec2-examples: 8 kHz, as a phone line gives). Neither is in
  train.py's sources.
- Non-speech: all of Tux Paint's sound effects of 100 ms or more (its
  tools' sounds and the stamps' animals, instruments and household
  sounds), the ones with a voice in them left out by name, each at most
  its first 4 s.
- Labels, trim, levels, layout and noise as vadbench's README says: labels
  from each clean clip's energy (train.speech_labels, vadbench's rule), the
  clip trimmed to 100 ms around its speech and scaled to -26 dBFS over its
  speech, sounds at -30 dBFS RMS, 2 s of lead-in, gaps drawn from 0.8-3.0 s,
  then room tone (pink, -60 dBFS) or white or pink noise at 20/10/5/0 dB SNR.
  Seeds are fixed and differ from vadbench's, so the build is the same each time.

- Babble (babble_5dB, babble_0dB): six streams of other people talking,
  summed: each stream Tux Paint descriptions drawn from every language
  and joined without pauses, none of them a clip the speech above uses
  (the same volunteers' other recordings: other talkers for all but the
  few utterances of that volunteer's own language), at 5 and 0 dB below
  the speech, under the whole layout as the noise conditions are.
- Brown noise (brown_10dB, brown_0dB: white noise shaped to fall 6 dB an
  octave, mostly rumble under the speech's band), band-limited noise
  (band_5dB: white noise in the speech's own band, 300-3400 Hz, at 5 dB
  under it, as a fan or a line's hiss heard through a phone), a phone line's band
  (telephone: the clean condition with everything outside 300-3400 Hz
  taken out) and a room's reverberation (reverb: the clean layout through
  a synthetic room's impulse response, RT60 0.6 s, scaled back to the dry
  level; the labels stay the dry speech's, so the tail a word leaves in
  the room counts as non-speech, for every detector alike). The shipped
  weights' training has no brown noise, no reverberation and no wideband
  speech band-limited this way (its 8 kHz Asterisk prompts are the only
  narrowband speech); train.py's --more-conditions adds its own draws of
  all four, never these.
- Each sound has a class (its Tux Paint folder: animals, instruments,
  household, space, vehicles, food, new year, the tools' sounds), and the
  report gives, per class, the share of its frames each detector calls
  speech in the clear: which kinds of sound still open segments.

Scored as benchmarks/vad/score.py scores vadbench, with the same functions:
each build's decisions as the element makes them (`parley-bench vad-frames`),
Silero v5 at 0.5 on the same audio, frame F1 per condition, false alarms on
the sounds, and onset and end of speech through the contract's segmenter
with a 500 ms silence (Parley's decisions carry its lookahead).
"""
import argparse
import glob
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "train"))
import score  # noqa: E402
from train import (FRAME, RATE, band_limited, decode, reverberant, shape_noise, speech_labels,  # noqa: E402
                   trim_and_scale, write_wav)

STAMPS = "usr/share/tuxpaint/stamps"
CODEC2 = "usr/share/codec2/raw"
# Description languages with enough recordings (file name suffix; "" is English).
LANGUAGES = ["", "fr", "ru", "ro", "ca", "bg", "es", "be", "el", "da", "lt", "nl"]
PER_LANGUAGE = 15
# codec2's recordings of people talking (the rest are modem signals and tones).
CODEC2_TALKERS = ["hts1a", "hts2a", "kristoff", "mmt1", "morig", "forig", "big_dog", "cross", "vk5qi", "cq_ref"]
# Sound effects with a human voice in them, left out of the non-speech.
VOICED_SOUNDS = {"giggle", "areyousure", "youcannot", "tuxok", "happy", "sad", "mad", "excited",
                 "final-roll-call", "xing_school", "xing_ped", "ghost", "santahat",
                 "apollo_lander"}  # Armstrong on the Moon
SOUND_FOLDERS = ["animals", "hobbies/music", "household", "space", "seasonal/newyears", "vehicles", "food"]
SPEECH_DBFS, SOUND_DBFS = -26.0, -30.0
GAPS_S = [0.8, 1.0, 1.2, 1.5, 2.0, 2.5, 3.0]
CONDITIONS = (["clean"] + [f"{colour}_{snr}dB" for colour in ("white", "pink") for snr in (20, 10, 5, 0)]
              + [f"babble_{snr}dB" for snr in (5, 0)] + [f"brown_{snr}dB" for snr in (10, 0)] + ["band_5dB", "telephone", "reverb"])
# A phone line's band (telephone), and a room's reverberation time (reverb, RT60 in seconds).
TELEPHONE_HZ = (300, 3400)
REVERB_RT60_S = 0.6
BABBLE_TALKERS = 6
SILENCE_S = 0.5
MARGIN_FRAMES = 10


def speech_clips(root, rng):
    """(path, audio, labels) of the speech: per language, files in a drawn
    order until PER_LANGUAGE have vadbench's 100 ms margins, then codec2's
    talkers that have them."""
    chosen = []
    for language in LANGUAGES:
        suffix = f"_desc_{language}.ogg" if language else "_desc.ogg"
        found = sorted(glob.glob(os.path.join(root, STAMPS, "**", "*" + suffix), recursive=True))
        taken = 0
        for k in rng.permutation(len(found)):
            clip = with_margins(found[k])
            if clip is not None:
                chosen.append(clip)
                taken += 1
                if taken == PER_LANGUAGE:
                    break
    talkers = (with_margins(os.path.join(root, CODEC2, name + ".raw")) for name in CODEC2_TALKERS)
    return chosen + [clip for clip in talkers if clip is not None]


def with_margins(path):
    """The clip trimmed and scaled as vadbench's are, or None if its recording
    keeps less than 100 ms before or after the labelled speech (vadbench's
    clips all keep it; a recording cut at the talker's first sound would put
    its own noise floor and the speech in at one step, which no microphone
    does) or it is not 0.4-12 s long."""
    audio = read_clip(path)
    labels = speech_labels(audio)
    speech = np.flatnonzero(labels)
    if len(speech) == 0 or speech[0] < MARGIN_FRAMES or len(labels) - 1 - speech[-1] < MARGIN_FRAMES:
        return None
    clip, labels = trim_and_scale(audio, labels, SPEECH_DBFS)
    if not 0.4 <= len(clip) / RATE <= 12:
        return None
    return path, clip[:len(labels) * FRAME], labels


def sound_paths(root):
    found = sorted(glob.glob(os.path.join(root, "usr/share/tuxpaint/sounds", "*.wav")))
    for folder in SOUND_FOLDERS:
        for path in sorted(glob.glob(os.path.join(root, STAMPS, folder, "**", "*.ogg"), recursive=True)):
            name = os.path.basename(path)[:-4]
            # Not a description, nor a stamp's name said in a language ("7_en_GB", "4_ru").
            if "_desc" not in name and not re.search(r"_[a-z]{2}(_[A-Za-z]{2})?$", name):
                found.append(path)
    found = [p for p in found if os.path.basename(p).rsplit(".", 1)[0] not in VOICED_SOUNDS]
    return found


def read_clip(path):
    if not path.endswith(".raw"):
        return decode(path)
    # codec2's recordings are headerless 8 kHz S16LE, which sox must be told.
    command = ["sox", "-t", "raw", "-r", "8000", "-e", "signed", "-b", "16", "-c", "1", path,
               "-t", "raw", "-r", str(RATE), "-b", "32", "-e", "floating-point", "-"]
    return np.frombuffer(subprocess.run(command, check=True, capture_output=True).stdout, dtype="<f4").astype(np.float64)


def build(root, out):
    """Writes the conditions, labels_10ms.txt, regions_10ms.txt,
    classes_10ms.txt (each sound frame's class number in SOUND_CLASSES, -1
    elsewhere), utterances.tsv and items.txt (what was placed, in order) into `out`."""
    rng = np.random.RandomState(20261126)
    speech = speech_clips(root, rng)
    items = speech + [(path, audio, None) for path in sound_paths(root) if (audio := sound_clip(path)) is not None]
    placed = [items[index] for index in rng.permutation(len(items))]
    clean, labels, regions, utterances, classes = layout(placed, rng)
    os.makedirs(out, exist_ok=True)
    babble = babble_noise(root, {path for path, _, _ in speech}, len(clean), np.random.RandomState(20261128))
    write_conditions(clean, babble, out)
    np.savetxt(os.path.join(out, "labels_10ms.txt"), labels, fmt="%d")
    np.savetxt(os.path.join(out, "regions_10ms.txt"), regions, fmt="%d")
    np.savetxt(os.path.join(out, "classes_10ms.txt"), classes, fmt="%d")
    with open(os.path.join(out, "utterances.tsv"), "w") as f:
        f.writelines(f"{start:.2f}\t{end:.2f}\n" for start, end in utterances)
    with open(os.path.join(out, "items.txt"), "w") as f:
        f.writelines(os.path.relpath(path, root) + "\n" for path, _, _ in placed)


SOUND_CLASSES = ["tools", "animals", "instruments", "household", "space", "new year", "vehicles", "food"]


def sound_class(path):
    """The class of a placed sound: its Tux Paint folder (the tools' sounds are in sounds/)."""
    if "/tuxpaint/sounds/" in path:
        return "tools"
    folder = path.split(STAMPS + "/", 1)[1]
    for name, prefix in zip(SOUND_CLASSES[1:], ["animals", "hobbies/music", "household", "space", "seasonal/newyears", "vehicles", "food"]):
        if folder.startswith(prefix):
            return name
    raise ValueError(f"{path}: no class")


def babble_noise(root, taken, length, rng):
    """BABBLE_TALKERS streams of Tux Paint descriptions not in `taken`, each
    clip at the speech's level, joined without pauses until `length`
    samples, summed: a room of other people talking, at unit RMS."""
    pool = sorted(p for p in glob.glob(os.path.join(root, STAMPS, "**", "*_desc*.ogg"), recursive=True) if p not in taken)
    total = np.zeros(length)
    for _ in range(BABBLE_TALKERS):
        stream, filled = [], 0
        while filled < length:
            audio = read_clip(pool[rng.randint(len(pool))])
            speech = np.flatnonzero(speech_labels(audio))
            if len(speech) == 0:
                continue
            audio = audio[speech[0] * FRAME:(speech[-1] + 1) * FRAME]
            stream.append(audio / (np.sqrt(np.mean(audio ** 2)) + 1e-9))
            filled += len(audio)
        total += np.concatenate(stream)[:length]
    return total / np.std(total)


def sound_clip(path):
    """A sound as placed: its first 4 s at -30 dBFS RMS, faded in and out over
    10 ms as the speech clips are (the cut at 4 s must not click), or None if
    it is under 100 ms."""
    audio = read_clip(path)[: 4 * RATE]
    audio = audio[:len(audio) // FRAME * FRAME]
    if len(audio) < 10 * FRAME:
        return None
    audio *= 10 ** (SOUND_DBFS / 20) / (np.sqrt(np.mean(audio ** 2)) + 1e-9)
    fade = np.linspace(0, 1, FRAME)
    audio[:FRAME] *= fade
    audio[-FRAME:] *= fade[::-1]
    return audio


def layout(items, rng):
    """The items in the given order after 2 s of silence, each followed by a
    gap drawn from GAPS_S: the clean audio, its labels and regions per 10 ms
    frame (0 gap, 1 speech clip, 2 sound), each clip's labelled speech
    (start, end) in seconds, and each frame's sound class (its number in
    SOUND_CLASSES; -1 outside the sounds)."""
    pieces, labels, regions, utterances = [np.zeros(2 * RATE)], [np.zeros(200, np.int8)], [np.zeros(200, np.int8)], []
    frame = 200
    classes = [np.full(200, -1, np.int16)]
    for path, audio, label in items:
        n = len(audio) // FRAME
        gap = int(round(rng.choice(GAPS_S) * 100))
        pieces += [audio[:n * FRAME], np.zeros(gap * FRAME)]
        labels += [np.zeros(n, np.int8) if label is None else label.astype(np.int8), np.zeros(gap, np.int8)]
        regions += [np.full(n, 2 if label is None else 1, np.int8), np.zeros(gap, np.int8)]
        kind = SOUND_CLASSES.index(sound_class(path)) if label is None else -1
        classes += [np.full(n, kind, np.int16), np.full(gap, -1, np.int16)]
        if label is not None:
            speech = np.flatnonzero(label)
            utterances.append(((frame + speech[0]) / 100, (frame + speech[-1] + 1) / 100))
        frame += n + gap
    return (np.concatenate(pieces), np.concatenate(labels), np.concatenate(regions), utterances,
            np.concatenate(classes))


def write_conditions(clean, babble, out):
    """The clean layout under room tone (pink, -60 dBFS) and in white, pink,
    brown and band-limited noise and babble at each SNR against the speech's -26 dBFS, band-limited
    to a phone line's band, under noise in that band, and in a reverberant room, one WAV per condition."""
    room = shape_noise(np.random.RandomState(4101).standard_normal(len(clean)), 1.0) * 10 ** (-60.0 / 20)
    for name in CONDITIONS:
        if name == "clean":
            write_wav(os.path.join(out, name + ".wav"), clean + room)
            continue
        if name == "telephone":
            write_wav(os.path.join(out, name + ".wav"), band_limited(clean + room, *TELEPHONE_HZ))
            continue
        if name == "reverb":
            write_wav(os.path.join(out, name + ".wav"), reverberant(np.random.RandomState(6006), clean, REVERB_RT60_S) + room)
            continue
        if name.startswith("band_"):
            noise, level = band_limited(np.random.RandomState(7007).standard_normal(len(clean)), *TELEPHONE_HZ), SPEECH_DBFS - int(name.split("_")[1][:-2])
        elif name.startswith("babble"):
            noise, level = babble, SPEECH_DBFS - int(name.split("_")[1][:-2])
        else:
            colour, snr = name.split("_")[0], int(name.split("_")[1][:-2])
            seed = {"white": 3001, "pink": 4002, "brown": 5003}[colour] + snr
            noise = np.random.RandomState(seed).standard_normal(len(clean))
            noise = noise if colour == "white" else shape_noise(noise, 1.0 if colour == "pink" else 2.0)
            level = SPEECH_DBFS - snr
        write_wav(os.path.join(out, name + ".wav"), clean + noise / np.std(noise) * 10 ** (level / 20))


def error_frames(labels, hypothesis, regions):
    """Speech frames found and missed, and non-speech frames decided speech
    in the gaps (region 0), in a clip's margins and pauses (1) and in the sounds (2)."""
    speech, decided = labels.astype(bool), hypothesis.astype(bool)
    false = decided & ~speech
    return (int(np.sum(decided & speech)), int(np.sum(~decided & speech)),
            *(int(np.sum(false & (regions == region))) for region in (0, 1, 2)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--packages", required=True, help="where tuxpaint-stamps-default, tuxpaint-data and codec2-examples are unpacked")
    parser.add_argument("--out", required=True, help="where the set is written")
    parser.add_argument("builds", nargs="+", help="NAME=PATH of a parley-bench build")
    arguments = parser.parse_args()
    if not os.path.exists(os.path.join(arguments.out, "items.txt")):
        build(arguments.packages, arguments.out)
    elif any(not os.path.exists(os.path.join(arguments.out, c + ".wav")) for c in CONDITIONS):
        build(arguments.packages, arguments.out)  # a condition added since the set was built: the same seeds, the same set
    labels = score.read_column(os.path.join(arguments.out, "labels_10ms.txt"))
    regions = score.read_column(os.path.join(arguments.out, "regions_10ms.txt"))
    classes = score.read_column(os.path.join(arguments.out, "classes_10ms.txt"))
    utterances = score.read_utterances(os.path.join(arguments.out, "utterances.tsv"))
    with open(os.path.join(arguments.out, "items.txt")) as f:
        sounds = len(f.read().split()) - len(utterances)
    builds = dict(b.split("=", 1) for b in arguments.builds)
    jobs = [(name, condition) for name in [*builds, "Silero v5"] for condition in CONDITIONS]

    def run(job):
        name, condition = job
        wav = os.path.join(arguments.out, condition + ".wav")
        if name in builds:
            decisions, own, late = score.run_element(builds[name], wav)
            hypothesis = score.on_grid(decisions, FRAME, len(labels))
        else:
            decisions, chunk, _ = score.silero(score.read_wav(wav))
            hypothesis, late, own = score.on_grid(decisions, chunk, len(labels)), 0.0, None
        _, _, f1, alarms = score.scores(labels, hypothesis, regions)
        common = score.contract_segments(hypothesis, hangover_s=SILENCE_S, decided_after_s=late)
        onsets, ends = score.delays(common, utterances)
        # vadsegmenter's own segments for a build; Silero has none, so its splits and misses are the common segmenter's.
        own_ends = score.delays(own, utterances)[1] if own is not None else []
        cut = common if own is None else own
        split, lost = score.splits(cut, utterances), score.missed(cut, utterances)
        decided = hypothesis.astype(bool)
        per_class = [decided[classes == k].mean() if np.any(classes == k) else float("nan") for k in range(len(SOUND_CLASSES))]
        in_gaps = decided[regions == 0].mean()
        return job, (f1, alarms, onsets, ends, error_frames(labels, hypothesis, regions), own_ends, split, lost,
                     per_class, in_gaps)

    with ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        results = dict(pool.map(run, jobs))
    print("# Held-out set (benchmarks/vad/heldout)\n")
    print(f"{len(utterances)} utterances and {sounds} sounds, {len(labels) / 100:.1f} s per condition, none of them in vadbench or in the training (heldout.py says\n"
          "what and how). Frame F1 per condition with the false alarms on the sounds in brackets (where 0.5% or\n"
          f"more); onset and end of speech median / p95 in ms through the contract's segmenter, {int(SILENCE_S * 1000)} ms silence,\n"
          "then vadsegmenter's own segments' end of speech, the extra segments inside the utterances (split) and\n"
          f"the utterances no segment overlaps at all (missed), over the {len(CONDITIONS)} conditions (a build's own segments,\n"
          "Silero's through the common segmenter).\n"
          "The labels come from each clip's energy, by vadbench's rule, and were not checked by eye as vadbench's were.\n")
    print("| | " + " | ".join(CONDITIONS) + " | onset | end of speech | vadsegmenter's end of speech | split | missed |")
    print("|---" * (len(CONDITIONS) + 6) + "|")
    for name in [*builds, "Silero v5"]:
        cells, onsets, ends, own_ends, split, lost = [], [], [], [], 0, 0
        for condition in CONDITIONS:
            f1, alarms, onset, end, _, own_end, own_split, own_lost, _, _ = results[(name, condition)]
            cells.append(f"{f1:.3f}" + (f" ({alarms:.0%})" if alarms >= 0.005 else ""))
            onsets.extend(onset)
            ends.extend(end)
            own_ends.extend(own_end)
            split += own_split
            lost += own_lost
        own = f"{np.median(own_ends):.0f} / {np.percentile(own_ends, 95):.0f}" if own_ends else "-"
        print(f"| {name} | " + " | ".join(cells) + f" | {np.median(onsets):.0f} / {np.percentile(onsets, 95):.0f}"
              f" | {np.median(ends):.0f} / {np.percentile(ends, 95):.0f} | {own} | {split} | {lost} |")
    print("\nWhere the errors are, in 10 ms frames (clean condition): speech found and missed, and frames"
          "\ndecided speech in the gaps between items, in a clip's margins and pauses, and in the sounds:\n")
    print("| | speech found | speech missed | false in gaps | false in clips | false in sounds |")
    print("|---|---|---|---|---|---|")
    for name in [*builds, "Silero v5"]:
        print(f"| {name} | " + " | ".join(str(n) for n in results[(name, "clean")][4]) + " |")
    names = [*builds, "Silero v5"]
    print("\nSounds called speech, by class (clean condition): the share of each class's frames decided speech.\n")
    print("| class | sounds | seconds | " + " | ".join(names) + " |")
    print("|---|---:|---:|" + "---:|" * len(names))
    for k, kind in enumerate(SOUND_CLASSES):
        frames = classes == k
        count = int(np.sum(np.diff(frames.astype(np.int8)) == 1))
        if count == 0:
            continue  # a class whose sounds all have a voice in them (VOICED_SOUNDS) or are too short
        cells = [f"{results[(name, 'clean')][8][k]:.1%}" for name in names]
        print(f"| {kind} | {count} | {np.sum(frames) / 100:.0f} | " + " | ".join(cells) + " |")
    print("\nOther people talking (babble): the share of the frames between items (no one in front"
          "\nspeaking, the room still talking) each detector decides speech:\n")
    babble = [c for c in CONDITIONS if c.startswith("babble")]
    print("| | clean | " + " | ".join(babble) + " |")
    print("|---|" + "---:|" * (len(babble) + 1))
    for name in names:
        print(f"| {name} | " + " | ".join(f"{results[(name, c)][9]:.1%}" for c in ["clean", *babble]) + " |")
    print()
    for name in builds:
        margins = [1000 * (results[(name, c)][0] - results[("Silero v5", c)][0]) for c in CONDITIONS]
        print(f"- {name} over Silero, thousandths of F1: " + " ".join(f"{m:+.1f}" for m in margins)
              + f"; ahead or level in {sum(m >= 0 for m in margins)} of {len(margins)}.")


if __name__ == "__main__":
    main()
