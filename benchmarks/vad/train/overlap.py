"""Checks that no training recording is one of the held-out set's.

    benchmarks/vad/train/overlap.py [--work ~/.cache/parley-bench]

The held-out set (benchmarks/vad/heldout, items.txt) is what says the
detector holds on audio it was not trained on; `--more-speech` and
`--more-sounds` fetch other Debian packages, and a package may ship a
recording another one does too (GCompris ships two of Tux Paint's sounds).
Every audio file of both (the ones train.py leaves out too) is compared
with every held-out item: the normalised cross-correlation of their first
2 s at 2 kHz, at any offset, mean removed. A shared recording scores over
0.99 (a held-out item resampled, 3 dB down and 300 ms late: 0.996); two
recordings of one kind of sound or talker score up to about 0.75. Items
under 0.2 s or silent (Tux Paint ships a few silent stamps) are skipped:
there is nothing in them to share. Prints
the best score per package, every pair over --limit, and exits 1 if there
is one.

Needs the held-out set (benchmarks/vad/heldout) and the packages
(train.py --more-speech --more-sounds) made first; sox and numpy.
"""
import argparse
import glob
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from heldout import read_clip  # noqa: E402  (held-out items, codec2's headerless ones too)
from train import RATE, decode  # noqa: E402

SECONDS = 2
STEP = 8  # RATE / 8 = 2 kHz: enough of a recording to know it again, and 8x less to correlate
FFT_SIZE = 1 << 13  # >= 2 x SECONDS x RATE / STEP: the correlation at every offset, not wrapped.
EXTENSIONS = (".ogg", ".wav", ".gsm", ".flac", ".mp3")


def fingerprint(audio):
    """The first SECONDS of 16 kHz `audio` at 2 kHz (means of STEP samples, a
    crude low-pass before the decimation), mean removed, unit norm; None when
    shorter than 0.2 s or silent."""
    audio = audio[:RATE * SECONDS]
    audio = audio[:len(audio) // STEP * STEP].reshape(-1, STEP).mean(axis=1)
    if len(audio) < RATE // STEP // 5:
        return None
    audio = audio - audio.mean()
    norm = np.linalg.norm(audio)
    return audio / norm if norm > 0 else None


def training_fingerprint(path):
    """A training file's fingerprint, decoding only its first SECONDS; None
    (and a line saying so) when sox cannot read it."""
    try:
        return fingerprint(decode(path, effects=("trim", "0", str(SECONDS))))
    except subprocess.CalledProcessError:
        print(f"unreadable, not checked: {path}", flush=True)
        return None


def package_of(path, root):
    """The folder under usr/share a file came from (klettres, ktuberling, games, ...)."""
    parts = os.path.relpath(path, root).split(os.sep)
    return parts[2] if len(parts) > 3 and parts[:2] == ["usr", "share"] else parts[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--work", default=os.path.expanduser("~/.cache/parley-bench"))
    parser.add_argument("--limit", type=float, default=0.9, help="a pair over this is reported as shared")
    arguments = parser.parse_args()
    items = os.path.join(arguments.work, "heldout/set/items.txt")
    if not os.path.exists(items):
        sys.exit(f"{items}: no held-out set; run benchmarks/vad/heldout first")
    with open(items) as file:
        held = [os.path.join(arguments.work, "heldout/packages", line.split()[-1]) for line in file if line.strip()]
    roots = [os.path.join(arguments.work, name, "packages") for name in ("more-speech", "more-sounds")]
    training = [(root, path) for root in roots for path in sorted(glob.glob(os.path.join(root, "**", "*"), recursive=True))
                if path.lower().endswith(EXTENSIONS)]
    if not training:
        sys.exit(f"no packages under {' or '.join(roots)}: run train.py --more-speech --more-sounds first")
    with ThreadPoolExecutor(os.cpu_count()) as pool:
        starts = [fingerprint(audio) for audio in pool.map(read_clip, held)]
        kept = [index for index, start in enumerate(starts) if start is not None]
        spectra = np.conj(np.array([np.fft.rfft(starts[index], FFT_SIZE) for index in kept]))
        best, shared = {}, []
        for (root, path), start in zip(training, pool.map(training_fingerprint, [path for _, path in training])):
            if start is None:
                continue
            scores = np.abs(np.fft.irfft(np.fft.rfft(start, FFT_SIZE)[None, :] * spectra, FFT_SIZE, axis=1)).max(axis=1)
            nearest = int(scores.argmax())
            package = package_of(path, root)
            if scores[nearest] > best.get(package, (0.0,))[0]:
                best[package] = (scores[nearest], path, held[kept[nearest]])
            if scores[nearest] > arguments.limit:
                shared.append((scores[nearest], path, held[kept[nearest]]))
    print(f"{len(training)} training files against {len(kept)} held-out items")
    for package, (score, path, item) in sorted(best.items()):
        print(f"best {package}: {score:.2f}  {os.path.basename(path)} ~ {os.path.relpath(item, arguments.work)}")
    for score, path, item in sorted(shared, reverse=True):
        print(f"SHARED {score:.2f}  {path} ~ {item}")
    return 1 if shared else 0


if __name__ == "__main__":
    sys.exit(main())
