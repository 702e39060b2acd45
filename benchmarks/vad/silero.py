"""Silero VAD v5 as an anchor and a teacher: the ONNX model shipped in the
silero-vad wheel (MIT), run with onnxruntime on one thread; none of the
package's code (which imports torch) is used."""
import importlib.util
import os

import numpy as np

CHUNK = 512  # samples per decision at 16 kHz
CONTEXT = 64


class Silero:
    def __init__(self):
        import onnxruntime
        package = importlib.util.find_spec("silero_vad").submodule_search_locations[0]
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = options.inter_op_num_threads = 1
        self.session = onnxruntime.InferenceSession(os.path.join(package, "data", "silero_vad.onnx"), options)

    def probabilities(self, x):
        """Speech probability per 512-sample chunk of float32 audio in [-1, 1]."""
        state = np.zeros((2, 1, 128), dtype=np.float32)
        context = np.zeros(CONTEXT, dtype=np.float32)
        rate = np.array(16000, dtype=np.int64)
        out = []
        for start in range(0, len(x) - CHUNK + 1, CHUNK):
            chunk = np.concatenate([context, x[start:start + CHUNK]])[None, :]
            probability, state = self.session.run(None, {"input": chunk, "state": state, "sr": rate})
            context = chunk[0, -CONTEXT:]
            out.append(probability[0, 0])
        return np.array(out)
