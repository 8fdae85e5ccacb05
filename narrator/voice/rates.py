"""How fast a voice may speak: the one range every engine, the command line and the set-up
screen share (words a minute). A module of its own, light enough for the command line."""

from __future__ import annotations

DEFAULT_RATE = 170
RATES = range(60, 451)
