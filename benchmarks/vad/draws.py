"""Parley's detector against Silero on vadbench's speech under other draws of its noise.

    ~/.cache/parley-bench/venv/bin/python benchmarks/vad/draws.py --vadbench ~/.cache/vadbench \\
        [--bench .build/release/parley-bench[,OTHER]] [--draws 4] [white_10dB ...]

vadbench mixes each noisy condition with one draw of white or pink noise,
and a detector's F1 moves with the draw: on this script's five draws of
pink 0 dB, Silero scored 0.9308-0.9343 and the detector shipped then
0.9292-0.9359. A margin of 0.001-0.002 in one condition can be the draw,
not the detector.

This mixes vadbench's clean condition again with `--draws` other draws
(vadbench's recipe: Gaussian noise, pink shaped by the same 1/f filter, at
the -26 dBFS active speech level less the SNR, scaled down if it would
clip; the clean condition's own -60 dBFS floor stays under it), and scores
each build's decisions (`parley-bench vad-frames`: as the element decides)
and Silero's (probability 0.5, as `score.py` runs it) with the contract's
frame F1.

It prints, per condition, Silero's F1 and distractor false alarms on every
draw (draw 0 is vadbench's own file), and each build's margin over Silero
in thousandths of F1 on every draw (its false alarms beside, where any)
and their mean. Judge a change on the mean; never choose constants from
it: these are still vadbench's recordings.
"""
import argparse
import os
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "train")]
import score  # noqa: E402
from train import RATE, write_wav  # noqa: E402

ACTIVE_DBFS = -26.0
NOISY = [f"{colour}_{snr}dB" for colour in ("white", "pink") for snr in (20, 10, 5, 0)]


def noise(colour, count, generator):
    """vadbench's noises at unit power: white, or pink (1/f power, 20 Hz corner)."""
    if colour == "white":
        samples = generator.standard_normal(count)
    else:
        spectrum = np.fft.rfft(generator.standard_normal(count))
        frequencies = np.fft.rfftfreq(count, 1.0 / RATE)
        frequencies[0] = frequencies[1]
        spectrum /= np.sqrt(np.maximum(frequencies, 20.0))
        samples = np.fft.irfft(spectrum, count)
    return samples / np.sqrt(np.mean(samples ** 2))


def mix(clean, condition, draw):
    """The clean condition (16-bit samples) under draw `draw` of `condition`'s noise, in [-1, 1]."""
    colour, snr = condition.split("_")[0], int(condition.split("_")[1][:-2])
    # Seeded by draw and condition, never by vadbench's own seeds (1001 + SNR, 2002 + SNR).
    generator = np.random.RandomState([draw, snr + 100, 1 if colour == "white" else 2])
    mixed = clean / 32768.0 + noise(colour, len(clean), generator) * 10 ** ((ACTIVE_DBFS - snr) / 20)
    peak = np.max(np.abs(mixed))
    return mixed * 0.98 / peak if peak >= 0.98 else mixed


def parley_scores(bench, path, labels, regions):
    """F1 and distractor false alarms of a build's decisions."""
    decisions, _, _ = score.run_element(bench, path)
    _, _, f1, false_alarms = score.scores(labels, score.on_grid(decisions, score.FRAME, len(labels)), regions)
    return f1, false_alarms


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--vadbench", required=True, help="vadbench's folder, its nine conditions built as WAV")
    parser.add_argument("--bench", default=os.path.join(HERE, "..", "..", ".build/release/parley-bench"),
                        help="parley-bench builds to compare, comma-separated")
    parser.add_argument("--draws", type=int, default=4, help="draws besides vadbench's own")
    parser.add_argument("conditions", nargs="*", default=NOISY)
    arguments = parser.parse_args()
    for condition in arguments.conditions:
        if condition not in NOISY:
            parser.error(f"unknown condition {condition!r}: one of {', '.join(NOISY)}")
    builds = arguments.bench.split(",")
    testset = os.path.join(arguments.vadbench, "testset")
    labels = score.read_column(os.path.join(testset, "labels_10ms.txt"))
    regions = score.read_column(os.path.join(testset, "regions_10ms.txt"))
    clean = score.read_wav(os.path.join(testset, "clean.wav")).astype(np.float64)
    print(f"margin over Silero (F1 x 1000) on draws 0 (vadbench's) to {arguments.draws}, then their mean")
    print("| condition | Silero F1 (false alarms) | " + " | ".join(builds) + " |")
    print("|---|---|" + "---|" * len(builds))
    with tempfile.TemporaryDirectory() as folder:
        for condition in arguments.conditions:
            silero_scores, margins, alarms = [], [[] for _ in builds], [[] for _ in builds]
            for draw in range(arguments.draws + 1):
                path = os.path.join(testset, f"{condition}.wav")
                if draw > 0:
                    path = os.path.join(folder, f"{condition}-{draw}.wav")
                    write_wav(path, mix(clean, condition, draw))
                decisions, frame_length, _ = score.silero(score.read_wav(path))
                _, _, silero_f1, false_alarms = score.scores(labels, score.on_grid(decisions, frame_length, len(labels)), regions)
                silero_scores.append((silero_f1, false_alarms))
                for index, build in enumerate(builds):
                    f1, build_alarms = parley_scores(build, path, labels, regions)
                    margins[index].append(1000 * (f1 - silero_f1))
                    alarms[index].append(build_alarms)
            silero_cell = " ".join(f"{f1:.4f} ({share:.0%})" for f1, share in silero_scores)
            # A build's false alarms only where it has some.
            cells = [" ".join(f"{m:+.1f}" + (f" ({a:.0%})" if a >= 0.005 else "") for m, a in zip(row, shares))
                     + f", mean {np.mean(row):+.1f}" for row, shares in zip(margins, alarms)]
            print(f"| {condition} | {silero_cell} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    sys.exit(main())
