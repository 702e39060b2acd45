#!/usr/bin/python3
"""Transcribes a recording with Parley's elements from Python (PyGObject).

    swift build
    export GST_PLUGIN_PATH=$(.build/debug/parley plugin-path)
    /usr/bin/python3 Examples/python/transcribe.py [RECORDING] [--engine whisper|pocketsphinx]

Needs Debian's own Python (/usr/bin/python3) with python3-gi and
gir1.2-gstreamer-1.0, which scripts/setup installs: a python3 from pyenv,
conda or a venv usually has no `gi` module. Prints each segment as the VAD
cuts it and each final transcript, read from the bus messages
(docs/reference.md lists their fields). Exit status 0 done, 1 the pipeline
failed, 2 wrong input, as the parley CLI.
"""
import argparse
import os
import sys

try:
    import gi
    gi.require_version("Gst", "1.0")
    from gi.repository import Gst
except (ImportError, ValueError) as error:
    sys.exit("error: PyGObject with GStreamer is missing (%s): run this with /usr/bin/python3 "
             "after `apt-get install python3-gi gir1.2-gstreamer-1.0`" % error)

DEFAULT = "/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0870.wav"


def main():
    parser = argparse.ArgumentParser(description="Transcribe a recording with vadsegmenter and cloudstt.")
    parser.add_argument("recording", nargs="?", default=DEFAULT, help="any file decodebin reads")
    parser.add_argument("--engine", choices=["auto", "whisper", "pocketsphinx"], default="auto",
                        help="what cloudstt provider=local runs")
    args = parser.parse_args()
    if not os.path.isfile(args.recording):
        print("error: no such recording: %s" % args.recording, file=sys.stderr)
        return 2

    Gst.init(None)
    if Gst.ElementFactory.find("vadsegmenter") is None:
        print("error: Parley's plugin is not found: export GST_PLUGIN_PATH=$(.build/debug/parley plugin-path)",
              file=sys.stderr)
        return 2

    # Built element by element rather than parsed, so any file name works,
    # spaces and quotes included.
    pipeline = Gst.Pipeline.new("transcribe")
    source = Gst.ElementFactory.make("filesrc")
    source.set_property("location", args.recording)
    decode = Gst.ElementFactory.make("decodebin")
    chain = [Gst.ElementFactory.make(name) for name in ("audioconvert", "audioresample", "capsfilter",
                                                         "vadsegmenter", "cloudstt", "fakesink")]
    chain[2].set_property("caps", Gst.Caps.from_string("audio/x-raw,format=S16LE,channels=1,rate=16000"))
    chain[4].set_property("local-engine", args.engine)
    for element in [source, decode] + chain:
        pipeline.add(element)
    source.link(decode)
    for upstream, downstream in zip(chain, chain[1:]):
        upstream.link(downstream)
    decode.connect("pad-added", lambda _, pad: pad.link(chain[0].get_static_pad("sink")))

    pipeline.set_state(Gst.State.PLAYING)
    bus = pipeline.get_bus()
    status = 0
    while True:
        message = bus.timed_pop_filtered(Gst.CLOCK_TIME_NONE,
                                         Gst.MessageType.ELEMENT | Gst.MessageType.EOS | Gst.MessageType.ERROR)
        if message.type == Gst.MessageType.EOS:
            break
        if message.type == Gst.MessageType.ERROR:
            error, details = message.parse_error()
            print("error: %s: %s" % (message.src.get_name(), error.message), file=sys.stderr)
            status = 1
            break
        structure = message.get_structure()
        if structure.get_name() == "parley/vad":
            print("segment %d: %.2f s to %.2f s (%s)" % (structure.get_value("segment-id"),
                  structure.get_value("start") / Gst.SECOND, structure.get_value("end") / Gst.SECOND,
                  structure.get_value("reason")))
        elif structure.get_name() == "parley/transcript" and structure.get_value("status") == "final":
            print("transcript %d (%s): %s" % (structure.get_value("segment-id"), structure.get_value("provider"),
                  structure.get_value("text")))
    pipeline.set_state(Gst.State.NULL)
    return status


if __name__ == "__main__":
    sys.exit(main())
