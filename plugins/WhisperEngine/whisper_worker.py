"""Parley's Whisper worker: faster-whisper (CTranslate2) loaded once, fed
segments over its standard input, answering on its standard output.

Python only because faster-whisper is; everything around it (queueing,
restarts, HTTP, GStreamer) is Swift (plugins/WhisperEngine/WhisperWorker.swift).
scripts/prepare-whisper copies this file next to the model it serves.

The protocol, one request at a time:
  worker -> {"ready": true, "load_seconds": ..., "cancels": true}   once, after loading
  parley -> {"id": N, "samples": S, "language": "fr" | "", "prompt": "...",
             "temperature": T, "task": "transcribe" | "translate", "words": false,
             "margin": seconds (optional)}\n
            then S samples of 16 kHz mono S16LE
  worker -> {"id": N, "task": ..., "text": ..., "language": ..., "language_probability": ...,
             "duration": ..., "window": ..., "encoder_passes": ..., "processing_ms": ...,
             "segments": [...]}\n
            or {"id": N, "error": "..."}\n
            or {"id": N, "cancelled": true}\n
  parley -> {"cancel": N}\n   while N is being transcribed: stop it (between the
            model's steps); one that comes after N was answered is ignored.
            Sent only to a worker whose ready message says "cancels" (an
            older one would read it as a request).
"translate" is Whisper's own speech-to-English; with "words" every segment
also carries its words' times ("words": [{"word", "start", "end",
"probability"}], from the model's alignment heads). The answer names its
task, so parley can tell a worker older than these fields (which ignores them).
"margin" is how much window the encoder gets after the audio (default 8 s,
WINDOW_MARGIN_FRAMES); cloudstt's partial passes ask for 1 s.
Anything a library prints goes to standard error, never into the protocol.
"""
import argparse
import hashlib
import json
import os
import select
import sys
import time


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True, help="folder with model.bin, config.json, tokenizer.json")
    parser.add_argument("--threads", type=int, default=0, help="CPU threads; 0 = all cores")
    parser.add_argument("--compute-type", default="int8")
    parser.add_argument("--beam-size", type=int, default=5)
    arguments = parser.parse_args()

    # Keep the protocol's channel to ourselves: stray prints go to stderr.
    channel = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)
    requests = Requests(sys.stdin.fileno())

    started = time.monotonic()
    import numpy
    import faster_whisper.transcribe as transcribe_module
    from faster_whisper import WhisperModel

    transcribe_module.pad_or_trim = window(transcribe_module.pad_or_trim)

    model = WhisperModel(arguments.model, device="cpu", compute_type=arguments.compute_type,
                         cpu_threads=arguments.threads, num_workers=1, local_files_only=True)
    model.encode = ENCODED.remembering(model.encode)
    model.detect_language = on_transcribed_frames(model.detect_language)
    model.model = Stoppable(model.model, requests)
    send(channel, {"ready": True, "load_seconds": round(time.monotonic() - started, 3), "cancels": True})

    while True:
        line = requests.readline()
        if not line:
            return
        request = json.loads(line)
        if "cancel" in request:
            continue  # came after its request was answered: nothing to stop
        audio = requests.read_exactly(2 * int(request["samples"]))
        if audio is None:
            return
        requests.current = request["id"]
        try:
            send(channel, transcribe(model, numpy, audio, request, arguments.beam_size))
        except Cancelled:
            send(channel, {"id": request["id"], "cancelled": True})
        except Exception as error:  # one bad segment must not end the worker
            send(channel, {"id": request["id"], "error": f"{type(error).__name__}: {error}"})
        requests.current = None


def transcribe(model, numpy, audio, request, beam_size):
    started = time.monotonic()
    samples = numpy.frombuffer(audio, dtype="<i2").astype(numpy.float32) / 32768.0
    task = "translate" if request.get("task") == "translate" else "transcribe"
    words = bool(request.get("words"))
    options = {"beam_size": beam_size, "language": request.get("language") or None,
               "initial_prompt": request.get("prompt") or None, "vad_filter": False,
               "task": task, "word_timestamps": words}
    temperature = float(request.get("temperature") or 0)
    if temperature > 0:
        options["temperature"] = temperature
    duration = len(samples) / 16000
    options["max_new_tokens"] = token_budget(duration)
    margin = request.get("margin")
    WINDOW["margin"] = WINDOW_MARGIN_FRAMES if margin is None else max(0, min(WINDOW_MARGIN_FRAMES, int(float(margin) * 100)))
    WINDOW["widest"] = 0
    ENCODED.forget()
    segments, info = model.transcribe(samples, **options)
    found = []
    for segment in segments:
        if segment.start >= duration - TAIL_SECONDS:
            # Timed after the audio: the decoder went on past the end of the
            # window it was given (with a window cut to the segment it may
            # repeat the segment's text there). Nothing was said there.
            continue
        item = {"start": round(segment.start, 3), "end": round(segment.end, 3), "text": segment.text.strip(),
                "avg_logprob": segment.avg_logprob, "no_speech_prob": segment.no_speech_prob}
        if words:
            item["words"] = [{"word": word.word.strip(), "start": round(word.start, 3), "end": round(word.end, 3),
                              "probability": round(word.probability, 3)} for word in segment.words or []]
        found.append(item)
    return {"id": request["id"], "task": task, "text": " ".join(s["text"] for s in found if s["text"]),
            "language": info.language, "language_probability": round(info.language_probability, 3),
            "duration": round(duration, 3), "window": WINDOW["widest"] / 100, "encoder_passes": ENCODED.passes,
            "processing_ms": round((time.monotonic() - started) * 1000, 1), "segments": found}


# How much audio the encoder gets: the segment's own length and 8 s, not the
# 30 s window faster-whisper pads every segment to. Measured on LibriVox and
# Asterisk's prompts (benchmarks/stt/window.md): the same or a lower WER
# than 30 s (5.9 % against 6.5 % on the prompts), the median prompt 2.7x
# faster (461 ms against 1250). Shorter margins were faster still but lost
# words where the speech ends close to the window's end (1 s and 3 s: 9.7 %
# and 9.5 %; 5 s kept the corpora's WER but heard the main job's "ill-disposed"
# as "ill-sposed").
WINDOW_MARGIN_FRAMES = 800  # 8 s of 10 ms mel frames after the audio
# The window's length is rounded up to a whole second. CTranslate2 runs the
# encoder's convolutions with oneDNN, which builds and keeps a primitive for
# every input length it meets (up to 1024 of them): at the exact length every
# segment and every speculative prefix was a new one, so the worker grew
# without end (390 MB and growing after 120 requests of varied lengths, against a flat 248 MB) and paid for
# building each. Whole seconds make at most 30 lengths, built once and reused
# (benchmarks/soak/worker-memory.md).
WINDOW_STEP_FRAMES = 100
FULL_WINDOW_FRAMES = 3000   # Whisper's 30 s
# The margin of the request being transcribed (one at a time): a request
# may ask for less than WINDOW_MARGIN_FRAMES (a preview), never for more.
# "widest": the widest window the encoder got for it (frames), for its answer.
WINDOW = {"margin": WINDOW_MARGIN_FRAMES, "widest": 0}
TAIL_SECONDS = 0.1          # a segment timed to start this close to the end (or after it) heard nothing

# How many tokens a decoding may write: what can be said in the audio, not
# Whisper's 224 per window. A decoding that loops ("press zero press zero
# …") stops there instead of filling the window, and each temperature
# fallback after it is bounded too; that loop was the slow tail of the
# prompts (benchmarks/stt/window.md). Fast speech is about 3 words, 5
# tokens, a second.
TOKENS_BASE = 16
TOKENS_PER_SECOND = 8
MAX_NEW_TOKENS = 200        # with a 224-token prompt, within Whisper's 448


def token_budget(seconds):
    """The tokens a decoding of `seconds` of audio (per 30 s window) may write."""
    return min(MAX_NEW_TOKENS, int(TOKENS_BASE + TOKENS_PER_SECOND * min(seconds, 30)))


def window(pad_or_trim):
    """faster-whisper's pad_or_trim with the window cut to the segment."""
    def cut(array, length=FULL_WINDOW_FRAMES, *, axis=-1):
        wanted = array.shape[axis] + WINDOW["margin"]
        wanted = min(length, -(-wanted // WINDOW_STEP_FRAMES) * WINDOW_STEP_FRAMES)  # up to a whole step
        WINDOW["widest"] = max(WINDOW["widest"], wanted)
        return pad_or_trim(array, wanted, axis=axis)
    return cut


class LastEncoding:
    """The model's encoder, remembering its last input and output for the
    request being transcribed.

    With no language named, faster-whisper encodes the window once to find
    the language and again to transcribe it; with on_transcribed_frames
    both are the same features, so the second pass is the first one's
    output (a 5 s clip through `parley serve` with no language:
    benchmarks/stt/window.md). Forgotten when the next request starts
    (`forget`), so nothing is kept between requests and a request that
    repeats an earlier one's audio costs what it always did; within one,
    a long segment's later windows are each new. The key is the features'
    bytes, so no other input can match.
    """

    def __init__(self):
        self.key = None
        self.output = None
        self.passes = 0  # the encoder's runs for this request

    def forget(self):
        self.key = self.output = None
        self.passes = 0

    def remembering(self, encode):
        def encode_once(features):
            key = (features.shape, features.dtype.str, hashlib.blake2b(features.tobytes(), digest_size=16).digest())
            if self.key != key:
                self.passes += 1
                self.output = encode(features)
                self.key = key
            return self.output
        return encode_once


ENCODED = LastEncoding()


def on_transcribed_frames(detect_language):
    """The model's detect_language, given the frames the transcription
    encodes: faster-whisper transcribes all mel frames but the last one
    (its content_frames) and detects on all of them, so the two windows
    differed in one frame and LastEncoding could not match them."""
    def detect(audio=None, features=None, **options):
        if features is not None and features.shape[-1] > 1:
            features = features[..., :-1]
        return detect_language(audio=audio, features=features, **options)
    return detect


class Cancelled(Exception):
    """parley no longer wants the request being transcribed."""


class Requests:
    """What parley sends: requests, one at a time, and while one is being
    transcribed nothing but {"cancel": id} for it (a likely end withdrawn:
    the speaker went on). Read from the descriptor with a buffer of our own,
    so a cancel can be looked for without waiting (`cancelled`)."""

    def __init__(self, descriptor):
        self.descriptor = descriptor
        self.buffer = bytearray()
        self.current = None  # the id being transcribed

    def fill(self):
        chunk = os.read(self.descriptor, 1 << 16)
        self.buffer += chunk
        return bool(chunk)

    def readline(self):
        while b"\n" not in self.buffer:
            if not self.fill():
                return None
        line, _, rest = self.buffer.partition(b"\n")
        self.buffer = rest
        return bytes(line)

    def read_exactly(self, count):
        while len(self.buffer) < count:
            if not self.fill():
                return None
        data = bytes(self.buffer[:count])
        del self.buffer[:count]
        return data

    def cancelled(self):
        """Whether a cancel of the current request has come; reads only what
        is there, and consumes only cancels (a stale one, for a request
        already answered, is dropped). Nothing to look for between requests."""
        if self.current is None:
            return False
        while select.select([self.descriptor], [], [], 0)[0]:
            if not self.fill():
                break  # parley went away: the main loop sees the end
        while self.buffer.startswith(b'{"cancel"') and b"\n" in self.buffer:
            line, _, rest = self.buffer.partition(b"\n")
            self.buffer = rest
            if json.loads(line).get("cancel") == self.current:
                return True
        return False


class Stoppable:
    """The CTranslate2 model, stopping between its steps when parley cancels
    the request: before and after encoding the window, and before each
    decoding (faster-whisper's temperature fallback decodes again). A step
    under way runs to its end (CTranslate2 cannot stop a beam search), so a
    withdrawn transcription gives the worker back in about one step, not
    after the whole segment (benchmarks/README.md, "How early the end is
    likely")."""

    def __init__(self, whisper, requests):
        self.whisper = whisper
        self.requests = requests

    def __getattr__(self, name):
        return getattr(self.whisper, name)

    def check(self):
        if self.requests.cancelled():
            raise Cancelled()

    def encode(self, *arguments, **options):
        self.check()
        output = self.whisper.encode(*arguments, **options)
        self.check()
        return output

    def generate(self, *arguments, **options):
        self.check()
        return self.whisper.generate(*arguments, **options)


def send(channel, message):
    channel.write((json.dumps(message, ensure_ascii=False) + "\n").encode("utf-8"))


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        pass
