"""Silero passes over a 16 kHz WAV and nothing else, for callgrind
(benchmarks/vad/instructions): as score.py runs the anchor, one onnxruntime
call per 512 samples from a Python loop. The model is loaded once, so its
loading cancels out of the difference between pass counts.

    silero_cost.py FILE.wav PASSES
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from score import FRAME, read_wav  # noqa: E402
from silero import Silero  # noqa: E402

samples = read_wav(sys.argv[1]).astype(np.float32) / 32768.0
model = Silero()
for _ in range(int(sys.argv[2])):
    model.probabilities(samples)
print("frames", len(samples) // FRAME)
