"""Silero passes over a 16 kHz WAV and nothing else, for callgrind
(benchmarks/vad/instructions): as score.py runs the anchor, one onnxruntime
call per 512 samples from a Python loop.

    silero_cost.py FILE.wav PASSES
"""
import os
import sys
import wave

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from silero import Silero  # noqa: E402

with wave.open(sys.argv[1]) as f:
    x = np.frombuffer(f.readframes(f.getnframes()), "<i2").astype(np.float32) / 32768
model = Silero()
for _ in range(int(sys.argv[2])):
    model.probabilities(x)
print("frames", len(x) // 160)
