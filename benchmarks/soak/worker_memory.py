"""The Whisper worker's memory, request by request, without the pipeline.

The hour's soak saw the worker grow in steps (333 -> 382 MB). This feeds the
installed worker (scripts/prepare-whisper) the soak corpus's utterances
directly, in the same shuffled order every round, and reads its VmRSS after
every answer. A leak grows with every round; an allocator keeping its
high-water mark grows while new shapes arrive and is flat once each has been
seen. One row per round: RSS at its end, and the largest input so far.

  python3 benchmarks/soak/worker_memory.py --rounds 6 [--env MALLOC_ARENA_MAX=2]
"""
import argparse
import json
import os
import random
import subprocess
import sys
import wave
from pathlib import Path


def utterances(corpus):
    """Each labelled utterance of the conversation corpus, 0.3 s either side, as S16LE bytes."""
    found = []
    for line in (corpus / "manifest.jsonl").read_text().splitlines():
        entry = json.loads(line)
        with wave.open(str(corpus / entry["audio"]), "rb") as source:
            frames = source.readframes(source.getnframes())
        for start, end in entry["speech"]:
            first = max(0, int((start - 0.3) * 16000)) * 2
            last = min(len(frames), int((end + 0.3) * 16000) * 2)
            found.append(frames[first:last])
    return found


def rss_mb(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="out/soak/corpus", help="a `parley bench corpus conversation` folder")
    parser.add_argument("--engine", default=os.path.expanduser("~/.local/share/parley/whisper-base"))
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--env", action="append", default=[], help="NAME=VALUE for the worker")
    parser.add_argument("--vary", action="store_true",
                        help="cut each utterance to a random length (30-100%%), as speculative requests at early pauses are")
    parser.add_argument("--worker", help="another whisper_worker.py to run (default: the engine's)")
    arguments = parser.parse_args()

    clips = utterances(Path(arguments.corpus))
    order = list(range(len(clips)))
    random.Random(7).shuffle(order)
    engine = Path(arguments.engine)
    environment = dict(os.environ, HF_HUB_OFFLINE="1")
    environment.update(item.split("=", 1) for item in arguments.env)
    worker = subprocess.Popen([str(engine / "venv/bin/python"), arguments.worker or str(engine / "whisper_worker.py"),
                               "--model", str(engine / "model"), "--threads", str(arguments.threads)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              env=environment)
    json.loads(worker.stdout.readline())
    print(f"{len(clips)} utterances per round{', random lengths' if arguments.vary else ''}; "
          f"worker env {arguments.env or 'default'}; RSS after loading "
          f"{rss_mb(worker.pid):.1f} MB")
    print("| round | RSS at its end (MB) | peak so far (MB) | largest input so far (s) |")
    print("|---:|---:|---:|---:|")
    request, peak, largest = 0, 0.0, 0.0
    lengths = random.Random(11)
    processing = []
    for round_number in range(1, arguments.rounds + 1):
        for index in order:
            audio = clips[index]
            if arguments.vary:
                audio = audio[:2 * int(len(audio) // 2 * lengths.uniform(0.3, 1.0))]
            request += 1
            header = {"id": request, "samples": len(audio) // 2, "language": "en", "prompt": "",
                      "temperature": 0, "task": "transcribe", "words": False}
            worker.stdin.write((json.dumps(header) + "\n").encode() + audio)
            worker.stdin.flush()
            answer = json.loads(worker.stdout.readline())
            if "error" in answer:
                sys.exit(f"request {request}: {answer['error']}")
            processing.append(answer["processing_ms"])
            peak = max(peak, rss_mb(worker.pid))
            largest = max(largest, len(audio) / 32000)
        print(f"| {round_number} | {rss_mb(worker.pid):.1f} | {peak:.1f} | {largest:.1f} |", flush=True)
    worker.stdin.close()
    worker.wait()
    processing.sort()
    print(f"\n{request} requests; the worker's processing time per request: median "
          f"{processing[len(processing) // 2]:.0f} ms, mean {sum(processing) / len(processing):.0f} ms")


if __name__ == "__main__":
    main()
