"""Soak: live-translate for an hour on a looping recording, memory sampled.

Plays Asterisk prompts joined into conversations (`parley bench corpus
conversation`), looped into one long WAV, through pipelines/live-translate
.pipeline as a microphone would (recordingsrc, paced), local engines, the
session recorded. Every INTERVAL seconds it reads VmRSS of parley and of every
process below it (the Whisper worker, apertium's), and at the end it reads the
session log: every segment the VAD cut must be final, translated and spoken.
Writes a report (markdown) with each process's RSS after the warm-up and at
the end, the growth, a row per ten minutes, and the segments' account.
"""
import argparse
import json
import os
import subprocess
import sys
import time
import wave
from pathlib import Path


def build_corpus(parley, folder):
    manifest = folder / "manifest.jsonl"
    if not manifest.exists():
        subprocess.run([parley, "bench", "corpus", "conversation", "--limit", "12", "-o", str(folder)],
                       check=True, stdout=subprocess.DEVNULL)
    return [json.loads(line) for line in manifest.read_text().splitlines() if line.strip()]


def build_loop(corpus, folder, seconds, gap_s=2.0):
    """Concatenates the corpus's recordings, gap_s apart, until `seconds`."""
    loop = folder / "loop.wav"
    utterances = 0
    with wave.open(str(loop), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(16000)
        written = 0.0
        silence = b"\0\0" * int(16000 * gap_s)
        while written < seconds:
            for entry in corpus:
                with wave.open(str(folder / entry["audio"]), "rb") as source:
                    assert source.getnchannels() == 1 and source.getsampwidth() == 2
                    assert source.getframerate() == 16000, "the conversation corpus is 16 kHz"
                    frames = source.readframes(source.getnframes())
                out.writeframes(frames + silence)
                written += len(frames) / 32000 + gap_s
                utterances += len(entry["speech"])
                if written >= seconds:
                    break
    return loop, written, utterances


def descendants(root):
    """Pids under root (itself included), from /proc's parent links."""
    children = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as stat:
                parent = int(stat.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(parent, []).append(int(name))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += children.get(pid, [])
    return found


def label(pid):
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return None
    words = [part.decode(errors="replace") for part in command if part]
    if not words:
        return None
    if any("whisper_worker" in word for word in words):
        return "whisper worker"
    if any("piper_worker" in word for word in words):
        return "piper worker"
    return os.path.basename(words[0])


def rss_kb(pid):
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return None


def median(values):
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--parley", required=True)
    parser.add_argument("--minutes", type=float, default=60)
    parser.add_argument("--warmup-minutes", type=float, default=10)
    parser.add_argument("--interval-s", type=float, default=10)
    parser.add_argument("--folder", default="out/soak")
    parser.add_argument("--output", default="benchmarks/soak/results.md")
    args = parser.parse_args()

    folder = Path(args.folder)
    folder.mkdir(parents=True, exist_ok=True)
    corpus = build_corpus(args.parley, folder / "corpus")
    loop, seconds, utterances = build_loop(corpus, folder / "corpus", args.minutes * 60)
    session = folder / "session"
    subprocess.run(["rm", "-rf", str(session)], check=True)
    command = [args.parley, "run", "pipelines/live-translate.pipeline", "-q",
               "-s", f"SOURCE=recordingsrc location={loop}", "-s", "SINK=fakesink", "-s", f"SESSION={session}"]
    print(f"soak: {seconds / 60:.1f} min of speech ({utterances} utterances), sampling every {args.interval_s:g} s",
          flush=True)
    started = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=open(folder / "parley.log", "w"))
    samples = []  # (seconds since start, label, pid, rss kB)
    with open(folder / "rss.csv", "w") as csv:
        csv.write("seconds,process,pid,rss_kb\n")
        while process.poll() is None:
            now = time.monotonic() - started
            for pid in descendants(process.pid):
                name, rss = label(pid), rss_kb(pid)
                if name and rss:
                    samples.append((now, name, pid, rss))
                    csv.write(f"{now:.1f},{name},{pid},{rss}\n")
            csv.flush()
            time.sleep(args.interval_s)
    wall = time.monotonic() - started
    status = process.returncode

    records = {}
    log = session / "session.jsonl"
    for line in (log.read_text().splitlines() if log.exists() else []):
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        records[entry["segment"]] = entry  # a later line for a segment supersedes
    statuses = {}
    for entry in records.values():
        statuses[entry.get("status", "?")] = statuses.get(entry.get("status", "?"), 0) + 1
    complete = sum(1 for entry in records.values()
                   if entry.get("status") == "final" and entry.get("translations") and entry.get("audio"))

    # One series per kind of process: parley, the Whisper and Piper workers,
    # and apertium's chain (a shell and a dozen small filters) summed.
    def group(name):
        return name if name in ("parley", "whisper worker", "piper worker") else "apertium chain"
    series = {}  # group -> {sample time -> (rss kB summed, pids)}
    for t, name, pid, rss in samples:
        total, pids = series.setdefault(group(name), {}).get(t, (0, set()))
        series[group(name)][t] = (total + rss, pids | {pid})
    warmup, end = args.warmup_minutes * 60, wall
    window = 120
    rows = []
    for name in ("parley", "whisper worker", "piper worker", "apertium chain"):
        points = series.get(name, {})
        after = [rss for t, (rss, _) in points.items() if warmup <= t < warmup + window]
        last = [rss for t, (rss, _) in points.items() if t >= end - window]
        if not after or not last:
            continue
        pids = set().union(*(p for _, p in points.values()))
        rows.append((name, len(pids), median(after), median(last), max(rss for rss, _ in points.values())))
    lines = [
        "# Soak: live-translate for an hour",
        "",
        f"`benchmarks/soak/run` on a {os.cpu_count()}-core host, "
        f"{time.strftime('%Y-%m-%d')}: {seconds / 60:.1f} min of Asterisk prompts joined into conversations "
        f"and looped ({utterances} utterances), played paced through `pipelines/live-translate.pipeline` "
        "(recordingsrc, local engines: Whisper-base, apertium, espeak-ng; session recorded), debug build. "
        f"VmRSS of parley and every process it started, every {args.interval_s:g} s; growth is the median of "
        f"the last {window // 60} minutes over the median of the {window // 60} minutes after a "
        f"{args.warmup_minutes:g}-minute warm-up.",
        "",
        f"Exit status {status}, {wall / 60:.1f} min of wall time.",
        "",
        "| process | processes | RSS after warm-up (MB) | RSS at the end (MB) | growth | peak (MB) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, count, a, b, peak in rows:
        lines.append(f"| {name} | {count} | {a / 1024:.1f} | {b / 1024:.1f} | {100 * (b - a) / a:+.1f}% | {peak / 1024:.1f} |")
    lines += ["", "Every ten minutes (MB, median of the samples in that minute):", "",
              "| minute | " + " | ".join(name for name, *_ in rows) + " |",
              "|---:|" + "---:|" * len(rows)]
    minute = 0
    while minute * 60 <= wall:
        cells = []
        for name, *_ in rows:
            inside = [rss for t, (rss, _) in series[name].items() if minute * 60 <= t < minute * 60 + 60]
            cells.append(f"{median(inside) / 1024:.1f}" if inside else "–")
        lines.append(f"| {minute} | " + " | ".join(cells) + " |")
        minute += 10
    lines += [
        "",
        f"Segments in the session log: {len(records)} ({', '.join(f'{k} {v}' for k, v in sorted(statuses.items()))}); "
        f"final with a translation and spoken audio: {complete}. Utterances played: {utterances} "
        "(the VAD may join two close ones or split a long one, so the counts can differ by a few).",
        "",
    ]
    flat = all(b <= a * 1.05 for _, _, a, b, _ in rows)
    lines += [f"Memory within 5% of its level after the warm-up for every process: {'yes' if flat else 'no'}.", ""]
    Path(args.output).write_text("\n".join(lines))
    print("\n".join(lines))
    return 0 if status == 0 and flat and complete == len(records) and records else 1


if __name__ == "__main__":
    sys.exit(main())
