"""libasound's messages would be drawn across the full-screen table (it writes to fd 2)."""

from __future__ import annotations

import ctypes.util
import subprocess
import sys

import pytest

PROVOKE = """
import ctypes, ctypes.util, sys
from narrator.sound.output import quiet_alsa
if sys.argv[1] == "quiet":
    quiet_alsa()
alsa = ctypes.CDLL(ctypes.util.find_library("asound") or "libasound.so.2")
pcm = ctypes.c_void_p()
print(alsa.snd_pcm_open(ctypes.byref(pcm), b"no_such_device_here", 0, 0))
"""


@pytest.mark.skipif(ctypes.util.find_library("asound") is None, reason="no libasound here")
def test_alsa_messages_are_kept_off_the_terminal() -> None:
    def stderr(mode: str) -> str:
        run = subprocess.run(
            [sys.executable, "-c", PROVOKE, mode], capture_output=True, text=True, check=True
        )
        assert int(run.stdout.strip()) < 0  # the device really failed to open
        return run.stderr

    assert "ALSA lib" in stderr("loud")  # what a player would see drawn over the page
    assert "ALSA lib" not in stderr("quiet")
