"""Could a withdrawn speculation's text be kept, so that the final
transcribes only what came after it? (#64: the slowest segments are the
long ones, whose final transcribes them whole.) Run with the Whisper
worker's venv, which scripts/setup makes:

    ~/.local/share/parley/whisper-base/venv/bin/python benchmarks/stt/prefix.py \\
        --bench .build/release/parley-bench [--runs 3]

Each clip (the five LibriVox readings of pocketsphinx-testdata and
Asterisk's English prompts of three words or more, every fourth, as
window.py takes them) is cut where vadsegmenter's likely end comes inside
it: `parley-bench vad-frames --silence-ms 100` (the default likely-end-ms)
splits it into pieces, the cut 100 ms after each piece's speech ends (what
a speculation started there has heard). Pieces under `--min-piece` seconds
join the next. Then, as the worker transcribes (whisper_worker's window and
token budget, beam 5, English):

- whole: the clip in one transcription, as the final does today;
- pieces: each piece alone, with the text of the pieces before it as
  Whisper's prompt (`initial_prompt`), joined: what the final would say if
  each withdrawn speculation's text were kept and only the audio after the
  last one transcribed at the end.

It prints, over the clips that were cut (and how many were), WER for
both (normalised as window.py), the sentence ends each writes (., ?, !
and ...; an abbreviation's dot counts in both: a cut inside a sentence
may end it there, which WER does not see and a translator does), and the
median and slowest time of the whole clip against the last piece alone
(the final's own work when the pieces before were done during the
speech); each clip's cuts and texts go to stderr. Results:
benchmarks/stt/window.md, "Keeping a withdrawn speculation's text".
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import wave

import numpy as np
from faster_whisper import WhisperModel

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "plugins", "WhisperEngine"))
import whisper_worker  # noqa: E402  the worker's own window rule and token budget
from window import FULL, corpora, edit_distance, load, run, words  # noqa: E402

LIKELY_END_SECONDS = 0.1  # vadsegmenter's default likely-end-ms


def cuts(bench, samples, min_piece):
    """Where a likely end comes inside the clip, in seconds: 100 ms after
    each internal piece's speech end, pieces under `min_piece` joined on."""
    with tempfile.TemporaryDirectory() as folder:
        path, segments = os.path.join(folder, "clip.wav"), os.path.join(folder, "segments.tsv")
        with wave.open(path, "wb") as out:
            out.setnchannels(1)
            out.setsampwidth(2)
            out.setframerate(16000)
            out.writeframes((np.clip(samples, -1, 1) * 32767).astype("<i2").tobytes())
        subprocess.run([bench, "vad-frames", path, "--silence-ms", "100", "--segments", segments, "--runs", "1"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(segments) as rows:
            ends = [float(row.split("\t")[3]) for row in list(rows)[1:]]
    duration, found, start = len(samples) / 16000, [], 0.0
    for speech_end in ends[:-1]:  # the last segment's end is the clip's own
        cut = speech_end + LIKELY_END_SECONDS
        if cut - start >= min_piece and duration - cut >= min_piece:
            found.append(cut)
            start = cut
    return found


def sentence_ends(text):
    """Sentence-final marks in `text`: ., ?, ! and an ellipsis, each once."""
    return len(re.findall(r"[.?!]+(?=\s|$)", text.replace("...", ".")))


def timed(model, samples, runs, prompt=None):
    window = whisper_worker.window(FULL)  # the worker's window rule, with its token budget below
    run(model, samples, window, bounded=True, prompt=prompt)  # warm
    results = [run(model, samples, window, bounded=True, prompt=prompt) for _ in range(runs)]
    return results[0][0], statistics.median(elapsed for _, elapsed in results)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bench", required=True, help="parley-bench, for vadsegmenter's decisions")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--min-piece", type=float, default=1.0, help="seconds: shorter pieces join the next")
    parser.add_argument("--model", default=os.path.expanduser("~/.local/share/parley/whisper-base/model"))
    arguments = parser.parse_args()
    model = WhisperModel(arguments.model, device="cpu", compute_type="int8", cpu_threads=0, num_workers=1,
                         local_files_only=True)
    print("| corpus | clips cut (of all) | pieces | WER whole | WER pieces | sentence ends whole / pieces "
          "| whole: median, slowest | last piece: median, slowest |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for corpus, clips in corpora().items():
        errors = {"whole": 0, "pieces": 0}
        stops = {"whole": 0, "pieces": 0}
        total = pieces = cut_clips = 0
        whole_times, last_times = [], []
        for path, reference in clips:
            samples = load(path)
            found = cuts(arguments.bench, samples, arguments.min_piece)
            if not found:
                continue
            cut_clips += 1
            bounds = [0.0] + found + [len(samples) / 16000]
            whole, whole_time = timed(model, samples, arguments.runs)
            texts, last_time = [], 0.0
            for start, end in zip(bounds, bounds[1:]):
                piece = samples[int(start * 16000):int(end * 16000)]
                text, last_time = timed(model, piece, arguments.runs, prompt=" ".join(texts))
                texts.append(text)
            reference_words = words(reference)
            errors["whole"] += edit_distance(reference_words, words(whole))
            errors["pieces"] += edit_distance(reference_words, words(" ".join(texts)))
            stops["whole"] += sentence_ends(whole)
            stops["pieces"] += sentence_ends(" ".join(texts))
            total += len(reference_words)
            pieces += len(bounds) - 1
            whole_times.append(whole_time)
            last_times.append(last_time)
            print(f"  {os.path.basename(path)}: cuts {', '.join(f'{c:.2f}' for c in found)} s of {bounds[-1]:.2f}; "
                  f"whole {1000 * whole_time:.0f} ms, last piece {1000 * last_time:.0f} ms\n"
                  f"    whole:  {whole}\n    pieces: {' | '.join(texts)}", file=sys.stderr, flush=True)
        if not total:
            print(f"| {corpus} | 0 (of {len(clips)}) | | | | | | |")
            continue
        print(f"| {corpus} | {cut_clips} (of {len(clips)}) | {pieces} | {100 * errors['whole'] / total:.1f} % "
              f"| {100 * errors['pieces'] / total:.1f} % | {stops['whole']} / {stops['pieces']} | {1000 * statistics.median(whole_times):.0f}, {1000 * max(whole_times):.0f} ms "
              f"| {1000 * statistics.median(last_times):.0f}, {1000 * max(last_times):.0f} ms |", flush=True)


if __name__ == "__main__":
    main()
