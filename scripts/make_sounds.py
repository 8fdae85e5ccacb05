#!/usr/bin/env python3
"""Write previews of the synthesised night sounds into audio/ (to listen to them).

The game synthesises its knocks, ticks and dawn chime in numpy at run time
(narrator/sound/knocks.py); these files are only for people to hear them.

    .venv/bin/python scripts/make_sounds.py
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import soundfile

from narrator.sound.clip import MIX_RATE
from narrator.sound.knocks import KnockBed
from narrator.sound.knocks import chime
from narrator.sound.knocks import tick

AUDIO = Path(__file__).resolve().parent.parent / "audio"


def main() -> None:
    AUDIO.mkdir(exist_ok=True)
    bed = KnockBed(random.Random(1), density=3.0).render(MIX_RATE * 6) * 0.35
    soundfile.write(str(AUDIO / "knock-bed-preview.wav"), bed, MIX_RATE, subtype="PCM_16")
    soundfile.write(str(AUDIO / "dawn-chime.wav"), chime().samples, MIX_RATE, subtype="PCM_16")
    ticks = np.concatenate([np.pad(tick().samples, ((0, MIX_RATE - tick().frames), (0, 0)))] * 3)
    soundfile.write(str(AUDIO / "window-ticks.wav"), ticks, MIX_RATE, subtype="PCM_16")
    for path in sorted(AUDIO.glob("*.wav")):
        print(path.relative_to(AUDIO.parent))


if __name__ == "__main__":
    main()
