"""Non-speech from Debian packages for train.py (`--more-sounds` is in the
shipped weights since the 60 Hz front end, `--zero-ad` is not; train.py's
"A held-out set", "More sounds" and "A voice under 80 Hz" say what each
gained and cost): animals, instruments, music, weather and work
sounds, the kinds of sound the held-out set showed the detector taking for
speech (a cow, a duck, a cello; benchmarks/vad/heldout).

`--zero-ad`: 0 A.D.'s sounds, read from the zip 0ad-data installs (its
animals, weather and water, foley, impacts, alarms and music; not its
soldiers' and citizens' voices). Only its alarms and music go past Silero
(below): they may hold singing or a herald.

`--more-sounds`: from Debian packages fetched with `apt-get download` into the work folder
and unpacked there (nothing is installed), none of them Tux Paint's (the
held-out set's) and checked against its sounds by cross-correlation (no
recording is shared, overlap.py; GCompris's core/ sounds are left out, two
of them are Tux Paint's):

- gcompris-qt-data: its activities' sounds (farm animals, 26 instruments,
  world music, a sound memory game), read out of the Qt resource bundles
  (.rcc) they ship in;
- wesnoth-1.16-data: attack, magic, weapon and animal sounds, not its units'
  voices (people and creatures voiced by people, `VOICED_UNITS`);
- widelands-data: animals (birds, deer, wolves, frogs), work sounds, music;
- sonic-pi-samples: drums, percussion, ambient and electronic samples.

For both, music is taken as 4 s excerpts at a fifth, half and four fifths
of each piece (`excerpts`); any other sound as its first 6 s. Anything
Silero hears as speech in a fifth of its frames or more (at the speech's
level, -26 dBFS; `heard_as_speech`) is left out: a sound here must never
be speech.
"""
import glob
import os
import re
import struct
import subprocess
import sys
import tempfile
import zipfile
import zlib

import numpy as np

RATE = 16000
PACKAGES = ["gcompris-qt-data", "wesnoth-1.16-data", "widelands-data", "sonic-pi-samples"]
WESNOTH = "usr/share/games/wesnoth/1.16/data/core/sounds"
ZERO_AD = "/usr/share/games/0ad/mods/public/public.zip"
ZERO_AD_FOLDERS = ("audio/actor/fauna/", "audio/ambient/", "audio/resource/", "audio/attack/impact/",
                   "audio/interface/alarm/", "audio/music/")
# Of these, the ones that may hold a voice (a piece's singing, a herald).
ZERO_AD_MAY_SING = ("audio/interface/alarm/", "audio/music/")
# Wesnoth units' cries, hits and deaths, acted by people: voices, not sounds.
VOICED_UNITS = re.compile(r"^(human|dwarf|elf|orc|goblin|ogre|troll|lich|mermaid|mermen|naga|ghoul|groan|wose|drake|"
                          r"gryphon|skeleton|giant|yeti|dragon|bear|cyclops|squid|saurian|mage|ink)")


def excerpts(audio, music):
    """What of a recording is kept, each piece scaled to RMS 1: music as 4 s
    at a fifth, half and four fifths of the piece (music on hold), any other
    sound its first 6 s (rain, wind and rivers run for minutes); pieces under
    100 ms or silent are dropped."""
    if music:
        pieces = [audio[int(len(audio) * at):int(len(audio) * at) + 4 * RATE] for at in (0.2, 0.5, 0.8)]
    else:
        pieces = [audio[:6 * RATE]]
    kept = []
    for piece in pieces:
        rms = np.sqrt(np.mean(piece ** 2)) if len(piece) else 0.0
        if len(piece) >= RATE // 10 and rms > 1e-4:
            kept.append(piece / rms)
    return kept


def heard_as_speech(clip, teacher):
    """Whether Silero takes a fifth or more of a clip (at RMS 1) for speech,
    heard at 0.05 RMS (-26 dBFS), the level the speech is placed at."""
    return np.mean(teacher.frames(clip * 0.05) > 0.5) >= 0.2


def zero_ad_sounds(teacher, decode, archive_path=ZERO_AD):
    """--zero-ad's clips: animals (cattle, horses, camels, elephants, pigs,
    sheep), rain, wind and rivers, tools on wood and stone, alarms and music."""
    if not os.path.exists(archive_path):
        sys.exit(f"--zero-ad needs {archive_path}: apt-get install 0ad-data")
    sounds = []
    with zipfile.ZipFile(archive_path) as archive, tempfile.TemporaryDirectory() as folder:
        for name in sorted(archive.namelist()):
            if not (name.endswith(".ogg") and name.startswith(ZERO_AD_FOLDERS)):
                continue
            path = os.path.join(folder, "sound.ogg")
            with open(path, "wb") as file:
                file.write(archive.read(name))
            for clip in excerpts(decode(path), music=name.startswith("audio/music/")):
                if not (name.startswith(ZERO_AD_MAY_SING) and heard_as_speech(clip, teacher)):
                    sounds.append(clip)
    return sounds


def fetch(folder, packages=PACKAGES):
    """`packages` unpacked under `folder`/packages (downloaded once)."""
    root = os.path.join(folder, "packages")
    if not os.path.exists(os.path.join(root, ".complete")):
        debs = os.path.join(folder, "debs")
        os.makedirs(debs, exist_ok=True)
        subprocess.run(["apt-get", "download", *packages], cwd=debs, check=True)
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


def gcompris_sounds(root):
    """GCompris's activity sounds, written out of its resource bundles once (not core/)."""
    folder = os.path.join(root, "extracted-gcompris")
    if not os.path.exists(os.path.join(folder, ".complete")):
        for bundle in sorted(glob.glob(os.path.join(root, "usr/share/gcompris-qt/rcc/*.rcc"))):
            for name, content in qt_resources(bundle):
                if name.endswith((".ogg", ".wav")) and "/core/" not in name:
                    target = os.path.join(folder, name)
                    os.makedirs(os.path.dirname(target), exist_ok=True)
                    open(target, "wb").write(content)
        os.makedirs(folder, exist_ok=True)
        open(os.path.join(folder, ".complete"), "w").close()
    return sorted(glob.glob(os.path.join(folder, "**/*.*"), recursive=True))


def more_sounds(folder, teacher, decode):
    """--more-sounds' clips, with what Silero hears as speech left out."""
    root = fetch(folder)
    paths = gcompris_sounds(root)
    paths += [p for p in sorted(glob.glob(os.path.join(root, WESNOTH, "**/*.*"), recursive=True))
              if not VOICED_UNITS.match(os.path.basename(p))]
    paths += sorted(glob.glob(os.path.join(root, "usr/share/games/widelands/data/sound/**/*.ogg"), recursive=True))
    paths += sorted(glob.glob(os.path.join(root, "usr/share/sonic-pi/samples/*.flac")))
    paths = [p for p in paths if p.endswith((".ogg", ".wav", ".flac"))]
    music = sorted(glob.glob(os.path.join(root, "usr/share/games/widelands/data/music/*.ogg")))
    music += [p for p in paths if "/music/" in p or "/melody/" in p]
    is_music = set(music)
    clips = [clip for path in dict.fromkeys(paths + music) for clip in excerpts(decode(path), path in is_music)]
    kept = [clip for clip in clips if not heard_as_speech(clip, teacher)]
    print(f"--more-sounds: {len(kept)} of {len(clips)} clips (the rest Silero hears as speech)", flush=True)
    return kept
