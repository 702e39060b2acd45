"""How much audio Whisper-base should encode for a segment: its own length
(plus a margin) instead of the 30 s window faster-whisper pads every
segment to. Run with the Whisper worker's venv, which scripts/setup makes:

    ~/.local/share/parley/whisper-base/venv/bin/python benchmarks/stt/window.py [--runs 3]

Clips: the five LibriVox readings of pocketsphinx-testdata and Asterisk's
English prompts of three words or more (every fourth of them), with the transcripts both packages
ship. For each way of cutting the window it prints WER over each corpus
(normalised: lower case, no punctuation), the median time per clip, the
slowest clip (a decoding that loops shows there), and the real-time factor.
Results: benchmarks/stt/window.md.
"""
import argparse
import glob
import gzip
import os
import re
import statistics
import sys
import time
import wave

import numpy as np
import faster_whisper.transcribe as transcribe_module
from faster_whisper import WhisperModel

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "plugins", "WhisperEngine"))
import whisper_worker  # noqa: E402  the worker's own window rule

FULL = transcribe_module.pad_or_trim
BEAM = 5  # the worker's default (--beam-size); --beam sets it
TEMPERATURES = None  # faster-whisper's fallback (0, 0.2, ..., 1); --temperatures sets it


def load(path):
    with wave.open(path) as clip:
        rate = clip.getframerate()
        data = np.frombuffer(clip.readframes(clip.getnframes()), dtype="<i2").astype(np.float32) / 32768
    if rate != 16000:
        count = int(len(data) * 16000 / rate)
        data = np.interp(np.linspace(0, len(data) - 1, count), np.arange(len(data)), data).astype(np.float32)
    return data


def words(text):
    return re.sub(r"[^a-z0-9' ]+", " ", text.lower().replace("-", " ")).split()


def edit_distance(reference, hypothesis):
    row = list(range(len(hypothesis) + 1))
    for i, ref in enumerate(reference, 1):
        previous, row[0] = row[0], i
        for j, hyp in enumerate(hypothesis, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (ref != hyp))
    return row[-1]


def corpora():
    librivox = "/usr/share/pocketsphinx/test/data/librivox"
    references = {}
    with open(os.path.join(librivox, "transcription")) as lines:
        for line in lines:
            match = re.match(r"(.*)\((.*)\)\s*$", line.strip())
            if match:
                references[match.group(2).strip()] = match.group(1).strip()
    read = [(path, references[os.path.basename(path)[:-4]]) for path in sorted(glob.glob(librivox + "/*.wav"))
            if os.path.basename(path)[:-4] in references]
    prompts = []
    with gzip.open("/usr/share/doc/asterisk-core-sounds-en/core-sounds-en.txt.gz", "rt", errors="replace") as lines:
        for line in lines:
            name, _, text = line.partition(":")
            path = f"/usr/share/asterisk/sounds/en/{name.strip()}.wav"
            if text and len(words(text)) >= 3 and os.path.exists(path):
                prompts.append((path, text.strip()))
    # Every fourth prompt (71 of 283), so a run takes minutes, not an hour.
    return {"LibriVox": read, "Asterisk en": prompts[::4]}


def run(model, audio, window, bounded=False, timestamps=True, prompt=None):
    """`audio` transcribed as the worker would with `window` (None: 30 s),
    bounded by its token budget, with `prompt` as Whisper's initial prompt:
    (text, seconds)."""
    transcribe_module.pad_or_trim = FULL if window is None else window
    started = time.monotonic()
    duration = len(audio) / 16000
    # bounded: the worker's token budget (whisper_worker.token_budget) as well.
    options = {"max_new_tokens": whisper_worker.token_budget(duration)} if bounded else {}
    if TEMPERATURES is not None:
        options["temperature"] = TEMPERATURES
    segments, _ = model.transcribe(audio, beam_size=BEAM, language="en", vad_filter=False,
                                   without_timestamps=not timestamps, initial_prompt=prompt or None, **options)
    # As the worker reads them: nothing timed after the audio (whisper_worker.TAIL_SECONDS).
    text = " ".join(segment.text.strip() for segment in segments
                    if window is None or segment.start < duration - whisper_worker.TAIL_SECONDS)
    return text, time.monotonic() - started


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--windows", default="", help="comma-separated names' first words to run (default: all), e.g. 30,Parley")
    parser.add_argument("--beam", type=int, default=5, help="beam size (the worker's default is 5)")
    parser.add_argument("--temperatures", default="",
                        help="comma-separated decoding temperatures, the first tried first (default: faster-whisper's fallback 0,0.2,...,1); 0 = no fallback")
    parser.add_argument("--model", default=os.path.expanduser("~/.local/share/parley/whisper-base/model"))
    arguments = parser.parse_args()
    global BEAM, TEMPERATURES
    BEAM = arguments.beam
    if arguments.temperatures:
        TEMPERATURES = [float(t) for t in arguments.temperatures.split(",")]
    model = WhisperModel(arguments.model, device="cpu", compute_type="int8", cpu_threads=0, num_workers=1,
                         local_files_only=True)
    def margin(frames):
        return lambda a, length=3000, axis=-1: FULL(a, min(length, a.shape[axis] + frames), axis=axis)

    def at_least(frames):
        return lambda a, length=3000, axis=-1: FULL(a, min(length, max(frames, a.shape[axis] + 100)), axis=axis)

    windows = {
        "30 s (faster-whisper's padding)": None,
        "segment + 1 s": margin(100),
        "segment + 3 s": margin(300),
        "segment + 5 s": margin(500),
        "segment + 8 s": margin(800),
        "segment + 10 s": margin(1000),
        "at least 10 s": at_least(1000),
        "Parley's rule (whisper_worker.window)": whisper_worker.window(FULL),
        "Parley's rule, tokens bounded (whisper_worker.token_budget)": (whisper_worker.window(FULL), True),
        # Without timestamps the decoder writes the text alone: no segment
        # cut at the window's end to be decoded again in a next window.
        "no timestamps, segment + 1 s": (margin(100), True, False),
        "no timestamps, segment + 2 s": (margin(200), True, False),
        "no timestamps, segment + 3 s": (margin(300), True, False),
        "no timestamps, segment + 8 s": (margin(800), True, False),
        "no timestamps, 30 s": (None, True, False),
    }
    wanted = [w.strip() for w in arguments.windows.split(",") if w.strip()]
    if wanted:
        windows = {name: window for name, window in windows.items() if any(name.startswith(w) for w in wanted)}
    for corpus, clips in corpora().items():
        audio = [(load(path), reference) for path, reference in clips]
        seconds = sum(len(samples) for samples, _ in audio) / 16000
        for name, window in windows.items():
            errors = total = 0
            times = []
            window, bounded, timestamps = (window + (True,))[:3] if isinstance(window, tuple) else (window, False, True)
            for samples, reference in audio:
                run(model, samples, window, bounded, timestamps)  # warm
                clip_times = []
                for _ in range(arguments.runs):
                    text, elapsed = run(model, samples, window, bounded, timestamps)
                    clip_times.append(elapsed)
                errors += edit_distance(words(reference), words(text))
                total += len(words(reference))
                times.append(statistics.median(clip_times))
            print(f"| {corpus} | {name} | {len(audio)} clips, {seconds:.0f} s | {100 * errors / total:.1f} % "
                  f"| {1000 * statistics.median(times):.0f} ms | {1000 * max(times):.0f} ms "
                  f"| {sum(times) / seconds:.3f} |", flush=True)


if __name__ == "__main__":
    main()
