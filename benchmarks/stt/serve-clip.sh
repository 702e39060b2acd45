#!/bin/sh
# How long `parley serve` takes to answer /v1/audio/transcriptions for a
# clip of speech, as a client sees it (curl's time_total over loopback) and
# as the engine reports it (the response's processing time is not in the
# JSON, so only the total is timed). Whisper-base, as `parley serve` runs it
# by default once scripts/setup prepared it.
#
#     benchmarks/stt/serve-clip.sh [RUNS] [SECONDS]
#
# The clip: the first SECONDS (default 5; the reading is 5.3 s) of a LibriVox reading from
# pocketsphinx-testdata, 16-bit 16 kHz WAV. One warm-up request, then RUNS
# (default 10); prints each time and the median. Results: window.md.
set -eu
runs=${1:-10}
seconds=${2:-5}
parley=${PARLEY:-.build/debug/parley}
port=${PORT:-8097}
work=$(mktemp -d)
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT INT TERM

source=/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0890.wav
python3 - "$source" "$seconds" "$work/clip.wav" <<'CUT'
import sys, wave
with wave.open(sys.argv[1]) as source, wave.open(sys.argv[3], "wb") as clip:
    clip.setparams(source.getparams())
    clip.writeframes(source.readframes(int(float(sys.argv[2]) * source.getframerate())))
CUT

"$parley" serve --port "$port" >"$work/serve.log" 2>&1 &
server=$!
for _ in $(seq 1 300); do
    curl -s -o /dev/null "http://127.0.0.1:$port/v1/models" && break
    sleep 0.2
done

ask() {
    curl -s -o "$work/answer.json" -w '%{time_total}\n' \
        -F file=@"$work/clip.wav" -F model=whisper-1 "http://127.0.0.1:$port/v1/audio/transcriptions"
}
ask >/dev/null
echo "clip: $(python3 -c "import wave,sys; w=wave.open(sys.argv[1]); print(round(w.getnframes()/w.getframerate(),2))" "$work/clip.wav") s; text: $(cat "$work/answer.json")"
times=""
for _ in $(seq 1 "$runs"); do
    times="$times $(ask)"
done
echo "times (s):$times"
echo "$times" | python3 -c "import statistics,sys; t=[float(x) for x in sys.stdin.read().split()]; print(f'median {1000*statistics.median(t):.0f} ms, min {1000*min(t):.0f} ms, max {1000*max(t):.0f} ms over {len(t)}')"
