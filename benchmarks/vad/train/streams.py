"""Scores a parley-bench build on the training streams, not on vadbench.

    python benchmarks/vad/train/streams.py --work ~/.cache/parley-bench/train [--bench PATH] [--onset-threshold P ...]

A constant chosen after training (a smoothing, a gate, a threshold) must be
chosen on audio the test does not hold: vadbench stays the test. This runs
the element's own decisions (`parley-bench vad-frames`, threshold 0.5 inside
the segments it opened) over train.py's long streams, with the labels
cached beside them, and prints frame F1 per condition, the false alarms on
the streams' non-speech sounds (share of their frames decided speech, as
vadbench counts its distractors) and the end of speech (segment end -
labelled end, ms, median / p95) over every utterance whose segment does not
run into the next, the extra segments inside utterances (score.splits:
a segment ended too soon, which F1 hardly sees) and the utterances with no
segment at all (score.missed). Labelled runs under 700 ms apart count as
one utterance, as a pause inside a sentence does in vadbench's clips.
`--onset-threshold` scores the segmenter with other onset thresholds
(vadsegmenter's `onset-threshold`), a report each.

The streams are those of the cache train.py last wrote into --work, so a
build is scored on the frames it was trained on. That is sound for a
constant chosen after training; between two trainings it favours the one
that fits its data more closely. Seeds and recipes are better compared on
the held-out set (benchmarks/vad/heldout), which is neither this nor
vadbench; train.py's earlier seed choices were made here, before it existed,
and say so.
"""
import argparse
import glob
import os
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
import score  # noqa: E402  (benchmarks/vad/score.py: the same delays as the benchmark's)
from train import CONDITION_NAMES, ROOT, fill_runs  # noqa: E402

UTTERANCE_GAP_FRAMES = 70
# The conditions down to 0 dB (-3 dB is the streams' alone): vadbench's range.
VADBENCH_RANGE = [index for index, name in enumerate(CONDITION_NAMES) if not name.endswith("-3")]


def utterances(labels):
    """(start, end) in seconds of each labelled run, runs closer than the gap joined."""
    joined = fill_runs(labels, value=False, shorter_than=UTTERANCE_GAP_FRAMES, replace_with=True, inner_only=True)
    edges = np.flatnonzero(np.diff(np.concatenate([[0], joined.astype(np.int8), [0]])))
    return [(start / 100, end / 100) for start, end in zip(edges[::2], edges[1::2])]


def score_stream(bench, wav, labels, sounds, options=()):
    decided, segments, _ = score.run_element(bench, wav, options)
    decided = decided.astype(bool)
    n = min(len(decided), len(labels))
    decided, labels, sounds = decided[:n], labels[:n], sounds[:n]
    counts = np.array([np.sum(decided & labels), np.sum(decided & ~labels), np.sum(~decided & labels),
                       np.sum(decided & sounds), np.sum(sounds)])
    spoken = utterances(labels)
    return counts, score.delays(segments, spoken)[1], score.splits(segments, spoken), score.missed(segments, spoken), len(spoken)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--work", default=os.path.expanduser("~/.cache/parley-bench/train"))
    parser.add_argument("--bench", default=os.path.join(ROOT, ".build/release/parley-bench"))
    parser.add_argument("--onset-threshold", type=float, nargs="+",
                        help="score the segmenter with each of these onset thresholds, a line each, not the element's default")
    arguments = parser.parse_args()
    caches = sorted(glob.glob(os.path.join(arguments.work, "frames-*.npz")), key=os.path.getmtime)
    if not caches:
        sys.exit(f"no frames-*.npz in {arguments.work}: run train.py with --work {arguments.work} first")
    stored = np.load(caches[-1])
    labels, sounds, lengths = stored["y"] > 0.5, stored["distractors"].astype(bool), stored["lengths"]
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    streams = len(glob.glob(os.path.join(arguments.work, f"stream*_{CONDITION_NAMES[0]}.wav")))
    jobs = [(condition, stream) for condition in range(len(CONDITION_NAMES)) for stream in range(streams)]

    def run(job, options):
        condition, stream = job
        index = stream * len(CONDITION_NAMES) + condition
        wav = os.path.join(arguments.work, f"stream{stream}_{CONDITION_NAMES[condition]}.wav")
        frames = slice(offsets[index], offsets[index + 1])
        return condition, *score_stream(arguments.bench, wav, labels[frames], sounds[frames], options)

    for onset in arguments.onset_threshold or [None]:
        options = () if onset is None else ("--onset-threshold", str(onset))
        with ThreadPoolExecutor(os.cpu_count() or 1) as pool:
            results = list(pool.map(lambda job: run(job, options), jobs))
        if onset is not None:
            print(f"onset threshold {onset:g}:")
        report(results)


def report(results):
    """Prints F1 per condition, then the totals over every stream."""
    totals, ends, split, lost, spoken = np.zeros((len(CONDITION_NAMES), 5)), [], 0, 0, 0
    for condition, counts, stream_ends, stream_split, stream_lost, stream_spoken in results:
        totals[condition] += counts
        ends.extend(stream_ends)
        split += stream_split
        lost += stream_lost
        spoken += stream_spoken
    f1 = 2 * totals[:, 0] / np.maximum(1, 2 * totals[:, 0] + totals[:, 1] + totals[:, 2])
    alarms = totals[:, 3] / np.maximum(1, totals[:, 4])
    print(" ".join(f"{name} {value:.4f} ({alarm:.1%})" for name, value, alarm in zip(CONDITION_NAMES, f1, alarms)))
    print(f"mean F1 {f1.mean():.4f} ({f1[VADBENCH_RANGE].mean():.4f} down to 0 dB, the conditions vadbench holds); false alarms {totals[:, 3].sum() / max(1, totals[:, 4].sum()):.2%} of the sounds' frames; "
          f"end of speech {np.median(ends):.0f} / {np.percentile(ends, 95):.0f} ms over {len(ends)} utterances; "
          f"{split} extra segments inside the {spoken} utterances; {lost} utterances with no segment at all")


if __name__ == "__main__":
    main()
