"""More non-speech for train.py (`--more-sounds`, a trial: not in the shipped
weights, see train.py's "More sounds" for what it gained and cost):
animals, instruments and music, the kinds of sound the held-out set showed
the detector taking for speech (a cow, a duck, a cello; benchmarks/vad/heldout).

From Debian packages fetched with `apt-get download` into the work folder
and unpacked there (nothing is installed), none of them Tux Paint's (the
held-out set's) and checked against its sounds by cross-correlation (no
recording is shared; GCompris's core/ sounds are left out, two of them are
Tux Paint's):

- gcompris-qt-data: its activities' sounds (farm animals, 26 instruments,
  world music, a sound memory game), read out of the Qt resource bundles
  (.rcc) they ship in;
- wesnoth-1.16-data: attack, magic, weapon and animal sounds, not its units'
  voices (people and creatures voiced by people, `VOICED_UNITS`);
- widelands-data: animals (birds, deer, wolves, frogs), work sounds, music;
- sonic-pi-samples: drums, percussion, ambient and electronic samples.

Music is taken as 4 s excerpts at a fifth, half and four fifths of each
piece; any other sound as its first 6 s. Anything Silero hears as speech in
a fifth of its frames or more (at the speech's level, -26 dBFS) is left
out, as for 0 A.D.'s music: a sound here must never be speech.
"""
import glob
import os
import re
import struct
import subprocess
import zlib

import numpy as np

RATE = 16000
PACKAGES = ["gcompris-qt-data", "wesnoth-1.16-data", "widelands-data", "sonic-pi-samples"]
WESNOTH = "usr/share/games/wesnoth/1.16/data/core/sounds"
# Wesnoth units' cries, hits and deaths, acted by people: voices, not sounds.
VOICED_UNITS = re.compile(r"^(human|dwarf|elf|orc|goblin|ogre|troll|lich|mermaid|mermen|naga|ghoul|groan|wose|drake|"
                          r"gryphon|skeleton|giant|yeti|dragon|bear|cyclops|squid|saurian|mage|ink)")


def fetch(folder):
    """The packages unpacked under `folder`/packages (downloaded once)."""
    root = os.path.join(folder, "packages")
    if not os.path.exists(os.path.join(root, ".complete")):
        debs = os.path.join(folder, "debs")
        os.makedirs(debs, exist_ok=True)
        subprocess.run(["apt-get", "download", *PACKAGES], cwd=debs, check=True)
        for deb in sorted(glob.glob(os.path.join(debs, "*.deb"))):
            subprocess.run(["dpkg", "-x", deb, root], check=True)
        open(os.path.join(root, ".complete"), "w").close()
    return root


def qt_resources(path):
    """(name, bytes) of each file in a Qt resource bundle (.rcc, format 1-3):
    a header, a tree of 14- or 22-byte nodes, UTF-16 names and zlib'd data."""
    data = open(path, "rb").read()
    if data[:4] != b"qres":
        raise ValueError(f"{path}: not a Qt resource bundle")
    version, tree, payload, names = struct.unpack(">IIII", data[4:20])
    node_size = 14 if version == 1 else 22

    def name(offset):
        length, = struct.unpack(">H", data[names + offset:names + offset + 2])
        return data[names + offset + 6:names + offset + 6 + 2 * length].decode("utf-16-be")

    def walk(index, prefix):
        node = tree + index * node_size
        name_offset, flags = struct.unpack(">IH", data[node:node + 6])
        here = name(name_offset) if index else ""
        if flags & 2:  # a directory: its children's count and first index
            count, first = struct.unpack(">II", data[node + 6:node + 14])
            for child in range(first, first + count):
                yield from walk(child, prefix + here + "/" if index else "")
        elif not flags & 4:  # zstd-compressed entries are skipped (none hold sounds)
            offset, = struct.unpack(">I", data[node + 10:node + 14])
            size, = struct.unpack(">I", data[payload + offset:payload + offset + 4])
            raw = data[payload + offset + 4:payload + offset + 4 + size]
            yield prefix + here, zlib.decompress(raw[4:]) if flags & 1 else raw

    yield from walk(0, "")


def recordings(root, decode):
    """(path, audio) of the packages' recorded sounds and music excerpts."""
    gcompris = os.path.join(root, "extracted-gcompris")
    if not os.path.exists(os.path.join(gcompris, ".complete")):
        for bundle in sorted(glob.glob(os.path.join(root, "usr/share/gcompris-qt/rcc/*.rcc"))):
            for name, content in qt_resources(bundle):
                if name.endswith((".ogg", ".wav")) and "/core/" not in name:
                    target = os.path.join(gcompris, name)
                    os.makedirs(os.path.dirname(target), exist_ok=True)
                    open(target, "wb").write(content)
        os.makedirs(gcompris, exist_ok=True)
        open(os.path.join(gcompris, ".complete"), "w").close()
    paths = sorted(glob.glob(os.path.join(gcompris, "**/*.*"), recursive=True))
    paths += [p for p in sorted(glob.glob(os.path.join(root, WESNOTH, "**/*.*"), recursive=True))
              if not VOICED_UNITS.match(os.path.basename(p))]
    paths += sorted(glob.glob(os.path.join(root, "usr/share/games/widelands/data/sound/**/*.ogg"), recursive=True))
    paths += sorted(glob.glob(os.path.join(root, "usr/share/sonic-pi/samples/*.flac")))
    music = sorted(glob.glob(os.path.join(root, "usr/share/games/widelands/data/music/*.ogg")))
    music += [p for p in paths if "/music/" in p or "/melody/" in p]
    out = []
    for path in dict.fromkeys(paths + music):
        if not path.endswith((".ogg", ".wav", ".flac")):
            continue
        audio = decode(path)
        if path in music:
            pieces = [audio[int(len(audio) * at):int(len(audio) * at) + 4 * RATE] for at in (0.2, 0.5, 0.8)]
        else:
            pieces = [audio[:6 * RATE]]
        out += [(path, piece) for piece in pieces if len(piece) >= 1600 and np.sqrt(np.mean(piece ** 2)) > 1e-4]
    return out


def more_sounds(folder, teacher, decode):
    """The clips, each scaled to RMS 1, with what Silero hears as speech left out."""
    clips = [audio for _, audio in recordings(fetch(folder), decode)]
    kept = []
    for audio in clips:
        audio = audio / (np.sqrt(np.mean(audio ** 2)) + 1e-9)
        # Heard at 0.05 RMS (-26 dBFS), the level the speech is placed at.
        if np.mean(teacher.frames(audio * 0.05) > 0.5) < 0.2:
            kept.append(audio)
    print(f"--more-sounds: {len(kept)} of {len(clips)} clips (the rest Silero hears as speech)", flush=True)
    return kept
