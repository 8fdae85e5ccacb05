#!/usr/bin/env python3
"""Fetch the small Vosk speech model of a language into models/: the same as
`narrator models download ru|en [--dir DIR] [--url MIRROR]`.

    .venv/bin/python scripts/download_models.py ru
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from narrator.cli import main

if __name__ == "__main__":
    sys.exit(main(["models", "download", *sys.argv[1:]]))
