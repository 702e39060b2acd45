"""Scores VADs on vadbench conditions with the vadbench metric contract.

Parley's detector is read from the per-frame files `parley-bench vad-frames`
wrote; WebRTC VAD (webrtcvad-wheels) and Silero v5 (the ONNX model shipped in
the silero-vad wheel, run with onnxruntime) run here on the same audio.
The frame scores are our own implementation of the contract; on the first
condition they are checked against the contract's reference code.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time
import wave

import numpy as np

FRAME = 160  # 10 ms at 16 kHz


def read_wav(path):
    with wave.open(path, "rb") as w:
        assert w.getframerate() == 16000 and w.getnchannels() == 1 and w.getsampwidth() == 2, path
        return np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")


def read_column(path):
    with open(path) as f:
        return np.array([int(l) for l in f if l.strip() and not l.startswith("#")], dtype=np.int8)


def on_grid(decisions, frame_len, n):
    """Native-frame decisions -> 10 ms grid: each 10 ms frame takes the native frame holding its centre."""
    decisions = np.asarray(decisions, dtype=np.int8)
    index = (np.arange(n) * FRAME + FRAME // 2) // frame_len
    out = np.zeros(n, dtype=np.int8)
    inside = index < len(decisions)
    out[inside] = decisions[index[inside]]
    return out


def read_utterances(path):
    rows = [line.rstrip("\n").split("\t") for line in open(path)]
    return [(float(r[0]), float(r[1])) for r in rows if r and not r[0].startswith(("#", "start"))]


def contract_segments(decisions, frame_s=0.01, hangover_s=0.5, decided_after_s=0.0):
    """The contract's common segmenter (scripts/common.py) with our silence
    setting: opens on the first speech frame, closes after hangover_s of
    non-speech. (open decision time, first speech, close decision time); a
    frame's decision is made decided_after_s after its end (a lookahead)."""
    segments, active, silence = [], False, 0.0
    for index, speech in enumerate(decisions):
        end = (index + 1) * frame_s + decided_after_s
        if speech:
            if not active:
                active, current = True, [end, index * frame_s, None]
            silence = 0.0
        elif active:
            silence += frame_s
            if silence >= hangover_s - 1e-9:
                current[2] = end
                segments.append(tuple(current))
                active = False
    if active:
        current[2] = len(decisions) * frame_s + decided_after_s
        segments.append(tuple(current))
    return segments


def overlapping(segments, on, off):
    """The segments that share any time with the utterance from `on` to `off`."""
    return [s for s in segments if s[1] < off and s[2] > on]


def delays(segments, utterances):
    """Onset (open decision − speech start) and end of speech (close decision −
    speech end) per utterance, in ms; an utterance whose segment runs into the
    next one's start gives no end figure (merged), as in the contract."""
    onsets, ends = [], []
    for k, (on, off) in enumerate(utterances):
        following = utterances[k + 1][0] if k + 1 < len(utterances) else float("inf")
        opened = [s for s in segments if on - 0.2 <= s[1] <= off]
        if opened and not any(s[1] < on - 0.2 and s[2] > on for s in segments):
            onsets.append(opened[0][0] - on)
        heard = overlapping(segments, on, off)
        if heard:
            active = [s for s in heard if s[1] <= off < s[2]]
            chosen = (active or heard[-1:])[0]
            if chosen[2] <= following:
                ends.append(chosen[2] - off)
    return np.array(onsets) * 1000, np.array(ends) * 1000


def splits(segments, utterances):
    """Extra segments inside utterances: for each, how many segments beyond
    the first overlap it (a pause inside a sentence taken for its end, or
    speech doubted for a while). A detector that ends segments early pays
    here, which the frame F1 hardly sees: the next segment takes back the
    frames with its prefix padding."""
    return sum(max(0, len(overlapping(segments, on, off)) - 1) for on, off in utterances)


def missed(segments, utterances):
    """Utterances no segment overlaps at all: speech the user said and nothing
    heard. A rule that keeps doubtful sounds out pays here, which frame F1
    weighs by length only (a lost word is a few frames)."""
    return sum(1 for on, off in utterances if not overlapping(segments, on, off))


def audible_ends(samples, utterances, frame=160):
    """Where each utterance's sound really ends, in seconds: the end of the last
    10 ms frame, within 200 ms after its labelled end, more than 6 dB over the
    gap after it (the median level 150-400 ms after the label; gaps are 0.8 s
    or more). vadbench's labels end where the clip's energy falls under its
    rule (floor + 12 dB or peak - 35 dB), plus 20 ms; the clip keeps 80 ms more
    of sound, and word endings and breath in it are often well over the floor.
    Meaningful on the clean condition only: noise masks that tail."""
    x = samples.astype(np.float64) / 32768
    levels = 10 * np.log10(np.mean(x[: len(x) // frame * frame].reshape(-1, frame) ** 2, axis=1) + 1e-12)
    ends = []
    for _, off in utterances:
        first = int(round(off * 100))
        floor = np.median(levels[first + 15:first + 40])
        loud = [i for i in range(first, min(first + 20, len(levels))) if levels[i] > floor + 6]
        ends.append((loud[-1] + 1) / 100 if loud else off)
    return ends


def element_decisions(lines):
    """The element's decision per 10 ms frame (0 or 1) from `parley-bench
    vad-frames` rows, "probability decision": threshold 0.5 within the
    segments it opened (min-speech-ms)."""
    return np.array([int(line.split()[1]) for line in lines if line.strip()], dtype=np.int8)


def run_notes(text):
    """What `parley-bench vad-frames` notes on stderr, one "name value" a line:
    "seconds" (CPU time of a pass) and "lookahead-ms" (how late each decision is made)."""
    return dict(line.split(None, 1) for line in text.splitlines() if line.strip())


def run_element(bench, wav, options=()):
    """`parley-bench vad-frames` on one file (with `options`, e.g.
    ("--onset-threshold", "0.6")): the element's decisions per 10 ms frame,
    its own segments (element_segments) and how late each decision is made,
    in seconds. One detector pass: the speed figure (a median of passes) is
    `benchmarks/vad/run`'s, not its callers'."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "segments.tsv")
        run = subprocess.run([bench, "vad-frames", wav, "--segments", path, "--runs", "1", *options],
                             check=True, capture_output=True, text=True)
        segments = element_segments(path)
    lookahead_s = float(run_notes(run.stderr).get("lookahead-ms", 0)) / 1000
    return element_decisions(run.stdout.splitlines()), segments, lookahead_s


def element_segments(path):
    """parley-bench's segments file: vadsegmenter's own (opened-at, start,
    closed-at): start is the first speech frame (its prefix padding taken
    off); opened-at and closed-at are when the element decided, so they carry
    the detector's lookahead (the segment's audio ends at `end`, before it)."""
    rows = [line.split("\t") for line in open(path).read().splitlines()[1:] if line]
    return [(float(r[0]), float(r[1]) + PREFIX_PADDING_S, float(r[4])) for r in rows]


PREFIX_PADDING_S = 0.3


def scores(reference, hypothesis, regions):
    ref, hyp = reference.astype(bool), hypothesis.astype(bool)
    tp, fp, fn = np.sum(ref & hyp), np.sum(~ref & hyp), np.sum(ref & ~hyp)
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    false_alarms = hyp[regions == 2].mean() if np.any(regions == 2) else float("nan")
    return precision, recall, f1, false_alarms


def webrtc(samples, mode, frame_ms=30):
    import webrtcvad
    vad = webrtcvad.Vad(mode)
    n = 16 * frame_ms
    data = samples.tobytes()
    started = time.process_time()
    out = [int(vad.is_speech(data[i * 2:(i + n) * 2], 16000)) for i in range(0, len(samples) - n + 1, n)]
    return np.array(out), n, time.process_time() - started


def silero(samples, threshold=0.5):
    from silero import CHUNK, Silero
    model = Silero()
    started = time.process_time()
    probabilities = model.probabilities(samples.astype(np.float32) / 32768.0)
    return (probabilities >= threshold).astype(int), CHUNK, time.process_time() - started


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--vadbench", required=True)
    parser.add_argument("--audio", required=True)
    parser.add_argument("--output", required=True)
    parser.add_argument("--plot")
    parser.add_argument("--instructions", help="benchmarks/vad/instructions' output: callgrind's count per frame")
    parser.add_argument("--parley-only", action="store_true",
                        help="score Parley's detector alone (a quick look while training; results.md needs the anchors)")
    parser.add_argument("--bench", help="parley-bench, to cut each condition at other silence settings too (SILENCE_SETTINGS_MS)")
    parser.add_argument("--settings-output", default="benchmarks/vad/silence.md", help="with --bench: where that table goes")
    parser.add_argument("conditions", nargs="+")
    args = parser.parse_args()
    labels = read_column(os.path.join(args.vadbench, "testset", "labels_10ms.txt"))
    regions = read_column(os.path.join(args.vadbench, "testset", "regions_10ms.txt"))

    utterances = read_utterances(os.path.join(args.vadbench, "testset", "utterances.tsv"))
    rows, timing, audible, ideal = {}, {}, {}, []
    element = ([], [], [])
    for k, condition in enumerate(args.conditions):
        own = element_segments(os.path.join(args.audio, condition + ".segments"))
        onsets, ends_own = delays(own, utterances)
        element[0].extend(onsets)
        element[1].extend(ends_own)
        element[2].append(splits(own, utterances))
        samples = read_wav(os.path.join(args.audio, condition + ".wav"))
        seconds = len(samples) / 16000
        with open(os.path.join(args.audio, condition + ".parley")) as f:
            parley = element_decisions(f)
        with open(os.path.join(args.audio, condition + ".parley.time")) as f:
            notes = run_notes(f.read())
        parley_cpu, lookahead_s = float(notes["seconds"]), float(notes.get("lookahead-ms", 0)) / 1000
        candidates = {"Parley (vadsegmenter)": (parley, FRAME, parley_cpu)}
        # Utterances ending where their sound does (the clean condition only: noise masks the tail).
        heard = [(on, end) for (on, _), end in zip(utterances, audible_ends(samples, utterances))] if condition == "clean" else None
        if not args.parley_only:
            for mode in (0, 2, 3):
                candidates[f"WebRTC mode {mode}, 30 ms"] = webrtc(samples, mode)
            candidates["Silero v5 (onnx)"] = silero(samples)
        for name, (decisions, frame_len, cpu) in candidates.items():
            hypothesis = on_grid(decisions, frame_len, len(labels))
            p, r, f1, fa = scores(labels, hypothesis, regions)
            rows.setdefault(name, {})[condition] = (p, r, f1, fa, seconds / cpu)
            late = lookahead_s if name.startswith("Parley") else 0.0
            segments = contract_segments(hypothesis, decided_after_s=late)
            onsets, ends = delays(segments, utterances)
            timing.setdefault(name, ([], [], []))[0].extend(onsets)
            timing[name][1].extend(ends)
            timing[name][2].append(splits(segments, utterances))
            if heard:
                audible[name] = (ends, delays(segments, heard)[1])
            if k == 0 and name.startswith("Parley"):
                check_against_contract(args.vadbench, labels, hypothesis, (p, r, f1))
        if heard:
            audible["Parley, vadsegmenter's segments"] = (ends_own, delays(own, heard)[1])
            # What an exact detector would read from the labels: closing the silence setting after each sound's end.
            ideal = [(end + DEFAULT_SILENCE_MS / 1000 - off) * 1000 for (_, end), (_, off) in zip(heard, utterances)]

    settings = silence_settings(args.bench, args.audio, args.conditions, labels, utterances, element, lookahead_s) if args.bench else None
    counts = None
    if args.instructions:
        with open(args.instructions) as f:
            counts = dict(line.rsplit("\t", 1) for line in f.read().splitlines() if "\t" in line)
    write_table(rows, args.conditions, args.output, timing, element, lookahead_s, counts, audible, ideal,
                utterance_count=len(utterances) * len(args.conditions))
    if settings:
        write_settings(settings, args.conditions, len(utterances), lookahead_s, args.settings_output)
    if args.plot:
        write_plot(rows, args.conditions, args.plot)


SILENCE_SETTINGS_MS = (300, 350, 400, 450, 500, 700)
DEFAULT_SILENCE_MS = 500


def silence_settings(bench, audio, conditions, labels, utterances, default, lookahead_s):
    """vadsegmenter's own segments at each of SILENCE_SETTINGS_MS over the
    conditions (the default's from `default`, the run's element figures;
    `lookahead_s` the detector's):
    {ms: (end-of-speech delays, splits, the labels' splits)}. The labels'
    splits are those a detector exact to the labels would make deciding as
    vadsegmenter does (its lookahead counted towards the silence): the
    pauses inside utterances at least that long, the setting's own price."""
    out = {}
    for ms in SILENCE_SETTINGS_MS:
        if ms == DEFAULT_SILENCE_MS:
            ends, split = default[1], sum(default[2])
        else:
            ends, split = [], 0
            for condition in conditions:
                _, segments, _ = run_element(bench, os.path.join(audio, condition + ".wav"), ("--silence-ms", str(ms)))
                ends.extend(delays(segments, utterances)[1])
                split += splits(segments, utterances)
        exact = contract_segments(labels, hangover_s=ms / 1000 - lookahead_s)
        out[ms] = (ends, split, splits(exact, utterances) * len(conditions))
    return out


def write_settings(settings, conditions, utterance_count, lookahead_s, path):
    """The table of silence settings (silence_settings): its own file, as it
    holds no speed figure and so reads the same on every machine."""
    lines = [
        "# vadsegmenter's end of speech at other silence settings",
        "",
        "vadsegmenter's own segments on vadbench at other `silence-duration-ms` settings,",
        f"over {', '.join(conditions)} (`benchmarks/vad/run`):",
        "end of speech from the labelled end to the decision that the segment closed",
        f"(median / p95, ms), the extra segments inside the {utterance_count * len(conditions)} utterances (split), and",
        "the splits a detector exact to the labels would make deciding as vadsegmenter",
        f"does, its {lookahead_s * 1000:.0f} ms lookahead counted towards the silence: the pauses inside",
        "utterances at least that long, for comparison. Around 350 ms the detector",
        "splits fewer than its labels' pauses would (its hang-on after a word carries",
        "a sentence over a short pause); from 450 ms up the labels split none, and",
        "what it splits are pauses it heard longer than labelled or speech in noise it doubted. The",
        "same hang-on makes the p95's tail (in noise the detector doubts for",
        "100-300 ms after the last word; those frames, just over threshold, count towards",
        "the silence in part), so a shorter setting ends segments sooner",
        "at every percentile, at the cost of sentences cut.",
        "",
        "| silence-duration-ms | end of speech median | end of speech p95 | split | split by the labels' pauses |",
        "|---|---|---|---|---|",
    ]
    for ms, (ends, split, exact) in settings.items():
        lines.append(f"| {ms} | {np.median(ends):.0f} | {np.percentile(ends, 95):.0f} | {split} | {exact} |")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


def check_against_contract(vadbench, labels, hypothesis, ours):
    """Our scoring must agree with the contract's own code (scripts/common.py)."""
    sys.path.insert(0, os.path.join(vadbench, "scripts"))
    try:
        import common
    except ImportError as error:
        print(f"contract check skipped: {error}", file=sys.stderr)
        return
    theirs = common.prf(labels, hypothesis)
    assert np.allclose(ours, theirs), (ours, theirs)
    print(f"scoring matches scripts/common.py: P/R/F1 {np.round(theirs, 4)}", file=sys.stderr)


def write_table(rows, conditions, path, timing, element, lookahead_s, counts=None, audible=None, ideal=None,
                utterance_count=0):
    lines = [
        "# VAD benchmark",
        "",
        "Frame F1 on vadbench's 10 ms grid (distractor false alarms in brackets), and",
        "speed as seconds of audio per CPU second on one core (the median over the",
        "conditions; Parley's per condition is the median of 5 passes). Same audio,",
        "same scoring, one run (`benchmarks/vad/run`). Parley's detector is read at",
        "its defaults, as the element decides: a frame is speech at probability 0.5 or",
        "more inside a segment it opened (speech shorter than min-speech-ms 200 never",
        "opens one). Its classifier was trained (benchmarks/vad/train) on speech and",
        "sounds none of which are in vadbench. `x Silero` is that speed over Silero's,",
        "both measured in this run on this host: the figure to compare across hosts",
        "(the instruction counts below are the one that does not move with load).",
        "",
        "| VAD | " + " | ".join(conditions) + " | x real time | x Silero |",
        "|---|" + "---|" * (len(conditions) + 2),
    ]
    speeds = {name: np.median([by_condition[c][4] for c in conditions]) for name, by_condition in rows.items()}
    silero = next((speed for name, speed in speeds.items() if name.startswith("Silero")), None)
    for name, by_condition in rows.items():
        cells = [f"{by_condition[c][2]:.3f} ({by_condition[c][3] * 100:.0f}%)" for c in conditions]
        ratio = f"{speeds[name] / silero:.1f}" if silero else "-"
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {speeds[name]:.0f} | {ratio} |")
    lines += [
        "",
        "Onset and end-of-speech delays over the 32 utterances of every condition, in",
        "ms of audio (median / p95), with a 500 ms silence setting: from the labelled",
        "start to the decision that a segment opened, and from the labelled end to the",
        "decision that it closed (so 500 is an exact detection). Every VAD's decisions",
        "go through the contract's common segmenter (opens on the first speech frame);",
        "the last row is vadsegmenter's own segments, which open only after",
        f"min-speech-ms (200) of speech. Parley decides each frame once the {lookahead_s * 1000:.0f} ms",
        "after it have arrived (its detector's lookahead): its times count that wait.",
        "vadsegmenter counts those ms, heard but not yet judged, towards its silence",
        "setting (the common segmenter does not): its segments close when 500 ms of",
        "audio have arrived after the last speech frame, the last of it still unjudged.",
        f"Split: the extra segments inside the {utterance_count} utterances (a pause or doubted",
        "speech inside one taken for its end; `splits` in score.py). Ending sooner by",
        "ending more readily shows there.",
        "",
        "| VAD | onset median | onset p95 | end of speech median | end of speech p95 | split |",
        "|---|---|---|---|---|---|",
    ]
    for name, (onsets, ends, split) in list(timing.items()) + [("Parley, vadsegmenter's segments", element)]:
        lines.append(f"| {name} | {np.median(onsets):.0f} | {np.percentile(onsets, 95):.0f} | "
                     f"{np.median(ends):.0f} | {np.percentile(ends, 95):.0f} | {sum(split)} |")
    if audible:
        lines += [
            "",
            "End of speech in the clean condition from where each clip's sound ends, not",
            "from its label (`audible_ends` in score.py): vadbench's labels stop where the",
            "energy falls under its rule, and the 80 ms of clip after that are often word",
            "endings and breath 10-20 dB over the floor, which a detector hears as speech.",
            f"A detector that closed exactly {DEFAULT_SILENCE_MS} ms after each sound's end would read",
            f"{np.median(ideal):.0f} ms at the median and {np.percentile(ideal, 95):.0f} at p95 from the labels.",
            "",
            "| VAD | end of speech median, from the label | p95 | from the sound's end, median | p95 |",
            "|---|---|---|---|---|",
        ]
        for name, (labelled, heard) in audible.items():
            lines.append(f"| {name} | {np.median(labelled):.0f} | {np.percentile(labelled, 95):.0f} | "
                         f"{np.median(heard):.0f} | {np.percentile(heard, 95):.0f} |")
    if counts:
        lines += [
            "",
            "Parley's detector costs " + f"{int(counts['instructions per 10 ms frame']):,}" + " instructions per 10 ms frame",
            f"(front end {int(counts['front end']):,}, network and smoothing {int(counts['network and smoothing']):,}),",
            "counted by callgrind over 60 s of the clean condition (`benchmarks/vad/instructions`):",
            "the figure that does not move with the machine's load.",
        ]
        if "silero" in counts:
            lines += [f"Silero, as run here (onnxruntime called per 32 ms from a Python loop, the loop included), "
                      f"costs {int(counts['silero']):,} per 10 ms of audio: "
                      f"{int(counts['silero']) / int(counts['instructions per 10 ms frame']):.1f}× Parley's."]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


def write_plot(rows, conditions, path):
    """A small grouped bar chart of F1 per condition, as SVG (no plotting library needed)."""
    width, height, margin = 640, 320, 40
    names = list(rows)
    group = (width - 2 * margin) / len(conditions)
    bar = group / (len(names) + 1)
    colours = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd"]
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height + 60}" font-family="sans-serif" font-size="11">']
    for gi, condition in enumerate(conditions):
        for ni, name in enumerate(names):
            f1 = rows[name][condition][2]
            h = f1 * (height - margin)
            x = margin + gi * group + ni * bar
            parts.append(f'<rect x="{x:.1f}" y="{height - h:.1f}" width="{bar - 2:.1f}" height="{h:.1f}" fill="{colours[ni % len(colours)]}"/>')
        parts.append(f'<text x="{margin + gi * group + group / 2 - 20:.1f}" y="{height + 14}">{condition}</text>')
    for ni, name in enumerate(names):
        parts.append(f'<rect x="{margin}" y="{height + 24 + ni * 0}" width="0" height="0"/>')
        parts.append(f'<text x="{margin + ni * 130}" y="{height + 40}" fill="{colours[ni % len(colours)]}">{name}</text>')
    parts.append(f'<text x="4" y="{margin - 10}">F1</text></svg>')
    with open(path, "w") as f:
        f.write("\n".join(parts))


if __name__ == "__main__":
    main()
