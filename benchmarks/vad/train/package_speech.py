"""Real talkers from Debian packages for train.py's `--more-speech` (in the
shipped weights since the 60 Hz front end; train.py's "More talkers" and
"A voice under 80 Hz" say what it gained and cost).

Why: the training speech is Asterisk's four prompt voices, espeak-ng and
flite. Taught with more sounds (`--more-sounds`), the network learnt to
doubt the weak voiced frames of the few real voices it knew, and lost
held-out speech by volunteers on their own microphones. These are more
people, in more languages, recorded as such speech is:

- ktuberling-data: KTuberling's spoken names of its stamps (a word or
  two), read by volunteers in 25 languages;
- klettres-data: KLettres' letters and syllables, read in 20 languages,
  children among the talkers;
- asterisk-prompt-es-co and asterisk-prompt-fr-armelle: two more prompt
  voices (Colombian Spanish, French), 8 kHz GSM as a phone line gives;
- fillets-ng-data, -cs and -nl: Fish Fillets' dialogue, a line to a few
  sentences each, acted in Czech, Dutch and English by a dozen actors: talk,
  not prompts, with the creaky, breathy and trailing-off voice of people
  conversing that the prompt voices and synthesisers never have.

None is vadbench's (pocketsphinx-testdata, asterisk-core-sounds-en) or the
held-out set's (Tux Paint, codec2), and none of their recordings is one
of the held-out set's (overlap.py: every file of these packages against
every held-out item, the best 0.65-0.73 per package where a shared
recording scores over 0.99). The packages are fetched with
`apt-get download` into the work folder and unpacked there (nothing is
installed). Labels come from each clip's energy, as for the other speech
(train.speech_labels, vadbench's rule); a clip whose labelled frames Silero
hears less than half of is left out (a bell among KTuberling's words,
Asterisk's beeps, a syllable under hum), so a label here is speech.
"""
import glob
import os

import numpy as np

import package_sounds
from package_sounds import RATE

PACKAGES = ["ktuberling-data", "klettres-data", "asterisk-prompt-es-co", "asterisk-prompt-fr-armelle",
            "fillets-ng-data", "fillets-ng-data-cs", "fillets-ng-data-nl"]
# How many clips each source gives at most (drawn at random): enough talkers
# without letting one-word clips outnumber the sentences.
SOURCES = [("usr/share/ktuberling/sounds/*/*", 800), ("usr/share/klettres/*/*/*", 400),
           ("usr/share/asterisk/sounds/es/**/*", 300), ("usr/share/asterisk/sounds/fr/**/*", 300),
           ("usr/share/games/fillets-ng/sound/*/[ce][sn]/*", 500), ("usr/share/games/fillets-ng/sound/*/nl/*", 400)]
READABLE = (".ogg", ".wav", ".gsm")  # sox reads these; KTuberling's few .opus it cannot


def heard(audio, labels, teacher):
    """The share of a clip's labelled frames Silero takes for speech."""
    probability = teacher.frames(audio)[:len(labels)]
    return float(np.mean(probability[labels[:len(probability)]] > 0.5))


def more_speech(folder, rng, teacher, decode, label, trim_and_scale):
    """--more-speech's (audio, labels) clips, each at a level drawn from
    -36 to -16 dBFS over its speech, as Asterisk's prompts are."""
    root = package_sounds.fetch(folder, PACKAGES)
    clips, dropped = [], 0
    for pattern, most in SOURCES:
        paths = sorted(p for p in glob.glob(os.path.join(root, pattern), recursive=True) if p.endswith(READABLE))
        for path in rng.choice(paths, size=min(most, len(paths)), replace=False):
            audio = decode(str(path))
            if len(audio) < RATE // 4:  # a few of Fish Fillets' lines are empty
                continue
            level = rng.uniform(-36, -16)
            # Judged at the level the other speech is heard at: Silero doubts very quiet speech.
            audio, labels = trim_and_scale(audio, label(audio), -26)
            if audio is None or labels.sum() < 20:
                continue
            if heard(audio, labels, teacher) < 0.5:
                dropped += 1
                continue
            clips.append((audio * 10 ** ((level + 26) / 20), labels))
    print(f"--more-speech: {len(clips)} clips ({dropped} left out, Silero hears under half of their speech)", flush=True)
    return clips
